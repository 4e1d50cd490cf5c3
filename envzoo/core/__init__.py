"""What every domain shares, and nothing above it: the domain contract (:mod:`.contract`) and
the shared faces over it (:mod:`.env`, :mod:`.vector`, :mod:`.parallel`,
:mod:`.subprocess_vector`, :mod:`.scaled_reward`), seeding (:mod:`.seeding`) and counter-based
random numbers (:mod:`.rng`), compiled-kernel helpers (:mod:`.compiled`, :mod:`.reproducible`),
drawing (:mod:`.draw`), checks of actions, arguments and spaces (:mod:`.checks`,
:mod:`.arguments`, :mod:`.spaces`), errors and optional extras (:mod:`.errors`, :mod:`.extras`),
the policy interface (:mod:`.policy`), users' files and the disk cache (:mod:`.user_files`,
:mod:`.disk_cache`), and the boundary model-written code runs behind (:mod:`.sandbox`).

It names no domain and imports nothing outside itself (``tests/test_layers.py``). The layers
above it: the JAX kit (:mod:`envzoo.jax`) and offline RL (:mod:`envzoo.offline`), the finance
domains' shared package (:mod:`envzoo.finance`), the domains, the registry
(:mod:`envzoo.registry`), then the tooling over registered ids (:mod:`envzoo.tools`), training
(:mod:`envzoo.train`), the leaderboard and the command line."""
