"""pytest plugin: story cells become pytest items.

Running stories as pytest items gives users what they already know: `-k`,
`-x`, `--headed`, junit XML and xdist workers for `--max-parallel`. The
plugin only parametrizes the one story test with the selected cells and
turns command-line options into RunSettings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Playwright

from harness.running.attempt import RunSettings, new_campaign_id
from harness.running.browser import launch_options
from harness.running.selection import select

STORY_CELLS_MODULE = Path(__file__).with_name("story_cells.py")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("everyday-evals", "everyday-evals story cells")
    group.addoption("--cell", dest="harness_cells", action="append", default=[], help="execution id to run (repeatable)")
    group.addoption("--campaign", dest="harness_campaign", help="campaign id shared by every attempt of this run")
    group.addoption("--results", dest="harness_results", default="results", help="folder for evidence packages")
    group.addoption(
        "--max-automatic-retries", dest="harness_retries", type=int, choices=(0, 1), default=0,
        help="retry a cell once after an infrastructure failure (never after any other verdict)",
    )
    group.addoption("--scripted-persona", dest="harness_persona", help="calibration: run a faulty scripted persona")
    group.addoption("--pace", dest="harness_pace", type=float, help="seconds per scripted agent step")


def _campaign(config: pytest.Config) -> str:
    """One campaign id for the controller and every xdist worker of this session."""
    if config.option.harness_campaign:
        return config.option.harness_campaign
    run_uid = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return f"pytest-{run_uid[:12]}" if run_uid else new_campaign_id()


def pytest_configure(config: pytest.Config) -> None:
    if not config.option.harness_campaign and not hasattr(config, "workerinput"):
        config.option.harness_campaign = _campaign(config)
    _register_progress(config)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell" not in metafunc.fixturenames:
        return
    ids = metafunc.config.option.harness_cells
    cells = select(ids=tuple(ids)) if ids else []
    metafunc.parametrize("cell", cells, ids=[cell.execution_id for cell in cells])


@pytest.fixture(scope="session")
def run_settings(pytestconfig: pytest.Config) -> RunSettings:
    option = pytestconfig.option
    return RunSettings(
        campaign=_campaign(pytestconfig),
        results=Path(option.harness_results),
        max_automatic_retries=option.harness_retries,
        scripted_persona=option.harness_persona,
        pace_s=option.harness_pace,
    )


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, playwright: Playwright) -> dict:
    """Use Playwright's Chromium where installed, else the system one; fail loudly when none."""
    return {**browser_type_launch_args, **launch_options(playwright.chromium)}


class CellProgress:
    """One line per finished cell (verdict, id, time), so a long campaign shows where it is."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.total = 0
        self.done = 0

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        """No progress dot for a cell: its own line says more."""
        if report.when == "call" and "verdict" in dict(report.user_properties):
            return report.outcome, "", report.outcome.upper()
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        verdict = dict(report.user_properties).get("verdict")
        if verdict is None or report.when != "call" and not report.skipped:
            return
        self.done += 1
        cell = report.nodeid.rsplit("[", 1)[-1].rstrip("]").removeprefix("chromium-")
        terminal = self.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"[{self.done}/{self.total or '?'}] {verdict:<21} {cell} ({report.duration:.1f} s)")


def _register_progress(config: pytest.Config) -> None:
    if config.option.harness_cells and not hasattr(config, "workerinput"):
        config.pluginmanager.register(CellProgress(config), "everyday-evals-progress")
