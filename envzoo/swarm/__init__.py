"""The swarm domain: robots with types on [0, 1] interacting through a graphon W(x, y), each
observing its graphon mean field exactly or from κ robots drawn by interaction strength (after
GMFS), in flocking, rendezvous and coverage scenarios."""
