"""The crafter domain: Crafter's open world (``Crafter-v0``) and several players sharing one
(``MultiCrafter-v0``), on one batched, compiled simulator of Crafter's rules."""
