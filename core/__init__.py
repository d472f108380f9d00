"""allreduce-lab core: topologies, routing, workload DAGs, the round engine, schedulers, bounds."""
