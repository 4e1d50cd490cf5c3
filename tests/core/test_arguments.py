"""Argument names checked against a make_params signature, through forwarders."""

from dataclasses import dataclass

import pytest

from envzoo.core.arguments import accepted_arguments, check_arguments, forwards_to
from envzoo.core.errors import UnknownArgumentError


@dataclass(frozen=True)
class Settings:
    rate: float = 1.0
    capacity: int = 10


@forwards_to(Settings)
def make_settings(**kwargs):
    return Settings(**kwargs)


@forwards_to(make_settings)
def make_outer(workload="diurnal", **kwargs):
    return workload, make_settings(**kwargs)


def open_ended(**kwargs):
    return kwargs


def test_forwarded_arguments_are_accepted_in_order():
    assert accepted_arguments(make_outer) == ["workload", "rate", "capacity"]
    check_arguments(make_outer, ["capacity", "workload"], "Outer")


def test_an_unknown_name_is_named_with_its_close_match_and_the_valid_ones():
    with pytest.raises(UnknownArgumentError) as raised:
        check_arguments(make_outer, ["workload", "capacty"], "OuterEnv", face_arguments=("render_mode",))
    assert str(raised.value) == ("OuterEnv has no argument 'capacty' (did you mean 'capacity'? its arguments are: "
                                 "workload, rate, capacity, render_mode)")
    assert isinstance(raised.value, ValueError)


def test_a_misspelt_argument_reaches_the_user_once():
    # Gymnasium's make re-raised a TypeError as a copy chained to it: the message printed twice.
    import gymnasium

    import envzoo  # noqa: F401 (registers the ids)

    with pytest.raises(UnknownArgumentError) as raised:
        gymnasium.make("envzoo/Trading-v1", lookbak=5)
    message = str(raised.value)
    assert message.startswith("TradingEnv has no argument 'lookbak' (did you mean 'lookback'?")
    assert raised.value.__cause__ is None and raised.value.__context__ is None
    assert "was raised from the environment creator" not in message


def test_a_name_with_no_close_match_lists_the_valid_ones_only():
    with pytest.raises(UnknownArgumentError, match=r"has no argument 'zzz' \(its arguments are: workload"):
        check_arguments(make_outer, ["zzz"], "OuterEnv")


def test_kwargs_that_go_nowhere_declared_are_left_to_the_function():
    check_arguments(open_ended, ["anything"], "OpenEnv")
