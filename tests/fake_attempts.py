"""Whole attempts played on the in-memory fake product: a package on disk with no browser, server or Docker.

The attempt runs as a real cell's does (:func:`harness.running.attempt.run_attempt`:
the story, the conclusion, the recorder, the judging, attempt.json and its
secret scan); only the world it opens is the fake's. Tests of what reads a
package (regrade, summary, report) use these instead of playing a testbed
cell. The fake is a test double, never a product of the catalog: its
declaration is lent to the registry for the test (:func:`lend_fake_product`),
and its cells stay out of every suite, so no verdict or calibration row can
rest on it. The story is the build-revise journey without the oracle's grade,
which needs the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.core import registry
from harness.core.catalog import Case, Cell, Environment, ProductDeclaration, ProductSuites, Suite
from harness.core.profiles import SCRIPTED
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.products.fake import DRIVER
from harness.products.fake.browser import FakeBrowserContext
from harness.running.attempt import AttemptContext, run_attempt
from harness.running.journey import Journey

ENVIRONMENT = Environment(name="fake-local", product="fake", description="The in-memory fake product.")
PRODUCT = ProductDeclaration(
    name="fake",
    title="the fake product",
    driver="harness.products.fake:DRIVER",
    environments=(ENVIRONMENT,),
    suites=ProductSuites(scripted="fake-scripted"),
)
REVISION = "Please also strip accents."


def story(journey: Journey) -> None:
    """Build, download, ask for a revision, download again: build-revise's journey, less the oracle."""
    task = journey.create_task("Build slugify", "A slug tool")
    journey.wait_until_finished(task, "the build")
    first = journey.download_latest_delivery(task, phase="build")
    journey.send_message(REVISION)
    journey.wait_until_finished(task, "the revision")
    second = journey.download_latest_delivery(task, phase="revision")
    journey.require_different(first, second)
    journey.download_again(first, task)


def fake_cell(case: str = "build-revise-fake") -> Cell:
    """A cell of the fake product playing :func:`story` (a case of its own name, so cells can be told apart)."""
    suite = Suite(
        name="fake-scripted",
        manual_only=False,
        description="the fake product, for the harness's own tests",
        profiles=(SCRIPTED,),
        environments=(ENVIRONMENT,),
        cases=(Case(name=case, story=__name__, scripted_deadline_s=60),),
    )
    return Cell(suite=suite, profile=SCRIPTED, environment=ENVIRONMENT, case=suite.cases[0])


@contextmanager
def open_fake_journey(context: AttemptContext, *defects: str) -> Iterator[Journey]:
    """The world of one attempt on a fresh fake; its waits sample the invariants at every look (they take no time)."""
    instance = DRIVER.start_instance(0.0, defects=defects)
    browser = FakeBrowserContext()
    journey = Journey(context, DRIVER, instance, browser, browser.new_page())
    journey.watch.interval_s = 0
    try:
        yield journey
    finally:
        journey.close()


def lend_fake_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry knows the fake for this test only (an attempt's provenance asks its driver for a version)."""
    declared = registry.products()
    monkeypatch.setattr(registry, "products", lambda: (*declared, PRODUCT))


def play_fake(results: Path, campaign: str, case: str = "build-revise-fake", *defects: str) -> AttemptRecord:
    """One whole attempt of the fake cell ``case`` into ``results/campaign``; call :func:`lend_fake_product` first."""
    opener: Callable[[AttemptContext], object] = lambda context: open_fake_journey(context, *defects)  # noqa: E731
    return run_attempt(fake_cell(case), RunSettings(campaign=campaign, results=results), opener)  # type: ignore[arg-type]
