"""The bridge to SUMO: binaries and tools from the installed ``eclipse-sumo`` wheel, one running
simulation driven through libsumo (in-process, fast) or TraCI (a subprocess: several per process,
or the GUI), with subscriptions instead of per-object getter calls and errors that name the cause.

SUMO_HOME is always taken from the wheel (``sumo.SUMO_HOME``), never from the environment, so a
stray system SUMO of another version is never mixed in.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import itertools
import math
import operator
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from envzoo.core.errors import EnvzooError
from envzoo.core.extras import require

BACKENDS = ("auto", "libsumo", "traci")
LOG_TAIL_LINES = 12


class SumoError(EnvzooError, RuntimeError):
    """SUMO could not start, or stopped during a run; the message quotes SUMO's log."""


class SumoStartError(SumoError):
    """SUMO refused to start (a bad network, route or configuration file, a bad option)."""


class SumoCrashError(SumoError):
    """SUMO died or reported an error in the middle of a run."""


# ---------------------------------------------------------------------- the installed wheel
def sumo_home() -> Path:
    """SUMO_HOME of the installed ``eclipse-sumo`` wheel."""
    return Path(require("traffic", "sumo").SUMO_HOME)


def sumo_binary(name: str = "sumo") -> str:
    """Path of a SUMO executable (``sumo``, ``sumo-gui``, ``netgenerate``, ...) from the wheel."""
    suffix = ".exe" if os.name == "nt" else ""
    path = sumo_home() / "bin" / f"{name}{suffix}"
    if not path.exists():
        raise SumoError(f"the eclipse-sumo wheel has no executable {name!r} (looked for {path}); "
                        f'reinstall it with: pip install --force-reinstall "envzoo[traffic]"')
    return str(path)


def sumo_tool(relative: str) -> Path:
    """Path of a script under the wheel's ``tools/`` folder, e.g. ``"randomTrips.py"``."""
    path = sumo_home() / "tools" / relative
    if not path.exists():
        raise SumoError(f"the eclipse-sumo wheel has no tool {relative!r} (looked for {path})")
    return path


def run_sumo_program(command: list[str], what: str, cwd: Path | None = None) -> None:
    """Run a SUMO executable or tool to completion; on failure raise with the tail of its output.

    SUMO's Python tools read SUMO_HOME; it is set to the wheel's for the child only. Run it in
    ``cwd`` when the program may write files of its own.
    """
    environment = {**os.environ, "SUMO_HOME": str(sumo_home())}
    result = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=cwd)
    if result.returncode != 0:
        output = (result.stderr or "") + (result.stdout or "")
        raise SumoError(f"{what} failed (exit code {result.returncode}):\n{_tail(output)}\n"
                        f"command: {' '.join(command)}")


def python_tool_command(relative: str, *args: str) -> list[str]:
    """The command line that runs a SUMO Python tool with this interpreter."""
    return [sys.executable, str(sumo_tool(relative)), *args]


def options_to_args(options: dict) -> list[str]:
    """``{"time-to-teleport": 60}`` -> ``["--time-to-teleport", "60"]`` (booleans as true/false)."""
    args = []
    for name, value in options.items():
        if not isinstance(name, str) or not name or name.startswith("-"):
            raise ValueError(f"SUMO option names are given without dashes, e.g. 'time-to-teleport'; got {name!r}")
        args += [f"--{name}", str(value).lower() if isinstance(value, bool) else str(value)]
    return args


def _tail(text: str, lines: int = LOG_TAIL_LINES) -> str:
    kept = [line for line in text.strip().splitlines() if line.strip()][-lines:]
    return "\n".join("    " + line for line in kept) or "    (SUMO wrote nothing)"


def _import_libsumo():
    """``import libsumo`` without its import-time notice on stdout about pyarrow's version (it
    matters only for SUMO's parquet outputs, which envzoo never writes); a notice on stdout would
    corrupt machine-readable output such as ``envzoo eval --json``."""
    with contextlib.redirect_stdout(io.StringIO()):
        return require("traffic", "libsumo")


# ---------------------------------------------------------------------- libsumo ownership
# libsumo holds its one simulation in process-global C++ state: a second start would silently
# replace the first. The owner is tracked here so that this is an error (or, with backend "auto",
# a reason to use TraCI).
_libsumo_owner: str | None = None


def libsumo_in_use() -> bool:
    return _libsumo_owner is not None


def resolve_backend(backend: str, gui: bool) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if gui:
        if backend == "libsumo":
            raise ValueError("the SUMO GUI runs only through TraCI: pass backend='traci' (or 'auto') with gui=True")
        return "traci"
    if backend == "auto":
        return "traci" if libsumo_in_use() else "libsumo"
    if backend == "libsumo" and libsumo_in_use():
        raise SumoStartError(
            f"libsumo runs one simulation per process and one is already running ({_libsumo_owner}). "
            "Close that environment first, pass backend='traci' to run several simulations in one "
            "process, or use one process per environment (a subprocess vector env).")
    return backend


def check_network_loads(command: list[str]) -> None:
    """Load the command's network in a SUMO subprocess first: SUMO 1.28 crashes (segmentation
    fault) on some malformed network files, which would kill this process under libsumo."""
    for flag in ("--net-file", "-n"):
        if flag in command:
            net_file = command[command.index(flag) + 1]
            break
    else:
        return
    result = subprocess.run([command[0], "--net-file", net_file, "--end", "0", "--no-step-log", "true"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        cause = f"signal {-result.returncode}, a crash" if result.returncode < 0 else f"exit code {result.returncode}"
        raise SumoStartError(f"SUMO cannot load the network file {net_file} ({cause}); is it a valid .net.xml "
                             f"made by netconvert or netgenerate? SUMO said:\n{_tail(result.stderr + result.stdout)}")


# ---------------------------------------------------------------------- subscriptions
def _constants():
    import traci.constants as tc

    return tc


@dataclasses.dataclass(frozen=True)
class LaneState:
    """Per-lane values of the last simulation step, one entry per subscribed lane."""

    vehicles: np.ndarray        # vehicles on the lane
    halting: np.ndarray         # vehicles slower than 0.1 m/s (SUMO's queue definition)
    waiting_time: np.ndarray    # sum over the lane's vehicles of their current waiting time (s)
    mean_speed: np.ndarray      # m/s (the lane's speed limit when it is empty)
    # Only when subscribed with ``vehicle_ids=True``:
    vehicle_ids: tuple[tuple[str, ...], ...] | None = None  # the ids of the lane's vehicles
    co2_rate: np.ndarray | None = None  # mg in the last step of the lane's vehicles: mg/s at 1 s steps


@dataclasses.dataclass(frozen=True)
class Totals:
    """Cumulative vehicle counts since the simulation started (SUMO's own statistics)."""

    departed: int       # vehicles inserted into the network
    arrived: int        # vehicles that reached their destination
    running: int        # vehicles in the network now (teleporting ones included)
    waiting: int        # vehicles loaded but not yet inserted (insertion backlog)
    teleports: int      # teleports so far (a jammed vehicle jumps ahead; SUMO's time-to-teleport)
    mean_travel_time: float   # s, mean over arrived vehicles
    mean_time_loss: float     # s, mean delay over arrived vehicles (travel time minus free-flow time)
    mean_waiting_time: float  # s, mean time spent stopped, over arrived vehicles


_run_ids = itertools.count()


class Simulation:
    """One running SUMO simulation.

    ``args`` are SUMO options for the network, demand and time (from a scenario); the bridge adds
    the seed, the log file and its own options; SUMO's warnings (teleports, ...) go to the log only
    when ``warnings`` is true. :meth:`subscribe_lanes` chooses the lanes whose :class:`LaneState`
    is read; :meth:`subscribe_co2` the network's CO2 emission rate (of every vehicle).
    """

    def __init__(self, args: list[str], seed: int, backend: str = "auto",
                 gui: bool = False, step_length: float = 1.0,
                 warnings: bool = False):
        global _libsumo_owner

        self._api = self._process = self._workdir = self.backend = None
        self.backend = resolve_backend(backend, gui)
        self.step_length = float(step_length)
        self.lanes: list[str] = []
        self._lane_vehicle_ids = False
        self._programs: dict = {}  # (program id, phases) -> the api's program object
        self._workdir = tempfile.mkdtemp(prefix="envzoo-sumo-")
        self.log_file = os.path.join(self._workdir, "sumo.log")
        self._label = f"envzoo-{os.getpid()}-{next(_run_ids)}"
        self._command = [sumo_binary("sumo-gui" if gui else "sumo"), *args, "--step-length", str(self.step_length),
                         "--log", self.log_file, "--no-step-log", "true", "--duration-log.disable", "true",
                         # Every vehicle gets a trip-info device, for SUMO's trip statistics.
                         "--device.tripinfo.probability", "1",
                         "--no-warnings", str(not warnings).lower()]
        if gui:
            self._command += ["--start", "true", "--quit-on-end", "true"]
        command = self._command + ["--seed", str(int(seed))]
        try:
            if self.backend == "libsumo":
                self._start_libsumo(command)
                _libsumo_owner = self._label
            else:
                self._start_traci(command)
        except SumoError:
            self.close()
            raise

    def restart(self, seed: int) -> None:
        """Start the same scenario afresh with another seed, in the same SUMO instance (cheaper
        than a new start, above all with TraCI). Subscriptions must be made again."""
        command = self._command + ["--seed", str(int(seed))]
        try:
            self.api.load(command[1:])
        except Exception as error:  # noqa: BLE001
            if not self._is_sumo_error(error):
                raise
            raise SumoCrashError(self._failure("SUMO failed to restart", error, command)) from None
        self.lanes = []

    # -- starting
    def _start_libsumo(self, command):
        libsumo = _import_libsumo()
        check_network_loads(command)
        try:
            libsumo.start(command)
        except libsumo.TraCIException as error:
            try:
                libsumo.close()
            except libsumo.TraCIException:
                pass
            raise SumoStartError(self._failure("SUMO (libsumo) failed to start", error, command)) from None
        self._api = libsumo

    def _start_traci(self, command):
        traci = require("traffic", "traci")
        try:
            # TraCI prints " Retrying in 1 seconds" while SUMO opens its port: keep stdout clean.
            with contextlib.redirect_stdout(io.StringIO()):
                traci.start(command, label=self._label, stdout=subprocess.DEVNULL, doSwitch=False)
        except (traci.exceptions.FatalTraCIError, traci.exceptions.TraCIException, OSError) as error:
            raise SumoStartError(self._failure("SUMO (TraCI) failed to start", error, command)) from None
        self._api = traci.getConnection(self._label)
        # TraCI keeps the SUMO subprocess it started on the connection; close() waits for it
        # (or kills it) so that no SUMO process outlives the simulation.
        self._process = getattr(self._api, "_process", None)

    def _failure(self, what, error, command=None) -> str:
        message = str(error).strip()
        lines = [f"{what}: {message}" if message else what]
        exit_code = self._exit_code()
        if exit_code is not None:
            lines.append(f"SUMO's process exited with {f'signal {-exit_code}' if exit_code < 0 else f'code {exit_code}'}")
        lines += ["SUMO's log ends with:", _tail(self.read_log())]
        if command is not None:
            lines.append("command: " + " ".join(command))
        return "\n".join(lines)

    def _exit_code(self) -> int | None:
        """The TraCI subprocess' exit code once it has ended (waits briefly: it may be dying)."""
        if self._process is None:
            return None
        try:
            return self._process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def read_log(self) -> str:
        try:
            with open(self.log_file, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return ""

    def subscribe_co2(self) -> None:
        """Subscribe every vehicle's CO2 emission rate, for :meth:`co2_rate`: one context
        subscription of all vehicles within the network's diagonal of one junction (a third of
        the cost of subscribing every edge, internal ones included, for the same sum)."""
        tc = _constants()
        (x_min, y_min), (x_max, y_max) = self.api.simulation.getNetBoundary()
        self._co2_junction = self.api.junction.getIDList()[0]
        self.api.junction.subscribeContext(self._co2_junction, tc.CMD_GET_VEHICLE_VARIABLE,
                                           math.hypot(x_max - x_min, y_max - y_min) + 1.0, [tc.VAR_CO2EMISSION])

    def subscribe_lanes(self, lanes: list[str], vehicle_ids: bool = False) -> None:
        """Subscribe ``lanes`` for :meth:`lane_state` (values in this order); with
        ``vehicle_ids`` also each lane's vehicle ids and CO2 emission rate (one subscription per
        lane: a second one would replace the first)."""
        tc = _constants()
        variables = [tc.LAST_STEP_VEHICLE_NUMBER, tc.LAST_STEP_VEHICLE_HALTING_NUMBER, tc.VAR_WAITING_TIME,
                     tc.LAST_STEP_MEAN_SPEED]
        if vehicle_ids:
            variables += [tc.LAST_STEP_VEHICLE_ID_LIST, tc.VAR_CO2EMISSION]
        for lane in lanes:
            self.api.lane.subscribe(lane, variables)
        self.lanes = list(lanes)
        self._lane_vehicle_ids = vehicle_ids

    # -- running
    @property
    def api(self):
        """The libsumo module or the TraCI connection (for calls that have no subscription)."""
        if self._api is None:
            raise SumoError("the SUMO simulation is closed")
        return self._api

    def advance(self, seconds: float) -> None:
        """Simulate ``seconds`` in one call (subscriptions are evaluated once, at its end)."""
        api = self.api
        try:
            api.simulationStep(api.simulation.getTime() + seconds)
        except Exception as error:  # noqa: BLE001 - whatever SUMO raised, report it with its log
            if not self._is_sumo_error(error):
                raise
            raise SumoCrashError(self._failure("SUMO stopped during the simulation", error)) from None

    def co2_rate(self) -> float:
        """The network's CO2 emission rate in the last simulated second (mg/s, summed over every
        vehicle); needs :meth:`subscribe_co2`."""
        tc = _constants()
        vehicles = self.api.junction.getContextSubscriptionResults(self._co2_junction)
        return float(sum(values[tc.VAR_CO2EMISSION] for values in vehicles.values()))

    def _is_sumo_error(self, error) -> bool:
        import traci

        kinds = (traci.exceptions.FatalTraCIError, traci.exceptions.TraCIException, OSError)
        if self.backend == "libsumo":
            kinds += (self._api.TraCIException, self._api.FatalTraCIError)
        return isinstance(error, kinds)

    def lane_state(self) -> LaneState:
        tc = _constants()
        results = self.api.lane.getAllSubscriptionResults()
        row = operator.itemgetter(tc.LAST_STEP_VEHICLE_NUMBER, tc.LAST_STEP_VEHICLE_HALTING_NUMBER,
                                  tc.VAR_WAITING_TIME, tc.LAST_STEP_MEAN_SPEED)
        columns = np.array([row(results[lane]) for lane in self.lanes], dtype=np.float64).reshape(-1, 4).T
        state = LaneState(vehicles=columns[0], halting=columns[1], waiting_time=columns[2], mean_speed=columns[3])
        if not self._lane_vehicle_ids:
            return state
        return dataclasses.replace(
            state, vehicle_ids=tuple(tuple(results[lane][tc.LAST_STEP_VEHICLE_ID_LIST]) for lane in self.lanes),
            co2_rate=np.array([results[lane][tc.VAR_CO2EMISSION] for lane in self.lanes], dtype=np.float64))

    def departed_vehicles(self) -> tuple[str, ...]:
        """Vehicles inserted in the last simulation step."""
        return tuple(self.api.simulation.getDepartedIDList())

    def follow_vehicles(self, vehicles) -> None:
        """Subscribe ``vehicles`` for :meth:`vehicle_roads` (until they leave the network)."""
        tc = _constants()
        for vehicle in vehicles:
            self.api.vehicle.subscribe(vehicle, [tc.VAR_ROAD_ID])

    def vehicle_roads(self) -> dict[str, str]:
        """The edge (``:``-prefixed inside junctions) of every followed vehicle still running."""
        tc = _constants()
        return {vehicle: values[tc.VAR_ROAD_ID] for vehicle, values in self.api.vehicle.getAllSubscriptionResults().items()}

    def time(self) -> float:
        return float(self.api.simulation.getTime())

    def statistic(self, key: str) -> float:
        """One of SUMO's running statistics (``simulation.getParameter("", key)``), e.g.
        ``"stats.teleports.total"``; 0 when SUMO has none yet."""
        value = self.api.simulation.getParameter("", key)
        return float(value) if value not in ("", None) else 0.0

    def totals(self) -> Totals:
        stat = self.statistic
        return Totals(
            departed=int(stat("stats.vehicles.inserted")), arrived=int(stat("device.tripinfo.count")),
            running=int(stat("stats.vehicles.running")), waiting=int(stat("stats.vehicles.waiting")),
            teleports=int(stat("stats.teleports.total")),
            mean_travel_time=stat("device.tripinfo.duration"), mean_time_loss=stat("device.tripinfo.timeLoss"),
            mean_waiting_time=stat("device.tripinfo.waitingTime"))

    def install_program(self, traffic_light: str, program: str, phases: list[tuple[str, float]]) -> None:
        """Give ``traffic_light`` a static program of (signal state, seconds) phases; SUMO keeps
        it until the simulation restarts. (With ``warnings``, SUMO prints that such programs do not
        give every link a green: each covers one change, not a cycle.)"""
        trafficlight = self.api.trafficlight
        # Building the program's objects costs more than installing it; restarts reinstall the same ones.
        key = (program, tuple(phases))
        logic = self._programs.get(key)
        if logic is None:
            logic = self._programs[key] = trafficlight.Logic(
                program, _constants().TRAFFICLIGHT_TYPE_STATIC, 0,
                [trafficlight.Phase(duration, state) for state, duration in phases])
        trafficlight.setProgramLogic(traffic_light, logic)

    def run_program(self, traffic_light: str, program: str) -> None:
        """Start an installed program of ``traffic_light`` from its first phase, now."""
        self.api.trafficlight.setProgram(traffic_light, program)
        self.api.trafficlight.setPhase(traffic_light, 0)

    def signal_state(self, traffic_light: str) -> str:
        return self.api.trafficlight.getRedYellowGreenState(traffic_light)

    # -- closing
    def close(self) -> None:
        """Stop SUMO; no SUMO process is left behind. Safe to call twice."""
        global _libsumo_owner

        api, self._api = self._api, None
        if api is not None:
            try:
                api.close()
            except Exception:  # noqa: BLE001 - SUMO may already be dead; closing must not fail
                pass
        if self.backend == "libsumo" and _libsumo_owner == self._label:
            _libsumo_owner = None
        if self._process is not None:
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._workdir is not None:
            shutil.rmtree(self._workdir, ignore_errors=True)
            self._workdir = None

    @property
    def process_id(self) -> int | None:
        """The TraCI subprocess' id (None with libsumo, which runs in this process)."""
        return self._process.pid if self._process is not None else None

    def __del__(self):
        self.close()
