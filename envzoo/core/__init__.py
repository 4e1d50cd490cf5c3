"""What every domain shares: the domain contract (:mod:`.contract`) and the shared faces over it
(:mod:`.env`, :mod:`.vector`, :mod:`.parallel`), seeding and counter-based random numbers,
action and argument checks, errors, optional-extra checks, the policy interface and episode
rollouts. Nothing domain-specific lives here."""
