# A minimal training-mode sync node for the Godot RL Agents protocol 0.7 (envzoo's own, for the
# Chase game): connect to the Python server at 127.0.0.1:--port, read the handshake, answer
# env_info, then answer reset / action / call messages until close. Every message is a 4-byte
# little-endian length + UTF-8 JSON (StreamPeer's put_utf8_string / get_utf8_string framing).
extends Node

const MAJOR_VERSION = "0"
const MINOR_VERSION = "7"
const CONNECT_TIMEOUT_MSEC = 10000

var stream = StreamPeerTCP.new()
var game = null


func _ready():
	var arguments = read_arguments()
	game = $Chase
	game.configure(arguments)
	# speedup scales game time, as the plugin does; Chase advances per message, not per frame.
	var speedup = float(arguments.get("speedup", "1"))
	Engine.iterations_per_second = int(60 * speedup)
	Engine.time_scale = speedup
	if not connect_to_server(int(arguments.get("port", "11008"))):
		printerr("could not connect to the Python server on port ", arguments.get("port", "11008"))
		get_tree().quit(1)
		return
	var handshake = receive()
	if handshake == null or handshake.get("type") != "handshake":
		printerr("expected a handshake, got ", handshake)
		get_tree().quit(1)
		return
	if handshake.get("major_version") != MAJOR_VERSION:
		printerr("WARNING: major version mismatch ", handshake.get("major_version"), " ", MAJOR_VERSION)


# Options as the plugin reads them: --key=value, or --flag (an empty value).
func read_arguments():
	var arguments = {}
	for argument in OS.get_cmdline_args():
		var parts = argument.split("=", true, 1)
		var value = ""
		if parts.size() > 1:
			value = parts[1]
		arguments[parts[0].lstrip("-")] = value
	return arguments


func connect_to_server(port):
	var started = OS.get_ticks_msec()
	while OS.get_ticks_msec() - started < CONNECT_TIMEOUT_MSEC:
		stream = StreamPeerTCP.new()
		if stream.connect_to_host("127.0.0.1", port) == OK:
			while stream.get_status() == StreamPeerTCP.STATUS_CONNECTING:
				OS.delay_usec(100)
			if stream.get_status() == StreamPeerTCP.STATUS_CONNECTED:
				stream.set_no_delay(true)
				return true
		OS.delay_msec(10)
	return false


func send(message):
	stream.put_utf8_string(to_json(message))


# The next message, or null when the server has gone (a blocking read).
func receive():
	if stream.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		return null
	var text = stream.get_utf8_string()
	if stream.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		return null
	return parse_json(text)


func observations():
	var obs = []
	for i in range(game.n_agents):
		obs.append(game.observation(i))
	return obs


func infos():
	var info = []
	for i in range(game.n_agents):
		info.append(game.info(i))
	return info


# Chase advances per message, not per frame: the first frame answers messages until close (a
# frame per message would cap the game at the engine's frame pacing, about 140 steps/s).
func _process(_delta):
	set_process(false)
	var message = receive()
	while message != null and message.get("type") != "close":
		handle(message)
		message = receive()
	stream.disconnect_from_host()
	get_tree().quit()


func handle(message):
	var kind = message.get("type")
	if kind == "env_info":
		var observation_space = []
		var action_space = []
		var names = []
		for _i in range(game.n_agents):
			observation_space.append(game.observation_space())
			action_space.append(game.action_space())
			names.append("shared_policy")
		send({"type": "env_info", "n_agents": game.n_agents, "observation_space": observation_space,
			"action_space": action_space, "agent_policy_names": names,
			"major_version": MAJOR_VERSION, "minor_version": MINOR_VERSION})
	elif kind == "reset":
		game.reset_game()
		send({"type": "reset", "obs": observations(), "info": infos()})
	elif kind == "action":
		var moves = []
		for action in message["action"]:
			moves.append(int(action["move"]))
		var rewards = game.step_game(moves)
		send({"type": "step", "obs": observations(), "reward": rewards, "done": game.done.duplicate(),
			"truncated": game.truncated.duplicate(), "info": infos()})
	elif kind == "call":
		var returns = []
		for i in range(game.n_agents):
			returns.append(game.get(message["method"])[i])
		send({"type": "call", "returns": returns})
	else:
		printerr("message of unknown type: ", kind)
