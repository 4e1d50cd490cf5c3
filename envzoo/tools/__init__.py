"""Tooling over registered ids, above the registry: episode rollouts (:mod:`.rollout`),
throughput (:mod:`.throughput`), plots and animations (:mod:`.plots`, :mod:`.animation`), reward
scales (:mod:`.reward_scale`), Minari datasets (:mod:`.datasets`), the warm-up of compiled
kernels (:mod:`.warmup`), the docs tables (:mod:`.docs_tables`), the new-domain scaffold
(:mod:`.scaffold`) and the course's exercise checks and lesson runner (:mod:`.course`). Nothing
below the registry imports from here."""
