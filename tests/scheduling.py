"""The order pytest's workers take the tests in: the long ones first, so the workers end together.

`make test` runs on xdist's ``worksteal`` schedule: the collection is cut into one
run of consecutive tests per worker (equal counts, in collection order), each worker
runs its run front to back, and a worker that runs dry steals the back half of the
longest queue left. In collection order a worker may meet a two-minute test near the
end while the others have nothing left to steal, and the machine idles through that
tail. So the tests are dealt out as a longest-processing-time schedule: taken longest
first, each goes to the run whose share of time is smallest, so every run starts with
its long tests and ends with the short ones a thief may take. The ``load`` schedule
keeps the collection order: it commits a quarter of each worker's share, consecutive
tests from the front, to each worker at the start and never takes them back, so a
longest-first order would give the first worker all the long tests while the others
run dry.

How long a test takes comes from the last runs: every run the suite makes records
its tests' times (setup, call and teardown) in pytest's cache, and ``--store-durations``
writes them to DURATIONS, kept in the repository so a clean clone starts in a good
order. A test neither knows is guessed from what it needs (tests/needs.py).

Tests that share a module- or class-scoped fixture stay together, in their order:
dealt apart, each worker would set the fixture up again. The order changes nothing a
test proves, only when it runs; a run without workers keeps the collection order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any, Protocol

import pytest
from pydantic import TypeAdapter

from tests.needs import E2E

DURATIONS = Path(__file__).with_name("durations.json")
"""Seconds per test id (setup, call and teardown together), as `--store-durations` last wrote them."""
CACHE_KEY = "everyday-evals/durations"
GUESS_E2E_S = 10.0
"""A test no run has timed that starts something heavy (a browser, a product, a container): a middling such test."""
GUESS_PURE_S = 0.1
"""A test no run has timed that starts nothing heavy."""
SHARED_SCOPES = {"module", "class"}
SCHEDULE_KEY = "everyday_evals_dist"

_SECONDS = TypeAdapter(dict[str, float])


class CacheReader(Protocol):
    """What is read of pytest's cache (``config.cache``)."""

    def get(self, key: str, default: object) -> object: ...


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--store-durations",
        action="store_true",
        help=f"write every test's time of this run into {DURATIONS.name}, where a clean clone's runs find them",
    )


def known_times(cache: CacheReader | None, kept: Path = DURATIONS) -> dict[str, float]:
    """The kept file's times, overlaid by this checkout's cache (its own runs, newer; none under
    ``-p no:cacheprovider``)."""
    known = _SECONDS.validate_json(kept.read_bytes()) if kept.is_file() else {}
    if cache is not None:
        known |= _SECONDS.validate_python(cache.get(CACHE_KEY, {}))
    return known


def shared_scope_key(item: pytest.Item) -> str | None:
    """The module (or class) whose fixture the test shares with its neighbours, or None when it shares none."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for definitions in info.name2fixturedefs.values():
        scope = str(getattr(definitions[-1], "scope", "function")).rsplit(".", 1)[-1].lower()
        if scope in SHARED_SCOPES:
            return item.nodeid.split("::", 1)[0]
    return None


def units_of(items: list[pytest.Item]) -> list[list[pytest.Item]]:
    """The tests as the units they are dealt in: alone, or with every test sharing their module's fixture."""
    grouped: dict[str, list[pytest.Item]] = defaultdict(list)
    units: list[list[pytest.Item]] = []
    for item in items:
        key = shared_scope_key(item)
        if key is None:
            units.append([item])
            continue
        if key not in grouped:
            units.append(grouped[key])
        grouped[key].append(item)
    return units


def xdist_cuts(count: int, workers: int) -> list[int]:
    """How many tests worksteal hands each worker at the start: it cuts the pending list front to back, each
    worker taking an equal share of what is left."""
    sizes, left = [], count
    for remaining in range(workers, 0, -1):
        sizes.append(left // remaining)
        left -= sizes[-1]
    return sizes


def deal(units: list[list[pytest.Item]], seconds: dict[str, float], workers: int) -> list[pytest.Item]:
    """Longest first, each unit to the worker's run with the least time so far that still has room for it (the run's
    room is the count worksteal will cut for it), then the runs one after the other."""

    def length(unit: list[pytest.Item]) -> float:
        return sum(seconds[item.nodeid] for item in unit)

    ordered = sorted(units, key=length, reverse=True)
    rooms = xdist_cuts(sum(len(unit) for unit in units), workers)
    runs: list[list[pytest.Item]] = [[] for _ in rooms]
    loads = [0.0] * len(rooms)
    for unit in ordered:
        fitting = [i for i in range(len(runs)) if rooms[i] - len(runs[i]) >= len(unit)]
        # A unit too large for any room left goes where the most room is: the cut then falls inside it.
        index = (
            min(fitting, key=lambda i: loads[i])
            if fitting
            else max(range(len(runs)), key=lambda i: rooms[i] - len(runs[i]))
        )
        runs[index].extend(unit)
        loads[index] += length(unit)
    return [item for run in runs for item in run]


def expected_seconds(items: list[pytest.Item], known: dict[str, float]) -> dict[str, float]:
    return {
        item.nodeid: known.get(item.nodeid, GUESS_E2E_S if item.get_closest_marker(E2E) else GUESS_PURE_S)
        for item in items
    }


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Generator[None, None, None]:
    """After every other plug-in selected and marked the tests: their order for this run's workers (every worker
    computes the same, from the same files, as xdist requires)."""
    result = yield
    workerinput = getattr(config, "workerinput", {})
    workers, schedule = int(workerinput.get("workercount", 0)), workerinput.get(SCHEDULE_KEY)
    if workers > 1 and items:
        seconds = expected_seconds(items, known_times(getattr(config, "cache", None)))
        if schedule == "worksteal":
            items[:] = deal(units_of(items), seconds, workers)
    return result


class DurationRecorder:
    """Every test's time in this run (its phases summed), kept in the cache when the run ends; on the process that
    reports the run (xdist's controller hears its workers' reports)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.timed: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.timed[report.nodeid] += report.duration

    def pytest_sessionfinish(self) -> None:
        if not self.timed:
            return
        rounded = {nodeid: round(seconds, 1) for nodeid, seconds in self.timed.items()}
        cache = getattr(self.config, "cache", None)
        if cache is not None:
            cache.set(CACHE_KEY, _SECONDS.validate_python(cache.get(CACHE_KEY, {})) | rounded)
        if self.config.getoption("--store-durations"):
            kept = _SECONDS.validate_json(DURATIONS.read_bytes()) if DURATIONS.is_file() else {}
            DURATIONS.write_text(json.dumps(dict(sorted((kept | rounded).items())), indent=0) + "\n")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller tells each worker its schedule (a worker's own options say ``--dist no``)."""
    node.workerinput[SCHEDULE_KEY] = node.config.getoption("dist")


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationRecorder(config), "everyday-durations")
