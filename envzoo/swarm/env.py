"""The representative-agent face of the swarm: one robot learns against a population."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.swarm.task import RepresentativeTask


class SwarmEnv(TaskEnv):
    """
    ## Description

    A population of ``n_agents`` robots in the square [-arena, arena]^2, each with a type x in
    [0, 1]. How strongly two robots interact is a graphon W(x, y) of their types: uniform
    attachment 1 − max(x, y) (low types interact with everyone), exponential
    exp(−|x − y| / ℓ), a stochastic block model, a threshold graph, or a user's function. What a
    robot perceives of the others is its graphon mean field m_i = (1/N) Σ_j W(x_i, x_j) f(s_i, s_j)
    of pair features (relative positions and velocities, footprints), exactly or estimated from
    κ robots drawn by interaction strength (GMFS, ``observation="subsample"``).

    This face is the representative agent of mean-field RL: robot 0 (type drawn like every
    other's) is the learner, the others play the population's controller, the scenario's
    reference controller (``population="reference"``) or stand still (``"still"``). Three
    scenarios of robotic coordination:

    - ``flocking`` (double integrator): move as a flock, velocities aligned with and positions
      close to one's graphon neighbours (Reynolds' boids is the reference);
    - ``rendezvous`` (single integrator): meet one's graphon neighbours (linear consensus);
    - ``coverage`` (single integrator): spread out from a cluster, footprints not overlapping
      those of one's graphon neighbours (potential-field deployment).

    ## Action Space

    ``Box(-1, 1, (2,), float32)``: the control, times ``max_speed`` (single integrator: a
    velocity) or ``max_accel`` (double integrator: an acceleration; the speed is capped at
    ``max_speed``). With ``actions="discrete"``, ``Discrete(9)``: stay, or full control towards
    E, NE, N, NW, W, SW, S, SE.

    ## Observation Space

    ``Box(-inf, inf, (15,), float32)``: the robot's own type, position (x, y), velocity (vx, vy),
    then its mean field: degree d = (1/N) Σ_j W_ij, the weighted relative position (dx, dy) and
    velocity (dvx, dvy), the separation vector −Σ W Δp g / N, the footprint overlap Σ W g / N
    (g = exp(−|Δp|² / 2σ²), σ = ``sensing_radius``), and Σ W |Δp|² / N, Σ W |Δv|² / N. With
    ``observation="subsample"`` every entry but the degree is estimated from κ robots j drawn
    with probability W_ij / Σ_k W_ik as d / κ Σ f (unbiased; fresh draws each step).

    ## Rewards

    ``reward_weights · (task, −energy, −collisions)`` (default weights (1, 0.05, 0.1)), from the
    exact mean field whatever is observed:

    - task: ``rendezvous`` −Σ_j W_ij |Δp|² / (N arena²); ``flocking`` −Σ_j W_ij (|Δv|² /
      max_speed² + |Δp|² / arena²) / N; ``coverage`` −Σ_j W_ij g_ij / N;
    - energy: |u|², the squared control;
    - collisions: the robots within two ``collision_radius`` of the learner.

    ## Costs

    ``info["cost"]``: ``{"collisions": count, "energy": |u|²}`` of the learner's step.

    ## Starting State

    Types i.i.d. uniform (``types="random"``) or (i + 1/2) / N (``"grid"``). ``rendezvous``:
    positions uniform over 90 % of the arena, at rest; ``flocking``: uniform over the middle
    half, at half the top speed, headings within a half-plane; ``coverage``: a cluster of
    radius arena / 5 somewhere in the middle half, at rest.

    ## Episode End

    No termination; truncated after the registry's 200 steps (20 s).

    ## Metrics

    At the episode's end (``env.unwrapped.episode_metrics()`` at any time), the population's:
    ``disagreement`` (mean Σ_j W_ij |Δp|² / N), ``velocity_disagreement`` (the same for
    velocities), ``coverage`` (fraction of a 20 x 20 grid of the arena within σ of a robot),
    ``collisions`` (colliding pairs summed over steps), ``energy`` (Σ |u|² dt per robot) and
    ``mean_speed``.

    ## Arguments

    - ``scenario``: ``"flocking"`` (default), ``"rendezvous"``, ``"coverage"``.
    - ``n_agents``: N (default 16).
    - ``graphon``: ``"uniform_attachment"`` (default), ``"exponential"``, ``"stochastic_block"``,
      ``"threshold"`` or a vectorised callable W(x, y) (symmetric, in [0, 1]); its options in
      ``graphon_options`` (``length``; ``bounds`` and ``probabilities``; ``theta``).
    - ``observation``: ``"exact"`` (default) or ``"subsample"``; ``kappa``: κ (default 4, at
      most N − 1).
    - ``dynamics``: ``"single"`` or ``"double"`` (default: the scenario's); ``actions``:
      ``"continuous"`` (default) or ``"discrete"``.
    - ``population``: ``"reference"`` (default) or ``"still"``; ``types``: ``"random"`` or ``"grid"``.
    - ``summation``: ``"pairs"`` (default: every pair, O(N²) a step) or ``"sorted"`` (the same
      mean field in O(N log N) plus the pairs within 8.5 σ, for a named graphon: for large N
      with a small ``sensing_radius``; the JAX core sums every pair either way).
    - ``dt`` (0.1 s), ``max_speed`` (1), ``max_accel`` (2), ``arena`` (1), ``sensing_radius``
      (0.25), ``collision_radius`` (0.03), ``reward_weights`` ((1, 0.05, 0.1)).

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    env = gym.make("envzoo/Swarm-v0", scenario="coverage", graphon="exponential",
                   observation="subsample", kappa=8, n_agents=64)
    observation, info = env.reset(seed=0)
    ```

    A JAX core (``envzoo.jax.make("envzoo/Swarm-v0")``, every argument but a user's graphon)
    follows the CPU core's trajectories. The model, its checks and figures: the docs' swarm page.

    ## References

    Caines & Huang, Graphon mean field games and their equations, SIAM J. Control Optim. 2021;
    Cui & Koeppl, Learning graphon mean field games and approximate Nash equilibria, ICLR 2022;
    the graphon mean-field subsampling (GMFS) idea of drawing κ agents by interaction strength;
    Reynolds 1987 (boids); Olfati-Saber & Murray 2004 (consensus); Howard, Matarić & Sukhatme
    2002 (potential-field deployment).

    ## Version History

    - v0: initial version.
    """

    task_class = RepresentativeTask
