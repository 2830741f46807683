"""Benchmarks that print figures (never timed tests): `python -m bench.oracle`, `bench.harness`, `bench.report`, `bench.proxy`.

They sit at the top so they may use every package; nothing imports them.
"""
