"""Traffic-signal control on SUMO (extra ``traffic``).

- :mod:`envzoo.traffic.params`: signal timing and every face's arguments.
- :mod:`envzoo.traffic.generator`: scenarios: generated grids and arterials, SUMO's own game
  scenarios, the user's files.
- :mod:`envzoo.traffic.sumo`: the bridge to SUMO (binaries and tools from the ``eclipse-sumo``
  wheel, libsumo or TraCI, subscriptions, errors that quote SUMO's log).
- :mod:`envzoo.traffic.signals`: green phases parsed from the network, yellow and red-clearance
  transitions, min/max green (pure functions).
- :mod:`envzoo.traffic.intersections`: each controlled light's lanes and links in a running network.
- :mod:`envzoo.traffic.sim`: the simulator every face drives (episodes, decision intervals, metrics).
- :mod:`envzoo.traffic.features`: observations and named rewards.
- :mod:`envzoo.traffic.probes`: link queues estimated from probe vehicles (point-queue model).
- :mod:`envzoo.traffic.splits`: green splits of a signal cycle as whole decision intervals.
- :mod:`envzoo.traffic.task`: the decision problem of each face over the simulator.
- :mod:`envzoo.traffic.parallel`: ``envzoo/TrafficGrid-v0``, one agent per intersection.
- :mod:`envzoo.traffic.mo`: ``envzoo/TrafficGridMO-v0``, one agent, vector reward.
- :mod:`envzoo.traffic.env`: ``envzoo/TrafficRegion-v0``, a control center on probe data.
- :mod:`envzoo.traffic.policies`: fixed time, Webster, max pressure, longest queue first, SOTL;
  fixed splits and Webster's splits for the split face.
"""
