"""Workload scheduling: tasks arriving at random, each routed on arrival to one of several
heterogeneous machines that serve their queues first-come first-served; the queueing-theory
answers (M/M/1, random routing, utilization) are the checks."""
