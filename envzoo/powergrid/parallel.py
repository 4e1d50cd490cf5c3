"""``envzoo/PowerGridAgents-v0`` and its MOMAland face: one agent per device or composite of
devices on a distribution feeder, the power flow's voltages in their observations and rewards."""

from __future__ import annotations

from envzoo.core.parallel import TaskMOParallelEnv, TaskParallelEnv
from envzoo.powergrid.task import PowerGridAgentsTask


class PowerGridAgentsEnv(TaskParallelEnv):
    """
    ## Description

    ``PowerGrid-v0``'s feeder, devices and power flow with one agent per device or composite of
    devices on one bus, as in PowerGridworld: a building with its PV and battery is one agent, an
    EV charging station another. The agents are heterogeneous: each has the actions of its own
    devices. They act at once; the power flow of their joint draw sets every bus's voltage, which
    each agent sees at its bus and pays for as its reward's grid term.

    ## Agents

    One per entry of ``agents``; by default ``office_18``, ``office_25``, ``campus_33``,
    ``ev_hub_30``, ``solar_storage_14`` (see ``PowerGrid-v0``).

    ## Action Space

    Per agent ``Box(low, high, (k,), float32)``: its devices' numbers in ``PowerGrid-v0``'s
    order (air conditioner 0..1, PV reactive power -1..1, battery -1..1, each EV port 0..1).

    ## Observation Space

    Per agent ``Box(-inf, inf, (8 + devices,), float32)``: the clock, tariff, outdoor temperature
    and irradiance of the step ahead, the voltage at its bus, the feeder's lowest and highest
    voltage, then its own devices' features (as ``PowerGrid-v0``).

    ## Rewards

    Each agent's ``−weights · (energy_cost, comfort, voltage, battery_wear, ev_unserved)`` of its
    own devices, whose grid term ``grid_reward`` chooses: ``"shared"`` (default) the whole
    feeder's voltage violation (p.u.·h), the same for every agent; ``"local"`` the violation at
    its own bus; ``"none"`` nothing.

    ## Costs

    ``infos[agent]["cost"]``: ``{"voltage_violation": its grid term, "comfort": its buildings'
    degree-hours}`` of the step.

    ## Starting State

    As ``PowerGrid-v0``.

    ## Episode End

    All agents are truncated after ``steps`` (96) steps; a power flow that does not converge
    terminates them all (``infos[agent]["powerflow_converged"]`` False).

    ## Metrics

    ``infos[agent]["metrics"]`` at the episode's end: the feeder's KPIs of ``PowerGrid-v0``, the
    same for every agent. Every step's ``infos[agent]`` has the grid's ``powerflow_converged``,
    ``losses_kw``, ``substation_kw``, ``min_voltage``, ``max_voltage`` and the agent's
    ``net_kw``.

    ## Arguments

    As ``PowerGrid-v0``, and ``grid_reward``.

    ## References

    Biagioni et al., PowerGridworld, ACM e-Energy 2022, arXiv:2111.05969.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "powergrid_agents_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = PowerGridAgentsTask


class PowerGridAgentsMOEnv(TaskMOParallelEnv):
    """
    ## Description

    ``PowerGridAgents-v0`` with a vector reward per agent (MOMAland's API): the same feeder,
    agents, observations, actions, costs and metrics.

    ## Reward Space

    Per agent ``Box([-inf] * 5, [inf, 0, 0, 0, 0], (5,), float32)``: minus its energy bill, its
    buildings' degree-hours outside the band, its grid term (after ``grid_reward``), its
    batteries' wear and its cars' unserved kWh. The scalar ``PowerGridAgents-v0`` reward is
    ``weights · vector``.

    ## Arguments

    As ``PowerGridAgents-v0``.

    ## Version History

    - v0: initial version.
    """

    metadata = {"name": "powergrid_agents_mo_v0", "render_modes": ["ansi", "rgb_array"], "is_parallelizable": True,
                "render_fps": 4}
    task_class = PowerGridAgentsTask
