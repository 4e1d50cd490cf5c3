"""Offline reinforcement learning from logged transitions (:mod:`.learners`: fitted Q iteration,
conservative Q-learning, fitted Q evaluation, in PyTorch) and off-policy evaluation
(:mod:`.ope`: IPS, SNIPS, doubly robust). A kit like :mod:`envzoo.jax`: it imports only
:mod:`envzoo.core`, so a domain (promotion) may build on it."""
