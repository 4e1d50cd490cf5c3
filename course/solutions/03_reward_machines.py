"""Lesson 03 answer key (instructors)."""

import tempfile

from envzoo.rewardmachines.params import make_params
from envzoo.rewardmachines.planning import ProductMDP, finite_horizon_values, start_value

MAIL_COFFEE_OFFICE = """
# The mail, then a coffee, then the office.
initial to_mail
accepting done
rejecting broken
to_mail -> broken on plant
to_mail -> to_coffee on mail
to_coffee -> broken on plant
to_coffee -> to_office on coffee
to_office -> broken on plant
to_office -> done on office reward 1
"""

DEADLINE = """clocks x
initial fetch
accepting served
rejecting broken
fetch -> broken on plant
fetch -> carry on coffee reset x
carry -> broken on plant
carry -> served on office if x <= {} reward 1
carry -> broken on office
"""


def best_100_steps(text):
    with tempfile.NamedTemporaryFile("w", suffix=".trm") as file:
        file.write(text)
        file.flush()
        mdp = ProductMDP(make_params(world="office", spec=file.name, start="fixed"))
        return start_value(mdp, finite_horizon_values(mdp, 100))


TIGHTEST_DEADLINE = next(d for d in range(1, 100) if best_100_steps(DEADLINE.format(d)) > 1 - 1e-9)
