"""The timed-reward-machine decision problem over the simulator: an action is a move; the
observation is the product state (cell, machine state, clocks) or, on the non-Markovian face,
the cell alone; the reward is the machine's."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envzoo.core.contract import Task, Transition
from envzoo.core.rng import keys_from
from envzoo.rewardmachines import picture
from envzoo.rewardmachines.params import TRMParams, make_params
from envzoo.rewardmachines.realtime import delay_choice_names
from envzoo.rewardmachines.sim import TRMSim
from envzoo.rewardmachines.worlds import ACTION_NAMES


class TRMTask(Task):
    """B agents with their machines (the product face; see ``OfficeTRM-v0``'s docstring)."""

    make_params = staticmethod(make_params)

    def __init__(self, params: TRMParams, batch: int):
        super().__init__(params, batch)
        self.sim = TRMSim(params, batch)
        world, machine = params.world, params.tables
        self.observation_space = spaces.MultiDiscrete(self.observation_sizes(world, machine))
        self.action_space = spaces.Discrete(len(ACTION_NAMES) * machine.delay_choices)
        self.action_hint = "Actions: " + ", ".join(f"{i} {name}" for i, name in enumerate(self.action_names())) + "."

    def action_names(self) -> list[str]:
        """The actions' names by index: the moves, or in real time each move with each delay choice."""
        if self.params.semantics == "digital":
            return list(ACTION_NAMES)
        choices = delay_choice_names(len(self.params.machine.clocks))
        return [f"{move} with delay {choice}" for move in ACTION_NAMES for choice in choices]

    @staticmethod
    def observation_sizes(world, machine) -> list[int]:
        """The observation's columns: row, column, machine state, each clock (its capped value
        in digital time, its region in real time)."""
        return [world.height, world.width, len(machine.machine.states), *machine.clock_sizes]

    def reset(self, rows, generators, options) -> dict:
        self.sim.reset(rows, keys_from(generators))
        return {}

    def step(self, actions) -> Transition:
        reward, terminated = self.sim.step(actions)
        return Transition(reward=reward, terminated=terminated, truncated=np.zeros(self.batch, dtype=bool), cost=None)

    def step_single(self, action, vector_reward: bool = False) -> tuple:
        """One step of the single env in plain Python (the batch's step, row 0, the same numbers)."""
        sim, machine = self.sim, self.params.tables
        reward, terminated = sim.step_one(int(action))
        config = int(sim.config[0])
        accepting = bool(machine.accepting[config])
        metrics = {"success": float(accepting), "failure": float(terminated and not accepting),
                   "episode_return": float(sim.total[0]), "steps": float(sim.steps[0])}
        return self.observe()[0], reward, terminated, False, {"metrics": metrics}

    def observe(self) -> np.ndarray:
        """(row, column, machine state, clock values...) of every row, int64."""
        sim, machine = self.sim, self.params.tables
        rows, cols = np.divmod(sim.cell, self.params.world.width)
        return np.column_stack([rows, cols, machine.state_of[sim.config], machine.clocks_of[sim.config]])

    def metrics(self) -> dict[str, np.ndarray]:
        sim, machine = self.sim, self.params.tables
        return {"success": machine.accepting[sim.config].astype(np.float64),
                "failure": (machine.terminal[sim.config] & ~machine.accepting[sim.config]).astype(np.float64),
                "episode_return": sim.total.copy(), "steps": sim.steps.astype(np.float64)}

    def render_text(self, row: int = 0) -> str:
        sim, world, machine = self.sim, self.params.world, self.params.tables
        letters = {i: name[0] for i, name in enumerate(world.labels)}
        agent_row, agent_col = divmod(int(sim.cell[row]), world.width)
        lines = []
        for r in range(world.height):
            cells = ["#" if not world.free[r, c] else letters.get(int(world.label[r, c]), ".")
                     for c in range(world.width)]
            if r == agent_row:
                cells[agent_col] = "@"
            lines.append("".join(cells))
        config = int(sim.config[row])
        clocks = machine.clock_text(config)
        state = machine.machine.states[machine.state_of[config]]
        return "\n".join(lines) + f"\nstep {sim.steps[row]} machine {state} {clocks} return {sim.total[row]:.2f}\n"

    def snapshot(self, row: int = 0) -> dict:
        sim, machine = self.sim, self.params.tables
        config = int(sim.config[row])
        return {"cell": divmod(int(sim.cell[row]), self.params.world.width), "state": int(machine.state_of[config]),
                "clocks": tuple(int(v) for v in machine.clocks_of[config]), "clock_text": machine.clock_text(config),
                "total": float(sim.total[row]), "steps": int(sim.steps[row])}

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params, hidden=False)


class HiddenMachineTask(TRMTask):
    """The non-Markovian face: the observation is the agent's cell only, the machine is hidden
    (the agent must remember what it has done and for how long)."""

    @staticmethod
    def observation_sizes(world, machine) -> list[int]:
        return [world.height, world.width]

    def observe(self) -> np.ndarray:
        """(row, column) of every row, int64."""
        return np.column_stack(np.divmod(self.sim.cell, self.params.world.width))

    def draw(self, canvas, snapshots) -> None:
        picture.draw(canvas, snapshots, self.params, hidden=True)
