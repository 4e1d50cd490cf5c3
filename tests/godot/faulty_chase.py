"""Chase (``envzoo/godot/chase.py``) failing on cue, for the bridge's tests: run as that game is,
with ``--fault=KIND[:STEP]`` besides its arguments.

``die:N`` exits at step N, ``malformed:N`` answers step N with bytes that are not JSON (then
stops answering), ``hang:N`` stops answering at step N, ``version`` announces protocol major
version 1, ``no_connect`` never connects. Like the game it imports only the standard library; it
loads the game by path, so it runs the checkout's game whichever envzoo is installed.
"""

from __future__ import annotations

import importlib.util
import struct
import sys
import time
from pathlib import Path

GAME = Path(__file__).resolve().parents[2] / "envzoo" / "godot" / "chase.py"
_spec = importlib.util.spec_from_file_location("chase", GAME)
chase = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(chase)

#: Long enough for any test to give up first; the bridge then ends the process.
FOREVER_S = 3600


class FaultyChaseClient(chase.ChaseClient):
    def __init__(self, game, fault: str, at_step: int | None):
        super().__init__(game)
        self.fault, self.at_step, self.steps = fault, at_step, 0

    def env_info(self) -> dict:
        reply = super().env_info()
        if self.fault == "version":
            reply["major_version"] = "1"
        return reply

    def step(self, message: dict) -> dict:
        self.steps += 1
        if self.steps == self.at_step:
            if self.fault == "die":
                sys.exit(3)
            if self.fault == "malformed":
                self.connection.sendall(struct.pack("<I", 9) + b"not json!")
            time.sleep(FOREVER_S)  # hang; or, after a malformed answer, answer nothing more
        return super().step(message)


def main(argv: list[str]) -> int:
    arguments = chase.parse_arguments(argv)
    fault, _, at_step = arguments.get("fault", "").partition(":")
    if fault == "no_connect":
        time.sleep(FOREVER_S)
    client = FaultyChaseClient(chase.game_from_arguments(arguments), fault, int(at_step) if at_step else None)
    return client.play(chase.connect(int(arguments.get("port", 11008))))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
