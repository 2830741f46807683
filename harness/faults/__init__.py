"""Evidence and checks for the faults stories inject: a controller restart, Stop, late feedback to a delegate.

Each module holds pure functions over the driver's records (snapshots a
reviewer can read, and the named checks decided on them), so the journey
only orchestrates and the rules are unit-testable without a product.
"""
