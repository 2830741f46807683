"""Product-neutral rules over what every driver reports: the lifecycle of tasks and runs, invariants, metering, the UI."""
