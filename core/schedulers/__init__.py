"""The scheduling functions, one module per family of methods.

Each function takes the workload DAG the method registry (`core.methods`) built for it, the
`ScheduleConfig` and an optional progress callback, and returns its rounds (or a `Plan`).
The registry names them, builds their DAG and checks what they return.
"""
