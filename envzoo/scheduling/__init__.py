"""Workload scheduling: tasks arriving at random, each routed on arrival to one of several
heterogeneous machines that serve their queues first-come first-served (``Scheduling-v0``), or
packed by their CPU and memory demands onto machines that switch on and off (``cluster/``,
``SchedulingCluster-v0``); the queueing-theory answers (M/M/1, random routing, Cobham's priority
queue, utilization) are the checks."""
