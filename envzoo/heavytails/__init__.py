"""Finite-horizon tabular MDPs with heavy-tailed rewards (a finite (1+v)-th moment only): exact
optimal values by backward induction, a regret meter, and learners with robust mean estimators
under differential privacy."""
