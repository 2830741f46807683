"""What a test needs, declared where the thing is started, and the `--no-launch` selection `make check` runs.

A test needs a browser, a Docker engine, a product process, an agent CLI, a
cluster or a fresh virtualenv when a fixture it uses (directly or through other fixtures) starts
one, or when it calls a helper that does. Fixtures say so with `@needs(...)`
under `@pytest.fixture`; fixtures from outside packages are listed in
OUTSIDE_FIXTURES; a test that starts the thing through a helper carries the
marker itself (`pytestmark = pytest.mark.product`). Folders say nothing: a
pure test beside end-to-end ones stays in the inner loop.

`--no-launch` keeps only the tests that need none of them and arms the guard
(tests/no_launch/no_launch_guard.py), so a marker left off fails the test
that lacks it instead of slowing the inner loop unseen.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

NEEDS = {
    "browser": "starts Chromium (through Playwright)",
    "docker": "talks to a Docker engine (the oracle's containers, runner images)",
    "product": "starts a product process (the testbed's controller, Paperclip, vibe-kanban)",
    "agent_cli": "starts a real agent CLI (Codex, Claude Code, OpenCode)",
    "cluster": "starts a Ray cluster",
    "fresh_venv": "makes a fresh virtualenv or installs with pip (the wheel beside other distributions)",
}
E2E = "e2e"
"""Needs something it does not name: every need's alias, and what a test marked by hand with `e2e` means."""
OUTSIDE_FIXTURES = {"playwright": ("browser",)}
"""Fixtures of outside plug-ins (pytest-playwright): every browser fixture of theirs depends on `playwright`."""
GUARD_FOLDER = Path(__file__).parent / "no_launch"
TRIPS = pytest.StashKey[Path]()

F = TypeVar("F", bound=Callable[..., object])


def needs(*things: str) -> Callable[[F], F]:
    """Declare what a fixture starts; put it under `@pytest.fixture`."""
    unknown = set(things) - set(NEEDS)
    if unknown:
        raise ValueError(f"unknown need(s) {sorted(unknown)}: choose from {sorted(NEEDS)}")

    def declare(function: F) -> F:
        function.needs = things  # type: ignore[attr-defined]
        return function

    return declare


def needs_of(item: pytest.Item) -> set[str]:
    """The needs of a test: its own markers and those of every fixture in its closure."""
    found = {mark.name for mark in item.iter_markers() if mark.name in NEEDS or mark.name == E2E}
    info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        found.update(OUTSIDE_FIXTURES.get(name, ()))
        for definition in info.name2fixturedefs.get(name, ()) if info else ():
            found.update(getattr(definition.func, "needs", ()))
    return found


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--no-launch",
        action="store_true",
        help="run only the tests that need no browser, Docker engine, product, agent CLI or cluster, and fail any"
        " of them that starts one (`make check`)",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in NEEDS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}; `make check` leaves it out")
    config.addinivalue_line("markers", f"{E2E}: needs one of {', '.join(NEEDS)} (every such test is marked so too)")
    if config.getoption("--no-launch"):
        _arm(config)


def _arm(config: pytest.Config) -> None:
    """Arm the guard here and, through PYTHONPATH, in every Python process started from here."""
    handle, name = tempfile.mkstemp(prefix="no-launch-", suffix=".jsonl")
    os.close(handle)
    config.stash[TRIPS] = Path(name)
    os.environ["EVERYDAY_NO_LAUNCH"] = name
    path = os.environ.get("PYTHONPATH", "")
    if str(GUARD_FOLDER) not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(GUARD_FOLDER), path]))
    if str(GUARD_FOLDER) not in sys.path:
        sys.path.insert(0, str(GUARD_FOLDER))
    import no_launch_guard

    no_launch_guard.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    if TRIPS in config.stash:
        config.stash[TRIPS].unlink(missing_ok=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        found = needs_of(item)
        for name in found:
            item.add_marker(name)
        if found:
            item.add_marker(E2E)
    if config.getoption("--no-launch"):
        heavy = [item for item in items if item.get_closest_marker(E2E)]
        if heavy:
            config.hook.pytest_deselected(items=heavy)
            items[:] = [item for item in items if not item.get_closest_marker(E2E)]


@pytest.fixture(autouse=True)
def _nothing_launched(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under `--no-launch`: fail the test if it, or any process it started, tripped the guard."""
    trips = request.config.stash.get(TRIPS, None)
    if trips is None:
        yield
        return
    start = trips.stat().st_size
    yield
    with trips.open(encoding="utf-8") as lines:
        lines.seek(start)
        tripped = [json.loads(line) for line in lines if line.strip()]
    if tripped:
        said = "; ".join(f"{trip['what']} (needs `{trip['need']}`)" for trip in tripped)
        pytest.fail(f"started what `make check` must not: {said}", pytrace=False)


def marked(*things: str) -> Callable[[F], F]:
    """Mark a test with what it starts through a helper (`harness run`, calibration, an instance of its own)."""
    unknown = set(things) - set(NEEDS)
    if unknown:
        raise ValueError(f"unknown need(s) {sorted(unknown)}: choose from {sorted(NEEDS)}")

    def mark(test: F) -> F:
        for thing in things:
            test = getattr(pytest.mark, thing)(test)
        return test

    return mark


PLAYS_CELLS = ("browser", "product", "docker")
"""What playing a story cell starts: Chromium, the product, the oracle's containers."""
