"""``envzoo/DispatchAgencies-v0``: several dispatch centres sharing units across borders."""

from __future__ import annotations

from envzoo.core.parallel import TaskParallelEnv
from envzoo.dispatch.task import AgenciesTask


class DispatchAgenciesEnv(TaskParallelEnv):
    """
    ## Description

    ``Dispatch-v0``'s region split between dispatch centres (agencies): each owns some stations
    and their units and takes the calls nearest (by road) to its stations. At every call the
    agency whose call it is decides; with ``borrowing`` it may send another agency's free unit
    across the border (mutual aid), which helps its own call and leaves the other's territory
    thinner: the agencies share the fleet.

    ## Agents

    ``agency_0 … agency_{A-1}``, one per agency index of ``station_agency``.

    ## Action Space

    Per agent ``Discrete(U + 1)`` over every unit of the region, and U to hold, as
    ``Dispatch-v0``. Only the deciding agency's action counts (its ``info["action_mask"]`` is the
    dispatch mask; the others' masks allow only holding and their actions are ignored). A unit of
    another agency without ``borrowing`` is refused: counted in ``info["cost"]``, the call held
    (or lost where the queue is full).

    ## Observation Space

    Per agent ``Dispatch-v0``'s observation, then whether the call is its own (0/1) and which
    units are its own (U flags).

    ## Rewards

    The deciding agency gets ``Dispatch-v0``'s reward of the step; the others 0.

    ## Costs

    ``info["cost"]``: the deciding agency's refused actions.

    ## Starting State

    As ``Dispatch-v0``.

    ## Episode End

    As ``Dispatch-v0``; all agents end together.

    ## Metrics

    ``infos[agent]["metrics"]`` at the episode's end (the same for every agent): ``Dispatch-v0``'s
    (the whole region's) and ``borrowed`` (dispatches across a border). ``env.episode_metrics()``
    gives them, one dict per agent, at any time.

    ## Arguments

    ``station_agency`` ((0, 1, 1): the owner of every station), ``borrowing`` (True) and every
    argument of ``Dispatch-v0``, including a user's network and incident log:

    ```python
    import envzoo
    env = envzoo.make("envzoo/DispatchAgencies-v0", network="my_city.net.xml", incident_log="calls.csv")
    observations, infos = env.reset(seed=0)
    actions = {agent: env.action_space(agent).sample() for agent in env.agents}
    observations, rewards, terminations, truncations, infos = env.step(actions)
    ```

    ## Version History

    - v0: initial version.
    """

    task_class = AgenciesTask
