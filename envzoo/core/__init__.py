"""What several domains share: errors, optional-extra checks, seeding, counter-based random
numbers, action validation, histograms, policies and episode rollouts."""
