"""Benchmarks that print figures (never timed tests): `python -m bench.oracle`, `bench.harness`, `bench.report`,
`bench.parallel`, `bench.proxy`, `bench.soak`.

They sit at the top so they may use every package; nothing imports them.
"""
