"""The doors: a story is one module, a product one declaration, both found through entry points like any plug-in."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import main
from harness.core import registry
from harness.core.catalog import Case
from harness.core.records import CheckRecord
from harness.evidence.recorder import EvidenceRecorder
from tests.harness.test_outside_products import named_outside_prose

STORY = """
from harness.core.catalog import Case

CASE = Case(name="water-plants", needs=("stop",), replay=False, scripted_deadline_s=60, description="d")


def story(journey):
    raise AssertionError("never played here")
"""


def _fresh_registry() -> None:
    for cached in (registry.cases, registry.products, registry.catalog):
        cached.cache_clear()


@pytest.fixture
def installed_story(tmp_path: Path) -> Iterator[str]:
    """A distribution installed on sys.path (its dist-info names the entry point), holding one story module."""
    (tmp_path / "outside_stories.py").write_text(STORY)
    info = tmp_path / "outside_stories-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-stories\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[everyday_evals.stories]\noutside = outside_stories\n")
    sys.path.insert(0, str(tmp_path))
    _fresh_registry()
    try:
        yield "water-plants"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("outside_stories", None)
        _fresh_registry()


def test_a_story_from_an_installed_package_is_one_module_and_gets_cells_where_its_needs_are_met(
    installed_story: str, capsys: pytest.CaptureFixture[str]
) -> None:
    [case] = [c for c in registry.cases() if c.name == installed_story]
    assert case.story == "outside_stories"  # filled in from the module that declares it
    cells = {c.execution_id for c in registry.catalog().cells() if c.case.name == installed_story}
    assert "everyday-workflows-scripted.scripted.local.water-plants" in cells
    assert "everyday-workflows-paperclip.scripted.paperclip-local.water-plants" in cells  # Paperclip has Stop
    assert not any(".example-local." in c for c in cells)  # the example product declares no Stop
    assert main(["list", "--environment", "example-local", "--not-applicable"]) == 0
    assert (
        "example-scripted.scripted.example-local.water-plants  not applicable: the example product lacks stop: the template"
        in (capsys.readouterr().out)
    )


def test_the_template_plug_in_brings_its_product_and_story_in_without_the_harness_naming_it() -> None:
    assert registry.product("example").driver == "everyday_example.driver:DRIVER"
    ids = [c.execution_id for c in registry.catalog().cells() if c.environment.product == "example"]
    assert ids == [
        "example-scripted.scripted.example-local.build-once",
        "example-scripted.scripted.example-local.build-revise",
        "example-scripted.scripted.example-local.late-feedback",
    ]
    harness_sources = "".join(p.read_text() for p in Path("harness").rglob("*.py"))
    assert "everyday_example" not in harness_sources


def test_a_story_without_a_story_function_or_a_case_of_another_type_is_refused() -> None:
    module = type(sys)("broken_story")
    module.CASE = Case(name="broken", scripted_deadline_s=1)  # type: ignore[attr-defined]
    with pytest.raises(registry.RegistryError, match="no story.journey. function"):
        registry.case_of(module)
    module.CASE = "build-revise"  # type: ignore[attr-defined]
    module.story = lambda journey: None  # type: ignore[attr-defined]
    with pytest.raises(registry.RegistryError, match="is a str, not a Case"):
        registry.case_of(module)


def test_a_cell_that_does_not_exist_says_why_when_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--id", "everyday-workflows-paperclip.scripted.paperclip-local.connection-decline"]) == 2
    assert "not applicable: Paperclip lacks connection-requests" in capsys.readouterr().err


def test_a_check_on_a_fact_the_product_does_not_expose_is_kept_not_observable(tmp_path: Path) -> None:
    paperclip_stop = next(
        c for c in registry.catalog().cells() if c.execution_id.endswith("paperclip-local.stop-redirect")
    )
    recorder = EvidenceRecorder(tmp_path / "attempt", unobservable=paperclip_stop.unobservable)
    kept = recorder.keep(CheckRecord(id="lifecycle.messages-handed-once", passed=True, detail="no wake"))
    also = recorder.keep(CheckRecord(id="lifecycle.messages-consumed", passed=False, detail="never consumed"))
    decided = recorder.keep(CheckRecord(id="lifecycle.tasks-done", passed=False, detail="task 1 is todo"))
    assert (kept.passed, kept.failed, kept.unobservable) == (False, False, "Paperclip does not expose message-read")
    assert not also.failed and also.detail.startswith("not observable: ")
    assert decided.failed and recorder.failed_checks() == [decided]


def test_a_check_cannot_make_itself_not_observable_on_a_fact_the_product_declares(tmp_path: Path) -> None:
    testbed_stop = next(c for c in registry.catalog().cells() if c.execution_id.endswith("local.stop-redirect"))
    recorder = EvidenceRecorder(tmp_path / "attempt", unobservable=testbed_stop.unobservable)
    late = CheckRecord.not_observable("lifecycle.runner-identity", "run 4 carries no pid")
    kept = recorder.keep(late)
    assert kept.failed and kept.unobservable is None
    assert kept.detail == "the product declared runner-identity, yet: run 4 carries no pid"


def test_what_a_cell_cannot_judge_is_listed_before_any_run(capsys: pytest.CaptureFixture[str]) -> None:
    """vibe-kanban keeps the scripted agent's read steps (receipts) but not Claude Code's: decided per profile."""
    scripted = "everyday-workflows-vibe-kanban.scripted.vibe-kanban-local.build-revise"
    replay = "everyday-workflows-vibe-kanban-replay.replay-claude.vibe-kanban-local.build-revise"
    assert main(["list", "--not-observable", "--id", scripted, "--id", replay]) == 0
    printed = capsys.readouterr().out.splitlines()
    consumed = [line for line in printed if "lifecycle.messages-consumed" in line]
    assert consumed == [f"{replay}  lifecycle.messages-consumed  not observable: vibe-kanban does not expose receipts"]
    assert f"{scripted}  lifecycle.runs-have-a-cause  not observable: vibe-kanban does not expose run-cause" in printed


def test_vibe_kanban_comes_in_from_its_own_package_and_the_harness_names_it_nowhere() -> None:
    assert registry.product("vibe-kanban").driver == "everyday_vibe_kanban.driver:DRIVER"
    ids = {c.execution_id for c in registry.catalog().cells() if c.environment.product == "vibe-kanban"}
    assert {
        *(
            f"everyday-workflows-vibe-kanban.scripted.vibe-kanban-local.{case}"
            for case in ("build-revise", "late-feedback", "stop-redirect")
        ),
        *(
            f"everyday-workflows-vibe-kanban-replay.replay-claude.vibe-kanban-local.{case}"
            for case in ("build-revise", "late-feedback", "stop-redirect")
        ),
    } == ids
    assert not any(i.endswith((".delegate-feedback", ".service-approve")) for i in ids)  # it declares no team or apps
    assert not named_outside_prose("vibe")
