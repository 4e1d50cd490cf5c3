"""The crafter domain: Crafter's open world (``Crafter-v1``) and several players sharing one
(``MultiCrafter-v1``), on one batched, compiled simulator of Crafter's rules."""
