"""An attempt whose world failed to open is retried once, and the retry that passes is ``passed_with_recovery``.

The retry is the attempt runner's own logic (:func:`harness.running.attempt.run_epoch`), so it plays on the in-memory
fake product (tests/fake_attempts.py); a real recovery, a relaunched browser, is played on the testbed in
tests/stories/test_harness_recovery.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.core.records import RecoveryKind
from harness.core.settings import RunSettings
from harness.core.verdicts import InfrastructureFailed, Verdict
from harness.running.attempt import AttemptContext, run_epoch
from harness.running.journey import Journey
from tests.fake_attempts import fake_cell, lend_fake_product, open_fake_journey


def test_a_retry_after_the_harness_failed_once_passes_with_recovery(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lend_fake_product(monkeypatch)
    opened: list[str] = []

    @contextmanager
    def fails_once(context: AttemptContext) -> Iterator[Journey]:
        opened.append(context.recorder.folder.name)
        if len(opened) == 1:
            raise InfrastructureFailed("the attempt's browser context could not be opened")
        with open_fake_journey(context) as journey:
            yield journey

    settings = RunSettings(campaign="t", results=tmp_path, max_automatic_retries=1)
    first, retry = run_epoch(fake_cell(), settings, fails_once)

    assert first.verdict is Verdict.INFRASTRUCTURE_FAILED and first.recoveries == []
    assert retry.verdict is Verdict.PASSED_WITH_RECOVERY, retry.reason
    assert retry.retry_of == first.attempt and opened == [first.attempt, retry.attempt]
    assert [r.kind for r in retry.recoveries] == [RecoveryKind.ATTEMPT_RETRIED]
    assert first.attempt in retry.recoveries[0].detail and "could not be opened" in retry.recoveries[0].detail
