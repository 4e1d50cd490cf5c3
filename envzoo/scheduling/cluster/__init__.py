"""Cluster scheduling: tasks with CPU and memory demands, durations and priorities wait in one
queue; a scheduler packs them onto heterogeneous machines that run many at once, and switches
machines on and off (``SchedulingCluster-v0``, ``SchedulingClusterMO-v0``). Priority,
shortest-job-first, first-fit, best-fit, round-robin and dynamic resource allocation are its
reference rules; M/M/1 and Cobham's priority queue are its checks."""
