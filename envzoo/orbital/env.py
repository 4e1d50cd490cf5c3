"""Collision avoidance for a satellite in LEO: impulsive manoeuvres decided from tracking updates."""

from __future__ import annotations

from envzoo.core.env import TaskEnv
from envzoo.orbital.task import CollisionAvoidanceTask


class CollisionAvoidanceEnv(TaskEnv):
    """
    ## Description

    A satellite in low Earth orbit (by default 550 km, 53°, like a Starlink shell) keeps a
    station-keeping slot while debris objects approach on conjunction courses. The operator
    sees the debris only through tracking updates (CDM-like estimates with covariances) and
    decides, every ``decision_step_s`` (10 minutes by default), whether to burn an impulsive
    collision-avoidance manoeuvre, trading collision risk against fuel and time away from the
    slot. This is the partially observable MDP of collision-avoidance decision making on board
    a spacecraft, with epistemic (estimate) and aleatory (process noise) uncertainty.

    Dynamics (:mod:`envzoo.orbital.sim`): the primary is propagated with two-body + J2 (numpy
    order-8 extrapolation integrator, or Orekit: ``backend``, which can add higher harmonics and
    drag: ``force_model``); its slot is a Keplerian orbit (``scenario.primary``) or a real
    satellite's (``tle``); the debris are generated on
    designed encounters with the slot (:mod:`envzoo.orbital.generator`: TCA, miss distance,
    crossing angle drawn per episode), or replayed from a real CDM (``cdm``); their true TCA
    states drift with a velocity random walk mapped through Clohessy–Wiltshire motion, and the
    tracker's estimates are refreshed at random updates
    (:mod:`envzoo.orbital.physics.tracking`). The truth decides collisions (true miss below
    ``hard_body_radius_m`` at TCA); the agent never sees it. Ten-minute steps give about nine
    decisions per orbit, enough to phase a burn (along-track burns act through the drift they
    cause, which grows with the lead time; radial displacement peaks half an orbit after a
    burn) while keeping episodes short (48 steps).

    ## Action Space

    ``action_type="discrete"`` (default): ``Discrete(8)``:
    0 no-op; 1/2 ± along-track; 3/4 ± radial; 5/6 ± cross-track impulses of ``maneuver_mps``
    (radial, along-track, cross-track; 0.1 m/s each by default); 7 return to slot (a
    Clohessy–Wiltshire rendezvous with the slot in ``return_steps`` steps: one burn now, and a
    second one planned at arrival that stops the relative motion; another manoeuvre cancels
    the planned burn). CW ignores J2 and the slot's eccentricity: a return ends within a few
    percent of the offset it started from (tested), which a later return can take up.
    ``action_type="continuous"``: ``Box(-max_delta_v_mps, max_delta_v_mps, (3,), float32)``,
    the (radial, along-track, cross-track) impulse in m/s; zeros burn nothing.
    A burn larger than the Δv budget left is not executed (``info["maneuver_refused"]``); a
    planned second burn it would have been is dropped.

    ## Observation Space

    ``Box(-inf, inf, (14 + 11 · n_debris,), float32)``. By default (``observation="normalized"``)
    each column is (value − offset) / scale, so that it is of order one (PPO with default settings
    learns from it); ``observation="physical"`` gives the values in their units. T is the
    episode's length in hours (``episode_s`` / 3600), B the Δv budget (``delta_v_budget_mps``,
    1 if it is 0), log10 Pc* that of ``pc_threshold`` (so 0 is the threshold).
    :func:`envzoo.orbital.task.physical` turns an observation back into units.

    | index | column | unit | offset, scale |
    |---|---|---|---|
    | 0 | altitude: semi-major axis − Earth's equatorial radius | km | 500, 100 |
    | 1 | eccentricity (osculating) | – | 0, 0.001 |
    | 2 | inclination | rad | 0, π |
    | 3–4 | RAAN, argument of latitude | rad | π, π |
    | 5–7 | position relative to the slot, RTN of the slot | km | 0, 1 |
    | 8–10 | velocity relative to the slot (seen from the rotating RTN frame) | m/s | 0, 1 |
    | 11 | Δv budget left | m/s | 0, B |
    | 12 | time since the episode start | h | 0, T |
    | 13 | 1 while a return-to-slot second burn is planned | flag | 0, 1 |

    then, for each debris object k (columns 14 + 11k + j):

    | j | column | unit | offset, scale |
    |---|---|---|---|
    | 0–2 | estimated debris − primary position at the predicted TCA, primary's RTN | km | 0, 1 |
    | 3–5 | estimated relative velocity, primary's RTN | km/s | 0, 10 |
    | 6–7 | 1-σ of the combined covariance in the encounter plane, major and minor axes | km | 0, 0.1 |
    | 8 | time to TCA (negative once passed) | h | 0, T |
    | 9 | log10 of the estimated Pc (Foster); −30 below 1e-30 and after TCA | – | log10 Pc*, 10 |
    | 10 | time since the object's last tracking update | h | 0, T |

    ## Rewards

    Per step, ``risk_weight · risk + fuel_weight · fuel + slot_weight · slot`` (default
    weights 1, 10, 0.1) with

    - risk = −Σ_k log10(max(Pc_k, pc_threshold) / pc_threshold): minus the number of decades by
      which each estimated Pc exceeds the operator threshold (1e-4, NASA CARA's), after the
      step; minus ``collision_penalty`` (1000) if a collision happened in the step;
    - fuel = −|Δv| burnt in the step, m/s;
    - slot = −|position relative to the slot| after the step, km.

    ``CollisionAvoidanceMO-v1`` returns (risk, fuel, slot) as a vector.

    ## Costs

    ``info["cost"]``: Δv burnt in the step, m/s.

    ## Starting State

    The primary in its slot with the Δv budget full; ``n_debris`` (2) debris objects with TCAs
    uniform in ``scenario.tca_window`` (2–6 h), miss distances uniform in
    ``scenario.miss_distance_range`` (0–500 m) in a uniform direction of the encounter plane,
    crossing angles 30°–150°; each debris starts with a fresh tracking update. With ``cdm``,
    the CDM's primary and its one debris object, TCA in the middle of ``scenario.tca_window``.
    With ``tle``, the slot is the TLE's orbit at its epoch.

    ## Episode End

    Terminated at a collision, or after ``episode_s`` (8 h: 48 steps), past the last TCA.
    Stepping a finished episode raises ``RuntimeError`` until ``reset()``.

    ## Metrics

    ``info["metrics"]`` at every step, over the episode so far: ``collisions``,
    ``min_true_miss_m`` (smallest true miss of the encounters passed; −1 before the first TCA),
    ``max_pc`` (largest estimated Pc seen), ``delta_v_used_mps``, ``maneuvers`` (burns
    executed, a return counts two), ``time_off_slot_h`` (time more than ``slot_tolerance_m``
    from the slot).

    ## Arguments

    - ``action_type``: ``"discrete"`` or ``"continuous"``; ``maneuver_mps`` (0.1, 0.1, 0.1);
      ``max_delta_v_mps`` (0.5, continuous bound); ``delta_v_budget_mps`` (1.0);
      ``return_steps`` (7: 70 min, about 3/4 of an orbit, where the rendezvous is well posed).
    - ``decision_step_s`` (600), ``episode_s`` (28 800), ``hard_body_radius_m`` (20).
    - ``scenario``: dict of :class:`~envzoo.orbital.generator.ConjunctionParams` overrides
      (``n_debris``, ``tca_window``, ``miss_distance_range``, ``crossing_angle_range``,
      ``speed_ratio_range``, ``primary`` as a dict of Keplerian elements, ``max_step``: the
      integrator's step, 300 s by default, 0.6 m after 6 h).
    - ``tracking``: dict of :class:`~envzoo.orbital.physics.tracking.TrackingParams` overrides
      (``measurement_sigma_m`` (30, 150, 30), ``update_interval_s`` (3600),
      ``velocity_noise`` (0.001, 0.004, 0.001) m/s per √h, ``primary_sigma_m`` (5, 20, 5)).
    - ``pc_threshold`` (1e-4), ``risk_weight`` (1), ``fuel_weight`` (10 per m/s),
      ``slot_weight`` (0.1 per km), ``collision_penalty`` (1000), ``slot_tolerance_m`` (1000).
    - ``observation``: ``"normalized"`` (default) or ``"physical"`` (see Observation Space).
    - ``render_mode``: ``"ansi"``.

    - ``backend``: how orbits are propagated (:mod:`envzoo.orbital.physics.backends`). ``"numpy"``
      (default): the batched order-8 integrator. ``"orekit"``: Orekit's numerical propagator
      with the same point mass + J2 model and constants (needs ``pip install "envzoo[orbital]"``);
      the primary, its slot and thus the debris' designed TCA states all come from Orekit.
      Without manoeuvres the two primaries stay within 0.5 m over 2 h (tested; 1 m after the
      8 h episode, mostly numpy's 300 s substeps) and the true misses within a millimetre;
      a step takes about twice as long (quick runs: 4 ms instead of 2 ms, the Pc and tracking
      dominate numpy's). The native vector env and ``Constellation-v1`` run ``"numpy"`` only.
    - ``cdm``: path of a CCSDS Conjunction Data Message (KVN or XML, read by Orekit's
      ``CdmParser``; needs the ``orbital`` extra) whose encounter every episode replays
      (:mod:`envzoo.orbital.data`): the slot is the CDM's object 1 propagated back from
      TCA, the one debris (``n_debris`` is 1) is object 2 at the CDM's offset from it, and TCA
      falls in the middle of ``scenario.tca_window`` (4 h by default). The CDM's state of
      object 2 is the first estimate, with the CDM's RTN position covariance; the truth is
      drawn from that covariance per episode. The Pc uses object 1's covariance from the CDM
      instead of ``primary_sigma_m``. ``scenario.primary`` and the encounter ranges are unused.
    - ``tle``: ``(line1, line2)`` of a two-line element set, or the path of a TLE file (one set,
      optionally after a name line, as Celestrak's files have; a missing file is a
      ``FileNotFoundError`` naming it): the slot (and the primary's start)
      is the TLE's state at its epoch from Orekit's SGP4/SDP4 (``TLEPropagator``), converted
      from TEME to EME2000, instead of ``scenario.primary``; the debris are designed around it
      as usual. Works with either backend; needs the ``orbital`` extra (Orekit reads the TLE). A
      malformed TLE (layout, checksum) is a ``ValueError``; ``tle`` and ``cdm`` exclude each
      other. The episode's date is the TLE's epoch (it matters to ``force_model``).
    - ``force_model``: the forces of the ``"orekit"`` backend. ``"j2"`` (default): point mass +
      J2, as numpy. ``"4x4"``: Earth's EGM96 field to degree and order 4 (shipped with envzoo)
      in the Earth-fixed frame. ``"4x4+drag"``: plus Harris–Priester drag (analytical Sun
      position) on a 500 kg, 1 m², Cd 2.2 spacecraft. Each step is propagated from its own date
      (the TLE's or the CDM's epoch, else 2024-01-01T00:00 UTC, plus the elapsed time). The
      debris' designed TCA states come from the same forces. Over the 2 h test episode at
      550 km, ``"4x4+drag"`` ends 740 m from ``"j2"``, drag's part 3.6 m; a step takes a few
      milliseconds, up to a few times ``"j2"``'s (quick, noisy runs). ``backend="numpy"`` supports ``"j2"`` only and
      raises ``ValueError`` for the others.

    A user's files: a satellite's TLE (from Celestrak, say) as the slot, or a CDM's encounter:

    ```python
    import gymnasium as gym
    import envzoo  # registers the ids (tle and cdm need the orbital extra: Orekit reads them)
    env = gym.make("envzoo/CollisionAvoidance-v1", tle="my_satellite.tle")  # or cdm="my_conjunction.cdm"
    observation, info = env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(env.action_space.sample())
    ```

    ## References

    Seed papers of issue #6: collision-avoidance manoeuvre decisions on board a spacecraft as a
    POMDP under epistemic and aleatory uncertainty; OrbitZoo, a multi-agent orbital environment
    on Orekit. Foster & Estes (1992), NASA JSC-25898 (Pc). Clohessy & Wiltshire (1960),
    J. Aerospace Sciences 27(9) (relative motion).

    ## Version History

    - v1: the observation is normalised by default (``observation="normalized"``; v0's
      physical units, with altitudes near 550 and log10 Pc down to −30, are
      ``observation="physical"``, whose trajectories are v0's exactly).
    - v0: initial version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    task_class = CollisionAvoidanceTask
