"""The TRM text format: every shipped specification parses, the semantics of a step, and each
kind of fault is an error naming the line and what is wrong."""

import numpy as np
import pytest

from envzoo.rewardmachines.machine import (CompiledMachine, TRMFormatError, load_trm, parse_trm,
                                           shipped_specs)
from envzoo.rewardmachines.worlds import MAPS, make_world

GOOD = """\
# Coffee within 3 steps.
clocks x y
initial a
accepting done
rejecting late
step a -0.5
a -> b on coffee reset x
b -> late on any if x > 3
b -> done on office if x <= 3 and y >= 2 reward 2
b -> done on office reward 1
"""


def test_a_written_machine_reads_back():
    machine = parse_trm(GOOD, "good.trm")
    assert machine.clocks == ("x", "y") and machine.states == ("a", "b", "late", "done")
    assert machine.initial == "a" and machine.accepting == {"done"} and machine.rejecting == {"late"}
    assert machine.step_rewards == {"a": -0.5} and len(machine.edges) == 4
    assert machine.edges[2].guard[1].op == ">=" and machine.edges[2].line == 9
    assert machine.clock_caps() == (4, 3)
    assert machine.description == "Coffee within 3 steps."


def test_a_step_advances_clocks_fires_the_first_matching_edge_and_resets_after_the_guard():
    machine = parse_trm(GOOD)
    assert machine.fire("a", (0, 0), None) == ("a", (1, 1), -0.5)      # no edge: the step reward
    assert machine.fire("a", (5, 5), "coffee") == ("b", (0, 6), 0.0)    # x reset, y runs on
    assert machine.fire("b", (2, 1), "office") == ("done", (3, 2), 2.0)  # x = 3 <= 3, y = 2 >= 2
    assert machine.fire("b", (2, 0), "office") == ("done", (3, 1), 1.0)  # y = 1: the next edge
    assert machine.fire("b", (3, 9), "office") == ("late", (4, 10), 0.0)  # the deadline edge comes first
    assert machine.fire("b", (0, 0), "mail") == ("b", (1, 1), 0.0)


def test_a_reward_falling_with_a_clock_reads_it_before_the_reset_and_never_pays_below_0():
    machine = parse_trm("clocks x\ninitial a\naccepting b\na -> b on coffee reset x reward 10 -0.5*x\n")
    edge = machine.edges[0]
    assert (edge.reward, edge.slope, edge.reward_clock) == (10.0, 0.5, "x")
    assert machine.fire("a", (3,), "coffee") == ("b", (0,), 8.0)
    assert machine.fire("a", (30,), "coffee") == ("b", (0,), 0.0)
    assert machine.clock_caps() == (21,)   # pays 0 from x = 20 on


@pytest.mark.parametrize("world", sorted(MAPS))
def test_every_shipped_specification_parses_and_compiles_over_its_world(world):
    specs = shipped_specs(world)
    assert len(specs) >= 3
    for spec in specs:
        machine = load_trm(spec, world)
        assert machine.description, f"{world}/{spec} has no description comment"
        CompiledMachine(machine, make_world(world).labels)


BAD = [
    ("initial a\naccepting b\na -> b on coffee on mail\n", 3, "'on' is not expected"),
    ("initial a\naccepting b\na -> b on coffee if x < 3\n", 3, "unknown clock 'x'"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee if x =< 3\n", 4, "unknown comparison '=<'"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee if x <= 2.5\n", 4, "integer"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee reward lots\n", 4, "must be a number"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee reward 10 + 0.5*x\n", 4, "'A - B\\*CLOCK'"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee reward 10 - 0.5*y\n", 4, "reward reads the unknown clock 'y'"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee reward 10 - 0*x\n", 4, "A and B must be > 0"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee reset y\n", 4, "unknown clock 'y'"),
    ("clocks x x\n", 1, "declared twice"),
    ("initial a\ninitial b\n", 2, "declared twice"),
    ("initial a\naccepting b\nwhen a -> b\n", 3, "unknown statement 'when'"),
    ("initial a\naccepting b\na -> b\n", 3, "needs its event"),
    ("initial a\naccepting b\na -> b on coffee if x\n", 3, "'CLOCK OP INTEGER', got 'x'"),
    ("clocks x\ninitial a\naccepting b\na -> b on coffee if x <\n", 4, "'CLOCK OP INTEGER'"),
    ("initial a\naccepting b\nstep a\n", 3, "'step' takes a state and a number"),
]


@pytest.mark.parametrize("text, line, what", BAD)
def test_a_fault_names_its_line_and_what_is_wrong(text, line, what):
    with pytest.raises(TRMFormatError, match=f"bad.trm: line {line}: .*{what}"):
        parse_trm(text, "bad.trm")


@pytest.mark.parametrize("text, what", [
    ("accepting b\na -> b on coffee\n", "no 'initial STATE' line"),
    ("initial a\naccepting b\n", "no edges"),
    ("initial a\na -> b on coffee\n", "no 'accepting STATE'"),
    ("initial a\naccepting b\nrejecting b\na -> b on coffee\n", "both accepting and rejecting"),
    ("initial a\naccepting dnoe\na -> done on coffee\n", "accepting state 'dnoe' is on no edge"),
    ("initial a\naccepting a\na -> b on coffee\n", "initial state 'a' is terminal"),
])
def test_a_faulty_whole_is_named(text, what):
    with pytest.raises(TRMFormatError, match=what):
        parse_trm(text, "bad.trm")


def test_an_edge_out_of_a_terminal_state_names_its_line():
    with pytest.raises(TRMFormatError, match="line 4: the edge leaves the terminal state 'b'"):
        parse_trm("initial a\naccepting b\na -> b on coffee\nb -> a on mail\n", "bad.trm")


def test_an_event_the_world_has_not_names_the_line_and_the_labels():
    machine = parse_trm("initial a\naccepting b\n\na -> b on cofee\n", "typo.trm")
    with pytest.raises(TRMFormatError, match=r"typo: line 4: the event 'cofee' is no label .*'coffee'"):
        CompiledMachine(machine, make_world("office").labels)


def test_a_users_file_is_read_and_a_missing_one_named(tmp_path):
    path = tmp_path / "mine.trm"
    path.write_text("initial a\naccepting b\na -> b on mail reward 3\n")
    assert load_trm(str(path), "office").edges[0].reward == 3.0
    with pytest.raises(FileNotFoundError, match="nothere.trm"):
        load_trm(str(tmp_path / "nothere.trm"), "office")
    with pytest.raises(ValueError, match="neither a specification of the 'office' world"):
        load_trm("coffee-then-mial", "office")


def test_the_machine_graph_is_a_png_with_every_state(tmp_path):
    from PIL import Image

    from envzoo.rewardmachines.picture import machine_graph

    path = tmp_path / "machine.png"
    machine_graph(load_trm("coffee-then-mail", "office"), str(path))
    image = Image.open(path)
    assert image.format == "PNG" and image.width > image.height > 200
    # Five states: five discs of the three state colours (light blue, green, red) are drawn.
    pixels = set(map(tuple, np.asarray(image.convert("RGB")).reshape(-1, 3)[::7]))
    assert {(0xdd, 0xe6, 0xf5), (0xb7, 0xe4, 0xb0), (0xf4, 0xb6, 0xb6)} <= pixels
