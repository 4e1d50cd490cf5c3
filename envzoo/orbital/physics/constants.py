"""Earth constants and the frame convention shared by the numpy and Orekit backends.

Both backends read their gravity constants from here, so their trajectories can be compared
number for number. The values are those of the EGM96 gravity model (Lemoine et al. 1998, NASA
TP-1998-206861), the same as Orekit's ``Constants.EGM96_EARTH_MU``,
``Constants.EGM96_EARTH_EQUATORIAL_RADIUS`` and ``-Constants.EGM96_EARTH_C20``. All in SI units.

Frame: states are Cartesian positions (m) and velocities (m/s) in EME2000 (J2000), an inertial
frame. The J2 term is taken symmetric about EME2000's Z axis, i.e. the Earth's pole is treated
as fixed along J2000 Z (precession and nutation ignored, a few tenths of a degree over decades).
This is exactly what Orekit's ``J2OnlyPerturbation(MU, EQUATORIAL_RADIUS, J2, EME2000)`` does
when given EME2000 as the body frame, which is how the Orekit backend is configured.
"""

MU = 3.986004415e14
"""Earth's gravitational parameter GM, m³/s² (EGM96)."""

EQUATORIAL_RADIUS = 6378136.3
"""Earth's equatorial radius used as the J2 reference radius, m (EGM96)."""

J2 = 1.082626683e-3
"""Earth's unnormalized second zonal harmonic, J2 = -C20 (EGM96)."""
