"""MultiCrafter: several players in one Crafter world, with a message channel and gifts."""

from __future__ import annotations

from envzoo.core.parallel import TaskParallelEnv
from envzoo.crafter.task import MultiCrafterTask


class MultiCrafterEnv(TaskParallelEnv):
    """
    ## Description

    ``n_agents`` players (1 to 8) share one Crafter world (``Crafter-v1``'s rules, map and
    creatures), the setting of the Multi-Agent Crafter of DAMCS (Yang et al. 2025), where
    language-model agents with a shared goal, the diamond, reach it in fewer steps the more they
    are (63 % fewer with two agents, 74 % with six). Unlike that benchmark, a dead player does not
    respawn and the episode does not stop at the first diamond (``first_diamond_step`` records
    it). What one player
    changes, every player meets: a table or furnace one places serves all; a tree cut, a stone
    mined or a cow eaten is gone for all; zombies and skeletons chase the nearest player. Players
    see each other in their views and talk through a channel: each action carries
    ``message_tokens`` tokens that every player reads in its next observation. A player may hand
    one unit of an item to the player it faces in the same step, so a team can split the tech
    tree (one mines, another crafts).

    Players act in agent order within a step (player_0 first), then the creatures. A player
    whose health reaches 0 leaves the map and the game (its items stay with it); the episode
    ends when every player is dead or after ``length`` steps.

    Nothing is created or destroyed outside the rules: every item a player holds was collected
    (wood from trees, stone, coal, iron and diamonds from their cells, saplings from grass) or
    made, minus what it used, placed, gave and lost to the cap of 9 (counted); the conservation
    test (``tests/crafter/test_conservation.py``) checks the ledger over random and scripted
    episodes.

    ## Agents

    ``player_0 … player_{n_agents-1}``.

    ## Action Space

    Per agent ``MultiDiscrete([17, 13, vocabulary, …])``: Crafter's action (as ``Crafter-v1``),
    the gift (0: none; g: one unit of the g-th of sapling, wood, stone, coal, iron, diamond,
    wood/stone/iron pickaxe, wood/stone/iron sword, handed to the player faced if it has fewer
    than 9; ``[17, 1, ...]`` with ``gifts=False``), then ``message_tokens`` tokens in
    0 .. vocabulary - 1 (0 is silence).

    ## Observation Space

    Per agent a ``Dict``: ``view``, ``inventory`` as ``Crafter-v1`` (other players are code
    20); ``status``: ``Box(-1, 1, (7,), float32)``: the direction faced (x, y), asleep, daylight,
    its place on the map (x, y, each scaled to 0..1) and whether it lives; ``messages``:
    ``Box(0, vocabulary - 1, (n_agents, message_tokens), int64)``, every player's message of the
    last step (its own included; zeros at the start). Without a channel
    (``message_tokens=0``) there is no ``messages``.

    ## Rewards

    Each player gets Crafter's reward of its own: +1 for a step that unlocks an achievement it
    had not unlocked, plus its health change / 10 (0 once dead).

    ## Costs

    None.

    ## Starting State

    The players stand next to each other at the centre of the map (within one cell of it),
    facing down, with Crafter's starting inventory.

    ## Episode End

    Terminated when every player is dead; truncated after ``length`` steps (10000, also the
    registry's horizon).

    ## Metrics

    ``infos[agent]["metrics"]``, at every step: the team's ``achievements`` (how many of the
    22 any player unlocked), ``first_diamond_step`` (the step of the team's first diamond, -1
    if none), one entry per achievement (1 if any player unlocked it) as ``Crafter-v1``; then
    ``own_achievements`` (the agent's own count), ``items_given`` (the team's gifts) and
    ``alive_agents``. ``infos[agent]["unlocked"]``: achievements the agent unlocked in the step.

    ## Arguments

    - ``n_agents``: players, 1 to 8 (default 2).
    - ``message_tokens``: tokens per message (3; 0: no channel), ``vocabulary`` (64).
    - ``gifts``: whether players may hand items to each other (True).
    - ``area``, ``view``, ``length``, ``max_objects``: as ``Crafter-v1``.
    - ``max_cycles``: the horizon (the registry's 10000).
    - ``render_mode``: ``"ansi"`` or ``"rgb_array"`` (the map with every player).

    ## References

    H. Yang, J. Chen, M. Siew, T. Lorido-Botran, C. Joe-Wong. *LLM-Powered Decentralized
    Generative Agents with Adaptive Hierarchical Knowledge Graph for Cooperative Planning*
    (DAMCS). arXiv:2502.05453, 2025. D. Hafner. *Benchmarking the Spectrum of Agent Capabilities.* ICLR 2022.

    ## Version History

    - v1: the world's fields are OpenSimplex noise, Crafter's own (v0's gradient noise, scaled to
      its spread, had thinner tails and smaller features: 9 % less water, 13 % more sand, 18 %
      less lava and 10 % less iron than crafter 1.8.3's worlds); every material's share and
      every creature's count now match crafter's within 2 % (``tests/crafter/test_world.py``),
      and the same seed gives a new map.
    - v0: initial version.
    """

    metadata = {"name": "multicrafter_v1", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 8}
    task_class = MultiCrafterTask
