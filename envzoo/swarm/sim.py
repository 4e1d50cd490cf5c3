"""The swarm simulator: B rows (independent populations) of N robots in the plane, each with a
type x_i in [0, 1], interacting through a graphon W(x, y).

What every robot i perceives of the others is its **graphon mean field**, the graphon-weighted
empirical average of pair features f(s_i, s_j) of its state and theirs:

    m_i = (1 / N) Σ_{j ≠ i} W(x_i, x_j) f(s_i, s_j),

with f (:data:`FEATURES`) = 1 (so m_i[0] is the degree d_i), the relative position and velocity,
the Gaussian footprint g = exp(−|Δp|² / 2σ²), the separation vector −Δp g, and the squared
distances |Δp|², |Δv|². As N grows with i.i.d. types, m_i tends to the graphon integral
∫ W(x_i, y) E[f | y] dy (Caines & Huang 2019).

The **κ-subsample** (after GMFS) draws κ others j_1..j_κ with probability W_ij / Σ_k W_ik (by
interaction strength, with replacement) and estimates m_i by d_i / κ Σ_k f(s_i, s_{j_k}): the
importance weight of a draw, W_ij / (N p_ij), is d_i, so the estimate is unbiased, with an
error of order 1 / √κ (both measured in ``tests/swarm``).

Types are fixed in an episode, so W (B, N, N) and each row's cumulative weights (for the
draws) are computed once at reset; a step is O(N²) per row (the exact mean field and the
collisions), in compiled kernels over rows and agents.

With ``summation="sorted"`` no (N, N) array exists and a step costs O(N log N) plus the near
pairs. The features whose pair term is a polynomial in the relative state — the degree, Δp,
Δv, |Δp|², |Δv|² — are sums Σ_{j≠i} W_ij v_j of per-agent values v_j (1, p_j, v_j, |p_j|²,
|v_j|², expanded about the population's mean, which they do not depend on), which a named
graphon sums exactly over the agents sorted by type (``weighted_sums`` in
:mod:`envzoo.swarm.graphon`). The footprint features weigh W_ij by exp(−|Δp|² / 2σ²), which
depends on the positions: they are summed over the pairs closer than
:data:`FOOTPRINT_REACH` σ (a grid of cells at least that wide), beyond which a pair's
footprint is below 2.1e-16, under the rounding of the sum; the collisions over the pairs in
contact, on the same grid. Both equal the O(N²) sums (tested to 1e-12); the near pairs cost
O(N · the robots within FOOTPRINT_REACH σ), all of them when σ is a sizeable share of the arena.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel
from envzoo.core.rng import element_seed, uniform_at, uniforms
from envzoo.swarm.graphon import pair_weight, sort_types
from envzoo.swarm.params import SwarmParams

#: The pair features f(s_i, s_j) whose graphon-weighted means make the mean field, in order.
FEATURES = ("degree", "dx", "dy", "dvx", "dvy", "separation_x", "separation_y", "footprint",
            "squared_distance", "squared_velocity_difference")
DEGREE, DX, DY, DVX, DVY, SEP_X, SEP_Y, FOOTPRINT, SQ_DIST, SQ_VEL = range(len(FEATURES))
#: The unit directions of the discrete actions: stay, then E, NE, N, NW, W, SW, S, SE.
DIRECTIONS = np.array([[0.0, 0.0]] + [[np.cos(a), np.sin(a)] for a in np.arange(8) * np.pi / 4]).round(15)

#: Pairs farther apart than this many σ have footprints exp(−reach² / 2) < 2.1e-16: the sorted
#: summation leaves them out.
FOOTPRINT_REACH = 8.5

_AGENT_DRAW, _CENTRE_DRAW, _FIRST_STEP_DRAW = 0, 1, 2


class SwarmSim:
    """B populations of ``params.n_agents`` robots.

    State (public; B rows, N agents):
        types (B, N) in [0, 1]; position (B, N, 2); velocity (B, N, 2);
        weights (B, N, N) W(x_i, x_j) with a zero diagonal; cumulative (B, N, N) its running
        sums along j (the draws' inverse CDF) (both None under ``summation="sorted"``, where
        ranked (B,) holds each row's types sorted instead);
        degree (B, N) = Σ_j W_ij / N;
        mean_field (B, N, F) exact, after the last reset or step; collisions (B, N) the others
        within two collision radii; effort (B, N) |u|² of the last controls;
        keys, draws (B,) uint64 counter-based random stream; steps (B,) int.
    Episode totals (B,): collision_total (colliding pairs summed over steps), effort_total
    (Σ_i |u_i|² dt / N).
    """

    def __init__(self, params: SwarmParams, batch: int):
        self.params, self.B, n = params, batch, params.n_agents
        self.types = np.zeros((batch, n))
        self.position = np.zeros((batch, n, 2))
        self.velocity = np.zeros((batch, n, 2))
        self.sorted = params.summation == "sorted"
        self.weights = None if self.sorted else np.zeros((batch, n, n))
        self.cumulative = None if self.sorted else np.zeros((batch, n, n))
        self.ranked = [None] * batch  # each row's SortedTypes under summation="sorted"
        self.degree = np.zeros((batch, n))
        self.mean_field = np.zeros((batch, n, len(FEATURES)))
        self.collisions = np.zeros((batch, n), dtype=np.int64)
        self.effort = np.zeros((batch, n))
        self.keys = np.zeros(batch, dtype=np.uint64)
        self.draws = np.zeros(batch, dtype=np.uint64)
        self.steps = np.zeros(batch, dtype=np.int64)
        self.collision_total = np.zeros(batch)
        self.effort_total = np.zeros(batch)

    # ------------------------------------------------------------------ episodes
    def reset(self, rows: np.ndarray, keys: np.ndarray) -> None:
        """Start the episodes of ``rows`` from their keys: types, positions, velocities."""
        p, n = self.params, self.params.n_agents
        rows = np.asarray(rows)
        self.keys[rows] = keys
        u = uniforms(keys, np.full(len(rows), _AGENT_DRAW, dtype=np.uint64), (n, 5))
        centre = uniforms(keys, np.full(len(rows), _CENTRE_DRAW, dtype=np.uint64), (2,))
        types = u[..., 0] if p.types == "random" else np.broadcast_to((np.arange(n) + 0.5) / n, (len(rows), n))
        self.types[rows] = types
        a = p.arena
        if p.scenario == "coverage":  # a cluster of radius a / 5 somewhere in the middle half
            radius, angle = 0.2 * a * np.sqrt(u[..., 1]), 2 * np.pi * u[..., 2]
            start = (centre[:, None, :] - 0.5) * a + radius[..., None] * np.stack([np.cos(angle), np.sin(angle)], -1)
        elif p.scenario == "flocking":
            start = (u[..., 1:3] - 0.5) * a
        else:
            start = (u[..., 1:3] - 0.5) * 1.8 * a
        self.position[rows] = start
        if p.scenario == "flocking":  # headings spread over a half-plane, half the top speed
            heading = np.pi * (u[..., 3] - 0.5) + 2 * np.pi * centre[:, :1]
            self.velocity[rows] = 0.5 * p.max_speed * np.stack([np.cos(heading), np.sin(heading)], -1)
        else:
            self.velocity[rows] = 0.0
        if self.sorted:
            for row in rows:
                self.ranked[row] = sort_types(self.types[row])
                self.degree[row] = p.graphon.weighted_sums(self.ranked[row], np.ones((n, 1)))[:, 0] / n
        else:
            weights = self._weights(rows, n)
            self.weights[rows] = weights
            self.cumulative[rows] = np.cumsum(weights, axis=-1)
            self.degree[rows] = weights.sum(-1) / n
        self.draws[rows] = _FIRST_STEP_DRAW
        self.steps[rows] = 0
        self.collision_total[rows] = 0.0
        self.effort_total[rows] = 0.0
        self.effort[rows] = 0.0
        self._refresh(rows)

    def _weights(self, rows, agents: int) -> np.ndarray:
        """(rows, agents, N): W(x_i, x_j) of the first ``agents`` robots of ``rows``, zero for j = i."""
        types, n = self.types[rows], self.params.n_agents
        weights = np.broadcast_to(self.params.graphon(types[:, :agents, None], types[:, None, :]),
                                  (len(types), agents, n)).copy()
        weights[:, np.arange(agents), np.arange(agents)] = 0.0
        return weights

    def _refresh(self, rows=None) -> None:
        mean_field, collisions = self.mean_field, self.collisions
        if self.sorted:
            for row in range(self.B) if rows is None else rows:
                self._sorted_field(row)
            return
        if rows is None:
            _mean_field_rows(self.weights, self.position, self.velocity, self.params.sensing_radius,
                             2 * self.params.collision_radius, mean_field, collisions)
            return
        out, hits = mean_field[rows], collisions[rows]
        _mean_field_rows(self.weights[rows], self.position[rows], self.velocity[rows], self.params.sensing_radius,
                         2 * self.params.collision_radius, out, hits)
        mean_field[rows], collisions[rows] = out, hits

    def _sorted_field(self, row: int) -> None:
        """Row ``row``'s mean field and collisions by the sorted summation (module docstring)."""
        p, n = self.params, self.params.n_agents
        position = self.position[row] - self.position[row].mean(0)
        velocity = self.velocity[row] - self.velocity[row].mean(0)
        p2 = (position ** 2).sum(-1, keepdims=True)
        v2 = (velocity ** 2).sum(-1, keepdims=True)
        sums = p.graphon.weighted_sums(self.ranked[row], np.concatenate([np.ones((n, 1)), position, velocity, p2, v2],
                                                                         -1))
        degree, at, moving = sums[:, :1], sums[:, 1:3], sums[:, 3:5]
        out = self.mean_field[row]
        out[:, DEGREE] = degree[:, 0]
        out[:, [DX, DY]] = at - degree * position
        out[:, [DVX, DVY]] = moving - degree * velocity
        out[:, SQ_DIST] = sums[:, 5] - 2 * (position * at).sum(-1) + degree[:, 0] * p2[:, 0]
        out[:, SQ_VEL] = sums[:, 6] - 2 * (velocity * moving).sum(-1) + degree[:, 0] * v2[:, 0]
        out[:, [SEP_X, SEP_Y, FOOTPRINT]] = 0.0
        kind, scalar, bounds, probabilities = p.graphon.compiled()
        _near_pairs(self.types[row], self.position[row], kind, scalar, bounds, probabilities, p.sensing_radius,
                    FOOTPRINT_REACH * p.sensing_radius, 2 * p.collision_radius, p.arena, out, self.collisions[row])
        out /= n

    # ------------------------------------------------------------------ steps
    def step(self, controls: np.ndarray) -> None:
        """Advance every row by ``dt`` with ``controls`` (B, N, 2) in [-1, 1]: velocities (single
        integrator, times ``max_speed``) or accelerations (double, times ``max_accel``)."""
        p = self.params
        controls = np.ascontiguousarray(controls, dtype=np.float64)
        _move(self.position, self.velocity, controls, p.dynamics == "double", p.dt, p.max_speed, p.max_accel,
              p.arena, self.effort)
        self._refresh()
        self.steps += 1
        self.collision_total += self.collisions.sum(-1) / 2
        self.effort_total += self.effort.sum(-1) * p.dt / p.n_agents

    def subsample(self, kappa: int, agents: int, rows: np.ndarray | None = None) -> np.ndarray:
        """The κ-subsample estimates of the mean field of agents 0..``agents``-1 of ``rows``
        (all by default), (rows, agents, F), from each row's next draw of its random stream
        (which advances: a row's draws never depend on the others')."""
        rows = np.arange(self.B) if rows is None else np.asarray(rows)
        out = np.zeros((len(rows), agents, len(FEATURES)))
        cumulative = np.cumsum(self._weights(rows, agents), axis=-1) if self.sorted else self.cumulative[rows]
        _subsample_rows(self.keys[rows], self.draws[rows], cumulative, self.degree[rows],
                        self.position[rows], self.velocity[rows], self.params.sensing_radius, kappa, out)
        self.draws[rows] += np.uint64(1)
        return out


# ---------------------------------------------------------------------- kernels
@kernel(inline=True)
def _add_pair(position, velocity, b, i, j, sigma2, weight, out):
    """``out += weight * f(s_i, s_j)`` (the pair features); returns |Δp|²."""
    dx = position[b, j, 0] - position[b, i, 0]
    dy = position[b, j, 1] - position[b, i, 1]
    dvx = velocity[b, j, 0] - velocity[b, i, 0]
    dvy = velocity[b, j, 1] - velocity[b, i, 1]
    d2 = dx * dx + dy * dy
    g = np.exp(-d2 / (2.0 * sigma2))
    out[0] += weight
    out[1] += weight * dx
    out[2] += weight * dy
    out[3] += weight * dvx
    out[4] += weight * dvy
    out[5] -= weight * dx * g
    out[6] -= weight * dy * g
    out[7] += weight * g
    out[8] += weight * d2
    out[9] += weight * (dvx * dvx + dvy * dvy)
    return d2


@kernel
def _mean_field_rows(weights, position, velocity, sigma, contact, mean_field, collisions):
    """The exact mean field (B, N, F) and the collision counts (B, N) of every row and agent.
    Each pair is visited once (W is symmetric): f(s_j, s_i) is f(s_i, s_j) with the relative
    vectors' signs flipped."""
    n = position.shape[1]
    sigma2, contact2 = sigma * sigma, contact * contact
    for b in range(position.shape[0]):
        mean_field[b] = 0.0
        collisions[b] = 0
        for i in range(n):
            mine = mean_field[b, i]
            for j in range(i + 1, n):
                w = weights[b, i, j]
                dx = position[b, j, 0] - position[b, i, 0]
                dy = position[b, j, 1] - position[b, i, 1]
                d2 = dx * dx + dy * dy
                if d2 < contact2:
                    collisions[b, i] += 1
                    collisions[b, j] += 1
                if w == 0.0:
                    continue
                dvx = velocity[b, j, 0] - velocity[b, i, 0]
                dvy = velocity[b, j, 1] - velocity[b, i, 1]
                g = np.exp(-d2 / (2.0 * sigma2))
                wg, v2 = w * g, dvx * dvx + dvy * dvy
                theirs = mean_field[b, j]
                mine[0] += w
                theirs[0] += w
                mine[1] += w * dx
                theirs[1] -= w * dx
                mine[2] += w * dy
                theirs[2] -= w * dy
                mine[3] += w * dvx
                theirs[3] -= w * dvx
                mine[4] += w * dvy
                theirs[4] -= w * dvy
                mine[5] -= wg * dx
                theirs[5] += wg * dx
                mine[6] -= wg * dy
                theirs[6] += wg * dy
                mine[7] += wg
                theirs[7] += wg
                mine[8] += w * d2
                theirs[8] += w * d2
                mine[9] += w * v2
                theirs[9] += w * v2
            for k in range(mine.shape[0]):
                mine[k] /= n


@kernel
def _near_pairs(types, position, kind, scalar, bounds, probabilities, sigma, reach, contact, arena, field, collisions):
    """One row's footprint features Σ_j W_ij (−Δp g, g) over the pairs closer than ``reach``,
    added to ``field`` (N, F), and its collision counts (N,) over the pairs closer than
    ``contact``: each robot visits the 3 x 3 cells around its own on a grid of the arena whose
    cells are at least max(reach, contact) wide (at most about 4N cells)."""
    n = position.shape[0]
    width = max(reach, contact)
    cells = max(1, min(int(2.0 * arena / width), 1 + int(2.0 * np.sqrt(n))))
    size = 2.0 * arena / cells
    cell = np.empty(n, dtype=np.int64)
    starts = np.zeros(cells * cells + 1, dtype=np.int64)
    for i in range(n):
        cx = min(max(int((position[i, 0] + arena) / size), 0), cells - 1)
        cy = min(max(int((position[i, 1] + arena) / size), 0), cells - 1)
        cell[i] = cx * cells + cy
        starts[cell[i] + 1] += 1
    for c in range(cells * cells):
        starts[c + 1] += starts[c]
    order = np.empty(n, dtype=np.int64)
    filled = starts[:-1].copy()
    for i in range(n):
        order[filled[cell[i]]] = i
        filled[cell[i]] += 1
    x, y, kinds = position[order, 0], position[order, 1], types[order]  # in cell order, for locality
    sigma2, reach2, contact2 = sigma * sigma, reach * reach, contact * contact
    for a in range(n):
        i = order[a]
        cx, cy = cell[i] // cells, cell[i] % cells
        hits, sx, sy, footprint = 0, 0.0, 0.0, 0.0
        for nx in range(max(cx - 1, 0), min(cx + 2, cells)):
            for ny in range(max(cy - 1, 0), min(cy + 2, cells)):
                c = nx * cells + ny
                for k in range(starts[c], starts[c + 1]):
                    if k == a:
                        continue
                    dx, dy = x[k] - x[a], y[k] - y[a]
                    d2 = dx * dx + dy * dy
                    if d2 < contact2:
                        hits += 1
                    if d2 < reach2:
                        w = pair_weight(kind, scalar, bounds, probabilities, kinds[a], kinds[k])
                        wg = w * np.exp(-d2 / (2.0 * sigma2))
                        sx -= wg * dx
                        sy -= wg * dy
                        footprint += wg
        collisions[i] = hits
        field[i, 5] += sx
        field[i, 6] += sy
        field[i, 7] += footprint


@kernel
def _subsample_rows(keys, draws, cumulative, degree, position, velocity, sigma, kappa, out):
    """κ draws j ~ W_ij / Σ_k W_ik per agent i < out.shape[1] (uniform k of element i of the
    row's draw), by binary search in the row's cumulative weights; the estimate d_i / κ Σ f."""
    n = position.shape[1]
    sigma2 = sigma * sigma
    for b in range(out.shape[0]):
        for i in range(out.shape[1]):
            total = cumulative[b, i, n - 1]
            if total <= 0.0:
                continue  # no one to interact with: the mean field is zero
            seed = element_seed(keys[b], draws[b], i)
            row = out[b, i]
            for k in range(kappa):
                target = uniform_at(seed, k) * total
                lo, hi = 0, n - 1  # the first j with cumulative > target
                while lo < hi:
                    mid = (lo + hi) // 2
                    if cumulative[b, i, mid] > target:
                        hi = mid
                    else:
                        lo = mid + 1
                _add_pair(position, velocity, b, i, lo, sigma2, 1.0, row)
            scale = degree[b, i] / kappa
            for f in range(row.shape[0]):
                row[f] *= scale


@kernel
def _move(position, velocity, controls, double, dt, max_speed, max_accel, arena, effort):
    """One Euler step (semi-implicit for the double integrator) with walls at ±arena: a robot
    reaching a wall stops there, its velocity across it zeroed."""
    for b in range(position.shape[0]):
        for i in range(position.shape[1]):
            ux, uy = controls[b, i, 0], controls[b, i, 1]
            effort[b, i] = ux * ux + uy * uy
            if double:
                vx = velocity[b, i, 0] + dt * max_accel * ux
                vy = velocity[b, i, 1] + dt * max_accel * uy
                speed = np.sqrt(vx * vx + vy * vy)
                if speed > max_speed:
                    vx *= max_speed / speed
                    vy *= max_speed / speed
            else:
                vx, vy = max_speed * ux, max_speed * uy
            x = position[b, i, 0] + dt * vx
            y = position[b, i, 1] + dt * vy
            if x > arena or x < -arena:
                x, vx = min(max(x, -arena), arena), 0.0
            if y > arena or y < -arena:
                y, vy = min(max(y, -arena), arena), 0.0
            position[b, i, 0], position[b, i, 1] = x, y
            velocity[b, i, 0], velocity[b, i, 1] = vx, vy


@kernel
def coverage(position, arena, radius, cells):
    """Per row, the fraction of a ``cells`` x ``cells`` grid of the arena's cell centres within
    ``radius`` of some robot."""
    out = np.zeros(position.shape[0])
    r2 = radius * radius
    for b in range(position.shape[0]):
        covered = 0
        for gx in range(cells):
            cx = -arena + (gx + 0.5) * 2.0 * arena / cells
            for gy in range(cells):
                cy = -arena + (gy + 0.5) * 2.0 * arena / cells
                for i in range(position.shape[1]):
                    dx, dy = position[b, i, 0] - cx, position[b, i, 1] - cy
                    if dx * dx + dy * dy <= r2:
                        covered += 1
                        break
        out[b] = covered / (cells * cells)
    return out
