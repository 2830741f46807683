"""The order the workers take the tests in (tests/scheduling.py): long ones first in every worker's run, shared
fixtures kept together, and each run as long as worksteal cuts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scheduling import CACHE_KEY, deal, expected_seconds, known_times, units_of, xdist_cuts

SOURCE = """
import pytest

@pytest.fixture(scope="module")
def shared():
    return 1

def test_a(): pass
def test_b(): pass
def test_c(shared): pass
def test_d(): pass
def test_e(shared): pass
def test_f(): pass
"""


def names(items: list[pytest.Item]) -> list[str]:
    return [item.name for item in items]


def test_worksteal_cuts_front_to_back_in_equal_shares_of_what_is_left() -> None:
    assert xdist_cuts(10, 4) == [2, 2, 3, 3]
    assert xdist_cuts(3, 2) == [1, 2]
    assert sum(xdist_cuts(1797, 4)) == 1797


def test_tests_sharing_a_module_fixture_are_one_unit_in_their_order(pytester: pytest.Pytester) -> None:
    items = pytester.getitems(SOURCE)
    assert [names(unit) for unit in units_of(items)] == [
        ["test_a"],
        ["test_b"],
        ["test_c", "test_e"],
        ["test_d"],
        ["test_f"],
    ]


def test_each_run_starts_with_its_longest_and_the_runs_share_the_time(pytester: pytest.Pytester) -> None:
    items = pytester.getitems(SOURCE)
    seconds = {
        item.nodeid: {"test_a": 1.0, "test_b": 50.0, "test_d": 40.0, "test_f": 2.0}.get(item.name, 5.0)
        for item in items
    }
    dealt = deal(units_of(items), seconds, workers=2)
    # worksteal cuts 3 and 3: the first run holds the longest test, the second the next two units, longest first.
    assert names(dealt[:3]) == ["test_b", "test_f", "test_a"]
    assert names(dealt[3:]) == ["test_d", "test_c", "test_e"]
    one_queue = deal(units_of(items), seconds, workers=1)
    assert names(one_queue) == ["test_b", "test_d", "test_c", "test_e", "test_f", "test_a"]


def test_a_test_no_run_timed_is_guessed_from_what_it_needs(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    e2e: starts something heavy\n")
    items = pytester.getitems("import pytest\n\n@pytest.mark.e2e\ndef test_heavy(): pass\n\ndef test_pure(): pass\n")
    guessed = expected_seconds(items, {})
    heavy, pure = (guessed[item.nodeid] for item in items)
    assert heavy > pure
    assert expected_seconds(items, {items[1].nodeid: 99.0})[items[1].nodeid] == 99.0


def test_this_checkouts_own_times_overlay_the_kept_file(tmp_path: Path) -> None:
    kept = tmp_path / "durations.json"
    kept.write_text(json.dumps({"tests/x.py::test_old": 1.0, "tests/x.py::test_new": 2.0}))
    store = {CACHE_KEY: {"tests/x.py::test_new": 3.5}}
    assert known_times(store, kept) == {"tests/x.py::test_old": 1.0, "tests/x.py::test_new": 3.5}
    assert known_times(None, kept)["tests/x.py::test_new"] == 2.0


def test_a_run_records_its_tests_times_for_the_next(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parents[1]))
    pytester.makepyfile(test_timed="def test_one():\n    assert True\n")
    pytester.runpytest_subprocess("-p", "tests.scheduling", "-p", "cacheprovider").assert_outcomes(passed=1)
    stored = json.loads((pytester.path / ".pytest_cache" / "v" / CACHE_KEY).read_text())
    assert list(stored) == ["test_timed.py::test_one"] and isinstance(stored["test_timed.py::test_one"], float)
