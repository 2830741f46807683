"""A planted defect that fails a known finding's check in another way is a new failure, never the finding.

The testbed's ``stop-retries-run`` defect starts a run after Stop, as Paperclip's cancel finding does, but as a
recovery the product queued by itself: ``stop.nothing-ran-after-stop`` fails, and by its id alone it would be
Paperclip's finding. Its signature (the uninvited run is Paperclip's follow-up or continuation) tells them apart.
"""

from __future__ import annotations

from pathlib import Path

from harness.core import registry
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run

PAPERCLIP_STOP = next(
    c
    for c in registry.catalog().cells()
    if c.execution_id == "everyday-workflows-paperclip.scripted.paperclip-local.stop-redirect"
)


@marked(*PLAYS_CELLS)
def test_a_planted_defect_on_a_findings_check_is_reported_as_new_not_as_the_finding(tmp_path: Path) -> None:
    finding = PAPERCLIP_STOP.known_finding
    assert finding is not None
    done = harness_run(
        tmp_path,
        "--id",
        "everyday-workflows-scripted.scripted.local.stop-redirect",
        "--product-defect",
        "stop-retries-run",
    )
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.FAILED, done.stdout + done.stderr

    on_its_checks = [check for check in record.checks if check.failed and check.id in finding.checks]
    assert [check.id for check in on_its_checks] == list(finding.checks)  # by ids alone: the finding
    assert "cause recovery" in on_its_checks[0].detail
    assert not finding.explains(on_its_checks)
    assert finding.unmatched(on_its_checks) == on_its_checks
