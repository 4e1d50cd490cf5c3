# The rules of Chase (the same rules as envzoo/godot/chase.py, number for number): agents
# and targets on a grid x grid board; each step a live agent moves one cell (0 stay, 1 +x, 2 -x,
# 3 +y, 4 -y; clamped), action_repeat times, catching every target on its cell (+1; the target
# reappears on a random cell); each step costs step_penalty. An agent terminates after
# catches_to_win catches and is truncated after episode_steps steps, then stands still until reset.
extends Node

const MOVES = [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]]
const LCG_MULTIPLIER = 1664525
const LCG_INCREMENT = 1013904223
const LCG_MODULUS = 4294967296

var n_agents = 1
var n_targets = 1
var grid = 12
var catches_to_win = 5
var episode_steps = 100
var step_penalty = 0.01
var action_repeat = 1

var state = 0
var agents = []
var targets = []
var caught = []
var steps = []
var done = []
var truncated = []


func configure(arguments):
	n_agents = int(arguments.get("n_agents", "1"))
	n_targets = int(arguments.get("n_targets", str(n_agents)))
	grid = int(arguments.get("grid", "12"))
	action_repeat = int(arguments.get("action_repeat", "1"))
	# The generator is seeded once, at launch (like the plugin's seed()); resets continue it.
	state = int(arguments.get("env_seed", "0")) % LCG_MODULUS
	reset_game()


func random_cell():
	state = (LCG_MULTIPLIER * state + LCG_INCREMENT) % LCG_MODULUS
	return (state >> 16) % grid


func reset_game():
	agents = []
	targets = []
	for _i in range(n_agents):
		agents.append([random_cell(), random_cell()])
	for _j in range(n_targets):
		targets.append([random_cell(), random_cell()])
	caught = []
	steps = []
	done = []
	truncated = []
	for _i in range(n_agents):
		caught.append(0)
		steps.append(0)
		done.append(false)
		truncated.append(false)


func step_game(moves):
	var rewards = []
	for i in range(n_agents):
		rewards.append(0.0)
		if done[i]:
			continue
		rewards[i] = -step_penalty
		var move = MOVES[moves[i]]
		var agent = agents[i]
		for _r in range(action_repeat):
			agent[0] = int(clamp(agent[0] + move[0], 0, grid - 1))
			agent[1] = int(clamp(agent[1] + move[1], 0, grid - 1))
			for target in targets:
				if target[0] == agent[0] and target[1] == agent[1]:
					rewards[i] += 1.0
					caught[i] += 1
					target[0] = random_cell()
					target[1] = random_cell()
		steps[i] += 1
		if caught[i] >= catches_to_win:
			done[i] = true
		elif steps[i] >= episode_steps:
			done[i] = true
			truncated[i] = true
	return rewards


func observation(i):
	var scale = float(grid - 1)
	var x = agents[i][0]
	var y = agents[i][1]
	var values = [2.0 * x / scale - 1.0, 2.0 * y / scale - 1.0]
	for target in targets:
		values.append((target[0] - x) / scale)
		values.append((target[1] - y) / scale)
	return {"obs": values}


func info(i):
	if done[i]:
		return {"caught": caught[i], "steps": steps[i]}
	return {}


func observation_space():
	return {"obs": {"space": "box", "size": [2 + 2 * n_targets], "low": -1.0, "high": 1.0}}


func action_space():
	return {"move": {"action_type": "discrete", "size": MOVES.size()}}
