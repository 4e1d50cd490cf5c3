"""The decision problems over Crafter's world: :class:`CrafterTask` is one player per world, one
world per row (``Crafter-v1`` and its native vector env); :class:`MultiCrafterTask` is one world
whose players are the agents (``MultiCrafter-v1``). Both read the same simulator
(:class:`~envzoo.crafter.sim.CrafterSim`): observations (the local view, the inventory, the
status, and for MultiCrafter the messages), Crafter's reward, the episode's end and the metrics."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.compiled import kernel
from envzoo.core.contract import AgentsTask, Task, Transition
from envzoo.core.rng import keys_from
from envzoo.crafter import picture, rules
from envzoo.crafter.params import CrafterParams, make_multi_params, make_params
from envzoo.crafter.rules import ARROW, COW, PLANT, PLAYER, SKELETON, ZOMBIE
from envzoo.crafter.sim import RIPE_AFTER, CrafterSim, daylight

#: The view's codes (:data:`~envzoo.crafter.rules.VIEW_CODES`) of objects, by kind.
_OBJECT_CODE = np.zeros(len(rules.OBJECTS), np.int64)
for _kind, _name in ((PLAYER, "player"), (COW, "cow"), (ZOMBIE, "zombie"), (SKELETON, "skeleton"), (ARROW, "arrow"),
                     (PLANT, "sapling")):
    _OBJECT_CODE[_kind] = rules.VIEW_CODES.index(_name)
_RIPE, _OTHER_PLAYER = rules.VIEW_CODES.index("ripe_plant"), rules.VIEW_CODES.index("other_player")
#: The status entries of an observation; MultiCrafter adds the player's place and whether it lives.
STATUS = ("facing_x", "facing_y", "sleeping", "daylight")
MULTI_STATUS = (*STATUS, "x", "y", "alive")
METRICS = ("achievements", "first_diamond_step", *rules.ACHIEVEMENTS)
MULTI_METRICS = (*METRICS, "own_achievements", "items_given", "alive_agents")


def score(success_rates_percent) -> float:
    """Crafter's score: the geometric mean of (1 + success rate) over the 22 achievements, minus
    one, with each rate in percent (``exp(mean(ln(1 + s))) - 1``, Hafner 2021, Eq. 1)."""
    rates = np.asarray(success_rates_percent, dtype=np.float64)
    if rates.shape != (len(rules.ACHIEVEMENTS),) or np.any((rates < 0) | (rates > 100)):
        raise ValueError(f"give one success rate in percent (0 to 100) per achievement "
                         f"({len(rules.ACHIEVEMENTS)}), got {rates!r}")
    return float(np.exp(np.mean(np.log1p(rates))) - 1.0)


def success_rates(episode_metrics: list[dict]) -> np.ndarray:
    """The success rate in percent of each achievement over episodes' ``info["metrics"]``."""
    if not episode_metrics:
        raise ValueError("success_rates needs the metrics of at least one episode")
    return np.array([100.0 * np.mean([m[name] for m in episode_metrics]) for name in rules.ACHIEVEMENTS])


def _observation_space(params: CrafterParams, status: tuple) -> spaces.Space:
    columns, rows = params.view
    if params.observation == "pixels":
        return spaces.Box(0, 255, (picture.PIXELS, picture.PIXELS, 3), np.uint8)
    entries = {"view": spaces.Box(0, len(rules.VIEW_CODES) - 1, (rows, columns), np.uint8),
               "inventory": spaces.Box(0, 9, (len(rules.ITEMS),), np.uint8),
               "status": spaces.Box(-1.0, 1.0, (len(status),), np.float32)}
    if params.message_tokens:
        entries["messages"] = spaces.Box(0, params.vocabulary - 1, (params.n_agents, params.message_tokens), np.int64)
    return spaces.Dict(entries)


class _World:
    """What both tasks share: the simulator, the observation of every (row, player) and the
    picture."""

    def _set_up(self, params: CrafterParams, rows: int, status: tuple) -> None:
        self.sim = CrafterSim(params, rows, params.n_agents)
        self.status_names = status
        self.observation_space = _observation_space(params, status)

    def _observe(self) -> dict:
        """Every player's observation, arrays (B, A, ...)."""
        sim, p = self.sim, self.params
        b, a = sim.batch, sim.n_agents
        columns, rows = p.view
        view = np.zeros((b, a, rows, columns), np.uint8)
        status = np.zeros((b, a, len(MULTI_STATUS)), np.float32)
        _observe(sim.material, sim.occupant, sim.kind, sim.timer, sim.x, sim.y, sim.face_x, sim.face_y, sim.sleeping,
                 sim.alive, daylight(sim.step_count), _OBJECT_CODE, view, status)
        inventory = sim.inventory.astype(np.uint8)
        if p.observation == "pixels":
            return picture.pixels(view, inventory, status[..., 3], status[..., 2] > 0)
        out = {"view": view, "inventory": inventory, "status": status[..., :len(self.status_names)]}
        if p.message_tokens:
            out["messages"] = np.broadcast_to(sim.messages[:, None], (b, a, *sim.messages.shape[1:])).copy()
        return out

    def _metrics(self, team: np.ndarray) -> dict[str, np.ndarray]:
        """The metrics of :data:`METRICS` from achievement counts ``team`` (B, 22)."""
        unlocked = (team > 0).astype(np.float64)
        out = {"achievements": unlocked.sum(1), "first_diamond_step": self.sim.first_diamond.astype(np.float64)}
        out.update({name: unlocked[:, i] for i, name in enumerate(rules.ACHIEVEMENTS)})
        return out

    def _snapshot(self, row: int) -> dict:
        sim = self.sim
        return {"material": sim.material[row].copy(), "objects": picture.objects_of(sim, row),
                "inventory": sim.inventory[row].copy(), "alive": sim.alive[row].copy(),
                "step": int(sim.step_count[row]), "daylight": float(daylight(sim.step_count[row])),
                "achievements": (sim.achievements[row] > 0).any(0), "messages": sim.messages[row].copy()}

    def _render_text(self, row: int) -> str:
        sim = self.sim
        lines = [f"step {sim.step_count[row]} daylight {float(daylight(sim.step_count[row])):.2f}"]
        for a in range(sim.n_agents):
            inventory = ", ".join(f"{name} {count}" for name, count in zip(rules.ITEMS, sim.inventory[row, a])
                                  if count)
            lines.append(f"player {a} at ({sim.x[row, a]}, {sim.y[row, a]}){'' if sim.alive[row, a] else ' dead'}: "
                         f"{inventory}")
        return "\n".join(lines) + "\n"

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params)


class CrafterTask(_World, Task):
    """B worlds of one player each (``Crafter-v1`` and its native vector env)."""

    make_params = staticmethod(make_params)
    metrics_at_episode_end = True

    def __init__(self, params: CrafterParams, batch: int):
        super().__init__(params, batch)
        self._set_up(params, batch, STATUS)
        self.action_space = spaces.Discrete(len(rules.ACTIONS))
        self.action_hint = f"Actions are Crafter's 17, by index: {', '.join(rules.ACTIONS)}."
        self._none = np.zeros((batch, 1), np.int64)
        self._silent = np.zeros((batch, 1, 0), np.int64)

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        sim = self.sim
        sim.step(actions[:, None], self._none, self._silent)
        return Transition(reward=sim.reward[:, 0].copy(), terminated=~sim.alive[:, 0],
                          truncated=sim.step_count >= self.params.length, cost=None)

    def observe(self):
        observation = self._observe()
        if isinstance(observation, dict):
            return {key: value[:, 0] for key, value in observation.items()}
        return observation[:, 0]

    def metrics(self) -> dict[str, np.ndarray]:
        return self._metrics(self.sim.achievements[:, 0])

    def render_text(self, row: int = 0) -> str:
        return self._render_text(row)

    def snapshot(self, row: int = 0) -> dict:
        return self._snapshot(row)


class MultiCrafterTask(_World, AgentsTask):
    """The players of one shared world (``MultiCrafter-v1``), one agent each."""

    make_params = staticmethod(make_multi_params)

    def __init__(self, params: CrafterParams):
        self.agents = tuple(f"player_{i}" for i in range(params.n_agents))
        super().__init__(params, params.n_agents)
        self._set_up(params, 1, MULTI_STATUS)
        parts = [len(rules.ACTIONS), len(rules.GIFTS) + 1 if params.gifts else 1]
        parts += [params.vocabulary] * params.message_tokens
        self.action_space = spaces.MultiDiscrete(parts)
        self.action_hint = ("An agent's action is [Crafter action (0-16), gift (0: none, g: one unit of "
                            f"{'/'.join(rules.GIFTS)}[g-1] to the player faced), message tokens "
                            f"(0 to {params.vocabulary - 1}) x {params.message_tokens}].")

    def start(self, generator, options) -> dict:
        self.sim.reset(np.array([0]), keys_from([generator]))
        return {}

    def step(self, actions) -> Transition:
        sim = self.sim
        sim.step(actions[None, :, 0], actions[None, :, 1], actions[None, :, 2:])
        everyone_dead = not sim.alive[0].any()
        return Transition(reward=sim.reward[0].copy(), terminated=np.full(self.batch, everyone_dead),
                          truncated=np.full(self.batch, sim.step_count[0] >= self.params.length), cost=None,
                          info={"unlocked": sim.unlocked[0].copy()})

    def observe(self):
        observation = self._observe()
        if isinstance(observation, dict):
            return [{key: value[0, a] for key, value in observation.items()} for a in range(self.batch)]
        return observation[0]

    def metrics(self) -> dict[str, np.ndarray]:
        """The team's metrics (achievements any player unlocked), the same for every agent, and
        each agent's own achievement count."""
        sim = self.sim
        together = self._metrics(sim.achievements[0].sum(0)[None])
        team = {key: np.repeat(value, self.batch) for key, value in together.items()}
        team["own_achievements"] = (sim.achievements[0] > 0).sum(1).astype(np.float64)
        team["items_given"] = np.repeat(float(sim.given[0].sum()), self.batch)
        team["alive_agents"] = np.repeat(float(sim.alive[0].sum()), self.batch)
        return team

    def render_text(self, row=None) -> str:
        return self._render_text(0)

    def snapshot(self, row=None) -> dict:
        return self._snapshot(0)


@kernel
def _observe(material, occupant, kind, timer, x, y, face_x, face_y, sleeping, alive, light, object_code, view, status):
    """The view codes and the status of every (row, player) into ``view`` and ``status``."""
    n_rows, n_agents, rows, columns = view.shape
    width, height = material.shape[1], material.shape[2]
    for b in range(n_rows):
        for a in range(n_agents):
            cx, cy = x[b, a], y[b, a]
            for r in range(rows):
                for c in range(columns):
                    px, py = cx + c - columns // 2, cy + r - rows // 2
                    if px < 0 or py < 0 or px >= width or py >= height:
                        continue  # 0: outside the world
                    slot = occupant[b, px, py] - 1
                    if slot < 0:
                        view[b, a, r, c] = material[b, px, py] + 1
                    elif kind[b, slot] == PLAYER and slot != a:
                        view[b, a, r, c] = _OTHER_PLAYER
                    elif kind[b, slot] == PLANT and timer[b, slot] > RIPE_AFTER:
                        view[b, a, r, c] = _RIPE
                    else:
                        view[b, a, r, c] = object_code[kind[b, slot]]
            status[b, a, 0], status[b, a, 1] = face_x[b, a], face_y[b, a]
            status[b, a, 2] = 1.0 if sleeping[b, a] else 0.0
            status[b, a, 3] = light[b]
            status[b, a, 4], status[b, a, 5] = cx / (width - 1), cy / (height - 1)
            status[b, a, 6] = 1.0 if alive[b, a] else 0.0

