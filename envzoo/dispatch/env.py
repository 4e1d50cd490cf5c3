"""``envzoo/Dispatch-v0`` (emergency dispatch on a real road network, after OPTIC-ER) and
``envzoo/DispatchRelocate-v0`` (the same with relocation of free units between stations)."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.dispatch.task import DispatchTask, RelocateTask


class DispatchEnv(TaskEnv):
    """
    ## Description

    One dispatch centre of an emergency medical service on a real road network (by default the
    Berlin DRT area of the SUMO wheel; any SUMO ``.net.xml`` or GraphML file). Calls arrive as a
    Poisson process by zone with a diurnal profile (or from a user's incident log), each with a
    severity class; at every call that needs a unit the agent sends a free ambulance or holds the
    call in the queue. A unit turns out, drives by the Travel Time Atlas (all-pairs shortest
    travel times, cached on disk; × an hourly congestion factor), stays on scene, takes the
    patient to the nearest hospital of sufficient level, hands over and drives back to its
    station. After OPTIC-ER (context-rich state, precision reward, optimality rate); an
    approximation: units become free only back at their station and congestion scales all roads
    alike (so the free-flow atlas stays the fastest route). ``envzoo.dispatch.params.OPTIC_ER_LIKE``
    holds a setting shaped like OPTIC-ER's (few stations, long travel times, uneven coverage),
    every figure an assumption; the shipped networks are a few kilometres across, so "long" means
    roads at 40 % of their limits there (mean responses of about 4 minutes, 7 in the worst zone,
    against under 3 at the defaults). ``python -m envzoo.dispatch.plots --out DIR [--policy NearestAvailable]``
    draws the deficiency map (junctions coloured by their zone's mean response) and the equity dashboard.

    ## Action Space

    ``Discrete(U + 1)``: action u < U sends unit u; action U holds the call in the queue.
    ``info["action_mask"]`` (U + 1 bools) marks the free units and whether holding is allowed
    (room in the queue). A forbidden action is refused, never redirected: the call is held where
    the queue has room and otherwise lost to mutual aid, and ``info["cost"]`` counts it.

    ## Observation Space

    ``Box((4U + K + 4,), float32)``: per unit (free 0/1, atlas travel time to the call in minutes,
    margin over the fastest free unit in minutes, including a busy unit's remaining busy time,
    busy minutes left), then the call's severity one-hot (K classes), then the sine and cosine of
    the hour, the queue length and the minutes the call has waited.

    ## Rewards

    Minus the minutes of response charged this step: turnout + drive of the dispatched unit, the
    waiting of the queued calls as it accrues, ``lost_call_penalty_min`` per call lost; minus
    ``precision_weight`` × the dispatch's inefficiency (minutes slower than the fastest free unit:
    OPTIC-ER's precision reward). Summed over an episode, the response part is the total response
    time of the calls. ``DispatchMO-v0`` returns (−response minutes, −the step's change of the
    worst zone's mean response, −the dispatched unit's driving minutes).

    ## Costs

    ``info["cost"]``: 1 when the action was one the mask forbids (it was refused), else 0.

    ## Starting State

    Every unit free at its station at ``start_hour``; the first call is drawn from the seed.

    ## Episode End

    With generated calls the task is continuing and the registry's ``max_episode_steps``
    (decisions) truncates it; with an incident log it terminates once the log's last call is
    decided and the queue is empty.

    ## Metrics

    ``info["metrics"]`` at an episode's end: ``mean_response_min`` and ``p90_response_min`` (call
    to arrival, of the calls served), ``within_8_min``, ``within_15_min`` (shares),
    ``optimality_rate`` (dispatches of the fastest free unit by the atlas), ``mean_inefficiency_s``,
    ``worst_zone_response_min``, ``zone_gini`` (of the zones' mean responses), ``utilisation`` (the
    units' busy share), ``lost_fraction``, ``calls``.

    ## Arguments

    ``network`` (``"berlin-drt"``; or ``"ingolstadt"``, ``"braunschweig"``, ``"braunschweig-demo"``,
    ``"a10kw"``, or the path of a SUMO ``.net.xml`` / ``.net.xml.gz`` or GraphML file),
    ``speed_factor`` (1), ``atlas_cache`` (None: the cache folder, see
    ``envzoo.dispatch.atlas.cache_dir``), ``stations`` and ``hospitals`` (bounding-box fractions),
    ``units_per_station`` ((1, 1, 1)), ``hospital_levels`` ((2, 1)), ``severity_hospital_level``
    ((2, 1, 1)), ``zone_grid`` ((3, 3)), ``zone_weights`` (None: even over junctions),
    ``calls_per_hour`` (2), ``diurnal_amplitude`` (0.3), ``diurnal_peak_hour`` (17),
    ``severity_probs`` ((0.2, 0.5, 0.3)), ``response_targets_min`` ((8, 15, 30)), ``on_scene_min``
    ((20, 15, 10)), ``transport_probs`` ((0.9, 0.6, 0.2)), ``handover_min`` (15), ``turnout_min``
    (1), ``service_model`` (``"road"`` or ``"exponential"``), ``service_mean_min`` (45),
    ``queue_capacity`` (10; 0 a loss system), ``congestion`` (24 hourly factors; None: free flow),
    ``start_hour`` (0), ``precision_weight`` (1), ``lost_call_penalty_min`` (60), ``incident_log``
    (a CSV or Parquet file: ``time_s``, ``severity``, ``node`` or ``x`` and ``y``, names matched
    case-insensitively; replayed instead of the generated calls), ``render_mode`` (``"ansi"``, or
    ``"rgb_array"``: the region's map with its junctions, stations, hospitals, units (green free,
    orange busy) and calls (red), beside the mean response time and the queue through the episode).

    A user's road network and incident log (a missing file is a ``FileNotFoundError`` naming it,
    a missing column a ``ValueError`` naming it and the columns found):

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    env = gym.make("envzoo/Dispatch-v0", network="my_city.net.xml", incident_log="calls.csv")
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## References

    - OPTIC-ER: real-time adaptive and equitable emergency response, arXiv 2508.12943.
    - R. C. Larson, A hypercube queuing model for facility location and redistricting in urban
      emergency services, Computers & Operations Research 1 (1974).
    - M. S. Daskin, A maximum expected covering location model, Transportation Science 17 (1983).

    ## Version History

    - v0: initial version.
    """

    task_class = DispatchTask


class DispatchRelocateEnv(TaskEnv):
    """
    ## Description

    ``Dispatch-v0`` where every decision also may move one free unit to another station (its new
    home, where it waits and returns after calls): dynamic ambulance relocation. The unit is
    unavailable while it drives there. Learning can beat the fixed rules here, by keeping the
    region covered while units are busy (the nearest-free rule only decides who goes).

    ## Action Space

    ``MultiDiscrete([U + 1, U + 1, S])``: (the unit to send, U to hold; the free unit to move, U
    for none; its new station). ``info["action_mask"]`` is MaskablePPO's concatenation: the
    dispatch mask (U + 1), the movable units and "none" (U + 1), the stations (S). Moving a unit
    that is not free (the one just sent, say) is refused: counted in ``info["cost"]``, not done.

    ## Observation Space

    ``Dispatch-v0``'s observation followed by every unit's home station one-hot (U × S).

    ## Rewards

    As ``Dispatch-v0``: a move pays off only through later response times (the moves made are
    the metric ``relocations``).

    ## Costs

    ``info["cost"]``: the refused parts of the action (a forbidden dispatch or hold, a move of a
    unit that is not free).

    ## Starting State

    As ``Dispatch-v0``: every unit at its station.

    ## Episode End

    As ``Dispatch-v0``.

    ## Metrics

    ``Dispatch-v0``'s, with ``relocations`` (moves made).

    ## Arguments

    As ``Dispatch-v0``, including a user's network and incident log:

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids
    env = gym.make("envzoo/DispatchRelocate-v0", network="my_city.net.xml", incident_log="calls.csv")
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## References

    - Daskin, MEXCLP (1983); the reference policy ``mexclp-relocation`` moves free units toward
      its plan.

    ## Version History

    - v0: initial version.
    """

    task_class = RelocateTask
