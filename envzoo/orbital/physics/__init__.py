"""The physics under the collision-avoidance simulator, each module one subject and none of them
a simulator: :mod:`.constants` (Earth's), :mod:`.elements` (orbital elements, RTN frames, small
vector algebra), :mod:`.propagation` (two-body + J2 orbits, the order-8 integrator),
:mod:`.relative_motion` (Clohessy–Wiltshire motion, the return to a slot), :mod:`.collision`
(encounter planes, Foster's Pc), :mod:`.tracking` (covariances, process noise and updates),
:mod:`.backends` (the numpy or Orekit propagator behind one interface) and :mod:`.orekit` (the
bridge to Orekit; its data files stay in ``envzoo/orbital/orekit_data``)."""
