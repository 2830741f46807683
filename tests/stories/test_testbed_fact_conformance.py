"""The testbed's driver delivers what it declares: every fact it declares that build-revise reaches is carried by
the package's records with its provenance, and no fact it does not declare is carried as the product's, on each
of its environments (real product, browser)."""

from __future__ import annotations

from pathlib import Path

from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, declaration_gaps, harness_run, ids

CELLS = [
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-scripted.scripted.container.build-revise",
]


@marked(*PLAYS_CELLS)
def test_each_testbed_environment_carries_exactly_the_facts_its_driver_declares(tmp_path: Path) -> None:
    done = harness_run(tmp_path, *ids(CELLS), cells=len(CELLS))
    played = {record.cell.execution_id: record for record in attempts(tmp_path)}
    assert sorted(played) == sorted(CELLS), done.stdout[-2000:]
    for cell, record in played.items():
        package = tmp_path / "test" / cell / record.attempt
        assert declaration_gaps(package) == [], cell
