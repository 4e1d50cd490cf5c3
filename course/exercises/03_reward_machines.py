"""Lesson 03 exercises: fill in each answer, then run `envzoo course check 03` from the
repository's root (or `python -m pytest course/test_exercises.py -k 03`)."""

#: Exercise 1. A reward machine (a string in the TRM format) for the office world: fetch the
#: mail, then a coffee, then go to the office, which pays 1 and ends the episode; stepping on a
#: plant at any point ends it with nothing. No clocks, no step rewards.
MAIL_COFFEE_OFFICE = None

#: Exercise 2. The machine below pays 1 when the coffee reaches the office within D steps of
#: being picked up (a late arrival ends the episode with nothing). The smallest D for which the
#: best 100-step reward from the fixed start (`start="fixed"`) is 1 (an int).
#:
#:     clocks x
#:     initial fetch
#:     accepting served
#:     rejecting broken
#:     fetch -> broken on plant
#:     fetch -> carry on coffee reset x
#:     carry -> broken on plant
#:     carry -> served on office if x <= D reward 1
#:     carry -> broken on office
TIGHTEST_DEADLINE = None
