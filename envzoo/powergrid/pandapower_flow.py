"""pandapower's Newton–Raphson as a power-flow backend (``backend="pandapower"``), and feeders to
and from pandapower networks.

pandapower pins pandas below the version envzoo's own environment has, so it is not an envzoo
extra: install it in a separate environment (``pip install pandapower``) to use the backend or to
convert one of its networks. Only :func:`tables_from_pandapower` and :func:`network` read or
build pandapower's tables; the rest of the package never imports pandapower.

- :func:`tables_from_pandapower`: a pandapower network's lines (closed ones only), transformers
  (their series impedance) and loads as the tables :func:`~envzoo.powergrid.feeders.feeder_from_tables`
  takes, every impedance referred to the voltage most buses have; bus-bus switches that are
  closed merge their buses.
- :func:`network`: a :class:`~envzoo.powergrid.feeders.Feeder` as a pandapower network (each line
  1 km of its impedance, no shunts; the substation an external grid at the feeder's voltage; each regulator a
  transformer with a ratio tap changer on its low-voltage side, :func:`set_taps`).
- :class:`PandapowerFlow`: solves one row's bus powers with ``pandapower.runpp`` (Newton–Raphson,
  flat start), returning what :func:`~envzoo.powergrid.powerflow.sweep` returns.
- :func:`simbench_feeder` and :func:`simbench_profiles`: a SimBench grid (``feeder="simbench:CODE"``)
  and a day of its year-long 15-minute profiles per bus, from the ``simbench`` package, which
  ships its grids and profiles (nothing is downloaded) and needs pandapower;
  :func:`export_grid_year` writes a grid and its year to files that envzoo's own environment
  reads without simbench (:func:`envzoo.powergrid.data.load_grid_year`). SimBench's data are
  under the Open Database License; envzoo ships none of them.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from envzoo.powergrid.feeders import Feeder
from envzoo.powergrid.regulators import CONTROL_ROUNDS, MAX_TAP, TAP_STEP, move_taps, regulator_tables

#: Newton–Raphson's tolerance on the power mismatch (MVA) and its iteration cap.
TOLERANCE_MVA = 1e-10
MAX_ITERATIONS = 30


def _simbench():
    try:
        import simbench
    except ImportError as error:
        raise ImportError("SimBench grids need the simbench package, which needs pandapower (whose pandas pin envzoo's "
                          "environment cannot take): pip install simbench in an environment of its own") from error
    return simbench


def _pandapower():
    try:
        import pandapower
    except ImportError as error:
        raise ImportError('backend="pandapower" needs pandapower, which pins pandas below envzoo\'s: install it in '
                          'its own environment (pip install pandapower) or use backend="sweep"') from error
    return pandapower


def _merged_buses(net):
    """The bus each of a pandapower network's buses is, its closed bus-bus switches merging
    buses: a function of pandapower's bus index."""
    merged = {int(b): int(b) for b in net.bus.index}

    def root(b):
        b = int(b)
        while merged[b] != b:
            b = merged[b]
        return b

    for _, switch in net.switch.iterrows():
        if switch.et == "b" and switch.closed:
            merged[root(int(switch.element))] = root(int(switch.bus))
    return root


def tables_from_pandapower(net) -> tuple[list, dict, float, str]:
    """``(lines, loads, base_kv, substation)`` of a radial pandapower network (see the module's
    docstring); bus names are pandapower's bus indices as text."""
    root = _merged_buses(net)
    open_lines = {int(s.element) for _, s in net.switch.iterrows() if s.et == "l" and not s.closed}
    base_kv = Counter(net.bus.vn_kv).most_common(1)[0][0]
    lines = []
    for index, line in net.line.iterrows():
        if index in open_lines or not line.in_service:
            continue
        scale = (base_kv / net.bus.vn_kv[line.from_bus]) ** 2 * line.length_km / line.parallel
        lines.append((str(root(int(line.from_bus))), str(root(int(line.to_bus))), line.r_ohm_per_km * scale,
                      line.x_ohm_per_km * scale))
    for _, trafo in net.trafo.iterrows():
        z_base = base_kv ** 2 / trafo.sn_mva  # the impedance on the rating, referred to the feeder's base
        r = trafo.vkr_percent / 100.0 * z_base
        x = np.sqrt(max((trafo.vk_percent / 100.0) ** 2 - (trafo.vkr_percent / 100.0) ** 2, 0.0)) * z_base
        lines.append((str(root(int(trafo.hv_bus))), str(root(int(trafo.lv_bus))), r, x))
    loads: dict[str, list] = {}
    for _, load in net.load.iterrows():
        entry = loads.setdefault(str(root(int(load.bus))), [0.0, 0.0])
        entry[0] += load.p_mw * load.scaling * 1000.0
        entry[1] += load.q_mvar * load.scaling * 1000.0
    substation = str(root(int(net.ext_grid.bus.iloc[0])))
    return lines, {bus: tuple(pq) for bus, pq in loads.items()}, float(base_kv), substation


def network(feeder: Feeder, taps=None):
    """The feeder as a pandapower network: bus ``i`` is the feeder's bus ``i`` (sweep order), its
    loads the feeder's peak loads, the substation an external grid at its voltage, its regulators
    transformers at ``taps`` (R,) (default neutral; :func:`set_taps`)."""
    pp = _pandapower()
    net = pp.create_empty_network(sn_mva=1.0)
    for name in feeder.bus_names:
        pp.create_bus(net, vn_kv=feeder.base_kv, name=name)
    pp.create_ext_grid(net, 0, vm_pu=feeder.source_pu, va_degree=0.0)
    regulated = {regulator.bus for regulator in feeder.regulators}
    for bus in range(1, feeder.n_buses):
        if bus in regulated:
            pp.create_transformer_from_parameters(
                net, int(feeder.parent[bus]), bus, sn_mva=1.0, vn_hv_kv=feeder.base_kv, vn_lv_kv=feeder.base_kv,
                vk_percent=1.0, vkr_percent=0.0, pfe_kw=0.0, i0_percent=0.0, tap_side="lv", tap_neutral=0,
                tap_min=-MAX_TAP, tap_max=MAX_TAP, tap_step_percent=100.0 * TAP_STEP, tap_pos=0,
                tap_changer_type="Ratio")
            continue
        pp.create_line_from_parameters(net, int(feeder.parent[bus]), bus, length_km=1.0,
                                       r_ohm_per_km=float(feeder.r_ohm[bus]), x_ohm_per_km=float(feeder.x_ohm[bus]),
                                       c_nf_per_km=0.0, max_i_ka=1e6)
    pp.create_loads(net, list(range(feeder.n_buses)), p_mw=feeder.p_kw / 1000.0, q_mvar=feeder.q_kvar / 1000.0)
    set_taps(net, feeder, np.zeros(len(feeder.regulators), dtype=np.int64) if taps is None else taps)
    return net


def set_taps(net, feeder: Feeder, taps) -> None:
    """Put the regulators of ``network(feeder)`` at ``taps`` (R,). pandapower refers a
    transformer's impedance to its tapped low-voltage rating, so that it grows with the square of
    the ratio; each transformer's ``vk``/``vkr`` is set to keep the regulator's impedance in ohm,
    as the sweep's ideal ratio before a fixed impedance has it."""
    for row, (regulator, tap) in enumerate(zip(feeder.regulators, np.asarray(taps))):
        z_pu = complex(feeder.r_ohm[regulator.bus], feeder.x_ohm[regulator.bus]) / feeder.z_base_ohm
        scale = 100.0 / (1.0 + TAP_STEP * int(tap)) ** 2
        net.trafo.loc[row, ["tap_pos", "vk_percent", "vkr_percent"]] = int(tap), abs(z_pu) * scale, z_pu.real * scale


def run_at_taps(net, feeder: Feeder, taps) -> None:
    """``pandapower.runpp`` (Newton–Raphson, flat start) on ``network(feeder)`` with its
    regulators at ``taps``. From a flat start Newton–Raphson can fail on a regulator off neutral
    (its tiny impedance turns the flat start's 5 % ratio into a huge mismatch: on the IEEE 34- and
    123-bus feeders it does); then it solves at neutral taps and walks every regulator to its tap
    one step at a time, each solve starting from the last. Raises pandapower's
    ``LoadflowNotConverged`` where that fails too."""
    pp = _pandapower()
    taps = np.asarray(taps, dtype=np.int64)
    options = dict(algorithm="nr", tolerance_mva=TOLERANCE_MVA, max_iteration=MAX_ITERATIONS,
                   calculate_voltage_angles=True)
    set_taps(net, feeder, taps)
    try:
        pp.runpp(net, init="flat", **options)
        return
    except pp.LoadflowNotConverged:
        if not taps.any():
            raise
    for reach in range(np.abs(taps).max() + 1):
        set_taps(net, feeder, np.sign(taps) * np.minimum(np.abs(taps), reach))
        pp.runpp(net, init="flat" if reach == 0 else "results", **options)


class PandapowerFlow:
    """The power flow of one feeder by pandapower's Newton–Raphson, one row at a time."""

    def __init__(self, feeder: Feeder):
        self.pp = _pandapower()
        self.feeder = feeder
        self.net = network(feeder)
        self.z = (feeder.r_ohm + 1j * feeder.x_ohm) / feeder.z_base_ohm
        self.regulator_buses, self.regulator_settings = regulator_tables(feeder)

    def solve(self, s: np.ndarray, v: np.ndarray, current: np.ndarray, ratio: np.ndarray, taps: np.ndarray) -> int:
        """Solve bus powers drawn ``s`` (N,) complex p.u.; write the voltages into ``v`` and each
        bus's line current (from its parent; the feeder's total at the substation) into
        ``current``, the regulators' controller moving ``taps`` (R,) and ``ratio`` (N,) between
        solves as :func:`~envzoo.powergrid.powerflow.regulated_sweep` does. Returns the last
        solve's iterations, -1 where Newton–Raphson did not converge (``v`` then 0, finite)."""
        iterations = self._solve_at_taps(s, v, current, ratio, taps)
        for _ in range(CONTROL_ROUNDS):
            if iterations < 0 or not move_taps(v, current, self.regulator_buses, self.regulator_settings, taps, ratio):
                break
            iterations = self._solve_at_taps(s, v, current, ratio, taps)
        return iterations

    def _solve_at_taps(self, s, v, current, ratio, taps) -> int:
        net, parent = self.net, self.feeder.parent
        net.load["p_mw"] = s.real
        net.load["q_mvar"] = s.imag
        try:
            run_at_taps(net, self.feeder, taps)
        except self.pp.LoadflowNotConverged:
            v[:] = 0.0
            current[:] = 0.0
            return -1
        v[:] = net.res_bus.vm_pu.to_numpy() * np.exp(1j * np.radians(net.res_bus.va_degree.to_numpy()))
        current[0] = 0.0
        current[1:] = (ratio[1:] * v[parent[1:]] - v[1:]) / self.z[1:]
        current[0] = (ratio * current)[parent == 0].sum()
        return int(net._ppc["iterations"]) if "iterations" in net._ppc else 1


def simbench_feeder(code: str, net=None) -> Feeder:
    """The SimBench grid ``code`` (such as ``"1-LV-rural1--0-sw"``) as a radial feeder: its lines,
    transformers and loads (their rated power) by :func:`tables_from_pandapower`; its PV and other
    generators enter through :func:`simbench_profiles` (``net``: the grid's pandapower network,
    if already loaded)."""
    from envzoo.powergrid.feeders import feeder_from_tables

    lines, loads, base_kv, substation = tables_from_pandapower(_simbench().get_simbench_net(code) if net is None
                                                               else net)
    return feeder_from_tables(f"simbench:{code}", lines, loads, base_kv, substation)


def export_grid_year(code: str, folder) -> None:
    """Write SimBench grid ``code`` and its whole year of per-bus profiles (as
    :func:`simbench_profiles` gives a day of them) to ``folder`` (``lines.csv``, ``loads.csv``,
    ``year.npz``), for :func:`envzoo.powergrid.data.load_grid_year` in an environment without
    simbench. The files hold SimBench's data: the Open Database License applies to them."""
    import csv
    from pathlib import Path

    simbench = _simbench()
    net = simbench.get_simbench_net(code)
    lines, loads, base_kv, substation = tables_from_pandapower(net)
    year = len(simbench.get_absolute_values(net, profiles_instead_of_study_cases=True)[("load", "p_mw")])
    profiles = simbench_profiles(code, day=0, steps=year)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lines.csv", "w", newline="") as file:
        csv.writer(file).writerows([("from_bus", "to_bus", "r_ohm", "x_ohm"),
                                    *((a, b, repr(float(r)), repr(float(x))) for a, b, r, x in lines)])
    with open(folder / "loads.csv", "w", newline="") as file:
        csv.writer(file).writerows([("bus", "p_kw", "q_kvar"),
                                    *((bus, repr(float(p)), repr(float(q))) for bus, (p, q) in loads.items())])
    np.savez_compressed(folder / "year.npz", name=f"simbench:{code}", base_kv=base_kv, substation=substation,
                        steps_per_day=96, **profiles)


def simbench_profiles(code: str, day: int, steps: int = 96) -> dict[str, np.ndarray]:
    """``steps`` 15-minute steps of SimBench grid ``code``'s year from the start of ``day`` (0 is
    1 January), as the env's ``profiles`` for ``feeder="simbench:CODE"``:

    - ``bus_p_kw``, ``bus_q_kvar`` (steps, N): every bus's loads, each by its own SimBench
      profile, less the grid's own generators (PV, wind, ...) by theirs, in the feeder's bus order;
    - ``irradiance_w_m2`` (steps,), for the env's agents' PV: the grid's PV generators' summed
      output over their summed rating as the irradiance that gives it through the env's PV
      model (``1000 / efficiency`` W/m² per unit, efficiency 0.96)."""
    from envzoo.powergrid.devices import PVParams

    simbench = _simbench()
    net = simbench.get_simbench_net(code)
    values = simbench.get_absolute_values(net, profiles_instead_of_study_cases=True)
    pv = values[("sgen", "p_mw")].to_numpy()
    year = len(pv)
    if isinstance(day, bool) or not isinstance(day, (int, np.integer)) or not 0 <= day * 96 <= year - steps:
        raise ValueError(f"day must be a whole number from 0 to {(year - steps) // 96} (SimBench's year has {year} "
                         f"15-minute steps), got {day!r}")
    window = slice(int(day) * 96, int(day) * 96 + steps)
    feeder, root = simbench_feeder(code, net), _merged_buses(net)
    profiles = {"bus_p_kw": np.zeros((steps, feeder.n_buses)), "bus_q_kvar": np.zeros((steps, feeder.n_buses))}
    for table, sign in (("load", 1.0), ("sgen", -1.0)):
        for quantity, name in (("p_mw", "bus_p_kw"), ("q_mvar", "bus_q_kvar")):
            if (table, quantity) not in values:
                continue
            frame = values[(table, quantity)]
            columns = [feeder.bus_index(root(net[table].bus.at[element])) for element in frame.columns]
            np.add.at(profiles[name].T, columns, sign * 1000.0 * frame.to_numpy()[window].T)
    generators = net.sgen.loc[values[("sgen", "p_mw")].columns]
    is_pv = generators.type.astype(str).str.contains("PV", case=False).to_numpy()
    if is_pv.any():
        rated_pv = (generators.p_mw * generators.scaling)[is_pv].sum()
        profiles["irradiance_w_m2"] = (np.maximum(pv[window][:, is_pv].sum(axis=1) / rated_pv, 0.0) * 1000.0
                                       / PVParams().efficiency)
    return profiles
