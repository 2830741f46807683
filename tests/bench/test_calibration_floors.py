"""The calibration benchmark's floor lines: each sums only its own kinds of process."""

from __future__ import annotations

from bench.calibration import FLOORS, floors
from bench.cpu_by_kind import CONTAINERS, KINDS, CpuByKind, CpuShare


def test_the_third_party_floor_leaves_out_the_product_and_the_harness() -> None:
    shares = {
        "Chromium": 100.0,
        "Playwright's driver (node)": 20.0,
        "Docker engine": 6.0,
        CONTAINERS: 4.0,
        "product controllers": 40.0,
        "product runners": 20.0,
        "harness cell workers": 30.0,
    }
    cpu = CpuByKind(
        busy_s=250.0,
        every_s=0.5,
        kinds=[CpuShare(kind=kind, cpu_s=cpu_s, processes=1) for kind, cpu_s in shares.items()],
        unseen_s=30.0,
    )
    lines = floors(cpu, cells=10, cores=2).splitlines()
    assert lines[0] == "  per story cell: 25.00 CPU-s in all"
    assert lines[1] == "  the browser, product and engine alone: 17.00 CPU-s per story cell, 85 s on 2 cores"
    assert lines[2].endswith("alone: 13.00 CPU-s per story cell, 65 s on 2 cores")


def test_every_floor_names_only_kinds_the_sampler_files() -> None:
    """A kind renamed in bench.cpu_by_kind would otherwise drop out of a floor without a word."""
    filed = {kind for kind, _ in KINDS} | {CONTAINERS}
    assert all(kinds <= filed for kinds, _ in FLOORS)
