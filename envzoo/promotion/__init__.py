"""The promotion domain: cash bonuses that keep a cohort of app users active under a budget (after
BCRLSP, arXiv 2207.07790), with offline datasets, offline RL and off-policy evaluation."""
