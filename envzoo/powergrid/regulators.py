"""Step-voltage regulators and their tap controller, as the power flow uses them.

A regulator (:class:`~envzoo.powergrid.feeders.Regulator`) is modelled as an ideal transformer of
ratio ``a = 1 + TAP_STEP · tap`` at the head of its line, before the line's series impedance (the
regulator's own small impedance, as the feeders' tables keep it): the voltage after it is ``a``
times the voltage before it, and the current before it ``a`` times the current after it (an ideal
transformer passes power unchanged). The IEEE feeders' regulators have 32 steps of 5/8 % (``±16``
taps, ``±10 %``), the ratio per tap OpenDSS's ``Transformer`` takes by default for them
(``numtaps=32``, ``mintap=0.9``, ``maxtap=1.1``).

Its controller (OpenDSS's ``RegControl``; Kersting, *Distribution System Modeling and Analysis*,
§ 7.1.1) watches the regulated voltage through a potential transformer (``pt_ratio``, so that it
reads about 120 V) and a line-drop compensator that subtracts ``(R + jX) · I / CT`` (volts: ``R``
and ``X`` in volts at the current transformer's rated current, ``I`` the line current in A),
which estimates the voltage at a load centre downstream. When that relay voltage leaves
``band_center_v ± bandwidth_v / 2`` the regulator changes tap.

How taps move here: **to the band at each step.** Between two power-flow solves of one step,
every regulator outside its band moves at once by the taps that bring its relay voltage to the
band's centre (one tap is ``TAP_STEP`` of the relay's nominal voltage, at least one tap), the
flow is solved again, and so on until every regulator is in its band or at its limit (at most
:data:`CONTROL_ROUNDS` rounds). Why not one tap per time delay: a step lasts 15 minutes by
default and the feeders' delays are 15 to 30 s, so a regulator that moves one tap per delay
crosses its whole range (16 taps, 8 minutes at 30 s) within one step; what the env would show at
the step's end is the tap the band asks for. (With steps of a few minutes or less, that
overstates how fast the taps follow.) The taps persist from step to step and start at neutral
(0) in every episode, before the first power flow's control.
"""

from __future__ import annotations

import numpy as np

from envzoo.core.compiled import kernel

#: The change of ratio per tap (5/8 %) and the taps on each side of neutral.
TAP_STEP = 0.00625
MAX_TAP = 16
#: The most solve-and-move rounds of the controller in one step.
CONTROL_ROUNDS = 10
#: The columns of :func:`regulator_tables`'s settings.
CENTER_V, HALF_BAND_V, VOLTS_PER_PU, COMPENSATOR_R, COMPENSATOR_X = range(5)


def regulator_buses(feeder) -> np.ndarray:
    """The bus (R,) int64 at the head of whose line each regulator sits, in the feeder's order."""
    return np.array([regulator.bus for regulator in feeder.regulators], dtype=np.int64)


def regulator_tables(feeder) -> tuple[np.ndarray, np.ndarray]:
    """The feeder's regulators as the compiled controller reads them: their buses (R,) int64
    and their settings (R, 5) float64 (:data:`CENTER_V` .. :data:`COMPENSATOR_X`): band centre
    and half band (relay volts), relay volts per p.u. of voltage, and the compensator's R and X
    in relay volts per p.u. of current (1 MVA base)."""
    buses = regulator_buses(feeder)
    settings = np.zeros((len(buses), 5))
    volts_per_pu = feeder.base_kv * 1000.0 / np.sqrt(3.0)  # line to neutral
    amps_per_pu = 1000.0 / (np.sqrt(3.0) * feeder.base_kv)
    for k, regulator in enumerate(feeder.regulators):
        settings[k] = (regulator.band_center_v, regulator.bandwidth_v / 2.0, volts_per_pu / regulator.pt_ratio,
                       regulator.r_v * amps_per_pu / regulator.ct_primary_a,
                       regulator.x_v * amps_per_pu / regulator.ct_primary_a)
    return buses, settings


def checked_taps(feeder, taps) -> np.ndarray:
    """``taps`` (R,) or (B, R) as int64, or a ``ValueError`` naming what is wrong: taps beyond
    ``±MAX_TAP``, not whole, or not one per regulator."""
    taps = np.asarray(taps)
    if taps.shape[-1:] != (len(feeder.regulators),) or np.any(np.abs(taps) > MAX_TAP) \
            or np.any(taps != np.round(taps)):
        raise ValueError(f"taps must be whole numbers from {-MAX_TAP} to {MAX_TAP}, one per regulator of feeder "
                         f"{feeder.name!r} ({len(feeder.regulators)}), got {taps.tolist()}")
    return taps.astype(np.int64)


def tap_ratios(feeder, taps) -> np.ndarray:
    """Every bus's voltage ratio from its parent, (N,) or (B, N), for taps (R,) or (B, R):
    ``1 + TAP_STEP · tap`` at each regulator's bus, 1 elsewhere, and at the substation (which has
    no parent) its voltage, ``feeder.source_pu``. Raises a ``ValueError`` for
    taps beyond ``±MAX_TAP`` or of the wrong shape."""
    taps = checked_taps(feeder, taps)
    ratio = np.ones(taps.shape[:-1] + (feeder.n_buses,))
    ratio[..., regulator_buses(feeder)] = 1.0 + TAP_STEP * taps
    ratio[..., 0] = feeder.source_pu
    return ratio


@kernel(inline=True)
def relay_voltage(v, current, bus, settings):
    """What one regulator's controller reads (relay volts): its bus's voltage through the
    potential transformer, less the line-drop compensator's ``(R + jX) · I``."""
    re = v[bus].real * settings[VOLTS_PER_PU] - (settings[COMPENSATOR_R] * current[bus].real
                                                 - settings[COMPENSATOR_X] * current[bus].imag)
    im = v[bus].imag * settings[VOLTS_PER_PU] - (settings[COMPENSATOR_R] * current[bus].imag
                                                 + settings[COMPENSATOR_X] * current[bus].real)
    return np.sqrt(re * re + im * im)


@kernel(inline=True)
def move_taps(v, current, buses, settings, taps, ratio):
    """One round of the controller on one row's solved flow: each regulator outside its band
    moves toward its band's centre (at least one tap, within ``±MAX_TAP``) and its bus's
    ``ratio`` follows. Returns whether any tap moved."""
    moved = False
    for k in range(buses.shape[0]):
        error = settings[k, CENTER_V] - relay_voltage(v, current, buses[k], settings[k])
        if abs(error) <= settings[k, HALF_BAND_V]:
            continue
        steps = max(1.0, np.round(abs(error) / (TAP_STEP * settings[k, VOLTS_PER_PU])))
        tap = min(MAX_TAP, max(-MAX_TAP, taps[k] + int(np.sign(error) * steps)))
        if tap != taps[k]:
            taps[k] = tap
            ratio[buses[k]] = 1.0 + TAP_STEP * tap
            moved = True
    return moved
