"""The report shows a judged criterion apart from the rule checks, with each judge's word and its cited
evidence linked, in a real browser; an attempt never judged says so."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

from harness.core.criteria import decline_explanation
from harness.judges.models import Finding, JudgeResult, JudgeStatus
from harness.judges.requests import build_request
from harness.judges.store import Judgement, write_judgement
from harness.results.report.build import build_report
from tests.judges.packages import CAMPAIGN, CELL, decline_package


def test_a_judged_criterion_shows_its_judge_and_links_its_cited_evidence(page: Page, tmp_path: Path) -> None:
    results = tmp_path / "results"
    judged = decline_package(results, "I went ahead anyway.", attempt="1-judged")
    decline_package(results, "I could not.", attempt="2-unjudged")
    criterion = decline_explanation("it")
    result = JudgeResult(
        judge="model",
        judge_version="1",
        criterion_id=criterion.id,
        status=JudgeStatus.FAILED,
        reason="it says the work went on anyway",
        judge_model="claude-haiku-4-5",
        findings=[Finding(text="went on anyway", evidence=["snapshots/decline-grade.json"])],
    )
    write_judgement(judged, Judgement(request=build_request(judged, "a", "service-decline", criterion), result=result))
    build_report(results=[results], out=tmp_path / "report", copy_evidence=False)
    pages = tmp_path / "report" / "attempts" / CAMPAIGN / CELL

    page.goto((pages / "1-judged.html").as_uri())
    section = page.locator("section.criterion[data-criterion='explanation-after-decline']")
    assert "failed" in section.locator("h3").inner_text()
    row = section.locator("tr.judge-row")
    assert "claude-haiku-4-5" in row.inner_text() and "went on anyway" in row.inner_text()
    cited = row.locator("a.cited")
    assert cited.inner_text() == "snapshots/decline-grade.json"
    page.goto(cited.evaluate("a => a.href"))
    assert "went ahead anyway" in page.content()

    page.goto((pages / "2-unjudged.html").as_uri())
    assert "not judged" in page.locator("section.criterion h3").inner_text()
