"""Vehicle routing: TSP, CVRP and the orienteering problem built one node at a time (after RLOR and RL4CO)."""
