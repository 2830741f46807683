"""pytest plugin: story cells become pytest items.

Running stories as pytest items gives users what they already know: `-k`,
`-x`, `--headed`, junit XML and xdist workers for `--max-parallel`. Like
pytest-playwright's plugin module, everything is declared once here: one
option (`--run-settings`, the whole RunSettings as JSON, built and validated by
`harness run`), one fixture chain (`run_settings`, then the browser launch
arguments). `harness run` loads this module with `-p harness.running.plugin`
on the command line, so every xdist worker loads it too and parses the same
JSON: same cells, same campaign id.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Playwright

from harness.core.settings import SETTINGS_OPTION, RunSettings
from harness.products import cool_down, warm_up
from harness.running import interrupt
from harness.running.browser import launch_options
from harness.running.selection import select
from harness.running.shared_browser import SharedBrowser, TargetClosedError

# Where each process keeps the settings it parsed from the option (the controller and every worker alike).
SETTINGS_KEY = pytest.StashKey[RunSettings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("everyday-evals", "everyday-evals story cells")
    group.addoption(
        SETTINGS_OPTION,
        dest="harness_settings",
        metavar="JSON",
        help="the RunSettings of this run as JSON (`harness run` builds it; every xdist worker gets the same)",
    )


def settings_of(config: pytest.Config) -> RunSettings | None:
    """The run's settings, parsed once per process; None when pytest runs without `harness run`."""
    if SETTINGS_KEY not in config.stash and config.option.harness_settings:
        try:
            config.stash[SETTINGS_KEY] = RunSettings.model_validate_json(config.option.harness_settings)
        except ValueError as error:
            raise pytest.UsageError(f"{SETTINGS_OPTION}: {error}") from error
    return config.stash.get(SETTINGS_KEY, None)


def pytest_configure(config: pytest.Config) -> None:
    interrupt.install()


def pytest_unconfigure(config: pytest.Config) -> None:
    """Every process that may have warmed a product up (the controller, each xdist worker) has played its cells."""
    cool_down()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "cell" not in metafunc.fixturenames:
        return
    settings = settings_of(metafunc.config)
    cells = select(ids=settings.cells) if settings and settings.cells else []
    warm_up((cell.environment.product for cell in cells), many_instances=len(cells) > 1)  # beside the browser's launch
    metafunc.parametrize("cell", cells, ids=[cell.execution_id for cell in cells])


@pytest.fixture(scope="session")
def run_settings(pytestconfig: pytest.Config) -> RunSettings:
    """The one settings object of this run; override it in a conftest to run cells differently."""
    settings = settings_of(pytestconfig)
    if settings is None:
        pytest.fail(f"story cells need {SETTINGS_OPTION}: run them with `harness run`", pytrace=False)
    return settings


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict, playwright: Playwright) -> dict:
    """Use Playwright's Chromium where installed, else the system one; fail loudly when none."""
    return {**browser_type_launch_args, **launch_options(playwright.chromium)}


@pytest.fixture(scope="session")
def browser(launch_browser: Callable[[], Browser]) -> Iterator[Browser]:
    """pytest-playwright's browser, whose closing after a stop signal cannot fail the run.

    A terminal's Ctrl-C ends Playwright's driver with the harness, and a
    driver may die mid-run: closing the browser then raises from pytest's
    session end, past the verdicts.
    """
    launched = launch_browser()
    yield launched
    try:
        launched.close()
    except Exception as error:
        if not (interrupt.interrupted() or isinstance(error, TargetClosedError)):
            raise
        # The driver ended first (a stop signal, or a driver that died mid-run, which the shared browser recovered
        # from): its pending calls died with it, and asyncio would report each of their futures as "never retrieved".
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)


@pytest.fixture(scope="session")
def shared_browser(browser: Browser) -> Iterator[SharedBrowser]:
    """The session's browser as every attempt opens it: relaunched, and the relaunch recorded, if it went away."""
    shared = SharedBrowser(browser)
    yield shared
    if shared.browser is not browser:  # the relaunched one; the fixture above closes the first
        try:
            shared.close()
        except Exception:
            if not interrupt.interrupted():
                raise
