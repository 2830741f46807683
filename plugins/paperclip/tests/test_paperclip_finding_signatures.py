"""Each Paperclip finding's signature against what its cells really printed, and against another defect on its checks.

``PLAYED`` holds the decided failures of real attempts of each finding's cells
(`harness run` against the pinned Paperclip, 2026-12-06; the detail text copied
from each package's attempt.json): the finding explains each of them, as the
campaign's exit status decides. An intermittent finding no attempt showed that
day is held to its reproduction's runs instead (``FROM_REPRODUCTION``, the task
id there made up: the reproduction prints none), and named in ``NOT_SEEN``. ``OTHER_WAYS`` gives, for each signed check,
what the same check prints for another defect (its wording from the check's own
code): that failure is new, never the finding.
"""

from __future__ import annotations

import pytest

from harness.core import registry
from harness.core.catalog import Cell, KnownFinding
from harness.core.records import CheckRecord

SCRIPTED = "everyday-workflows-paperclip.scripted.paperclip-local"
CODEX = "everyday-workflows-paperclip-replay.replay-codex.paperclip-local"
CLAUDE = "everyday-workflows-paperclip-replay.replay-claude.paperclip-local"

PLAYED: dict[str, list[tuple[str, str]]] = {
    f"{SCRIPTED}.recover-controller-drain": [
        (
            "drain.run-interrupted",
            "run fe60cf8a-1a40-4e4b-a27e-d5d17b7b70f3 ended succeeded (None; {'stop_reason': 'completed', 'exit_code':"
            " None, 'signal': 'SIGTERM', 'error': None}); its runner was stopped by the shutdown",
        ),
        ("drain.work-retried", "runs started after the signal: none"),
        (
            "drain.message-received",
            "no run that finished after the signal lists message 98a718f1-dc97-4504-9cb2-0c1670a1afce in its reads or"
            " was woken with it",
        ),
        (
            "drain.delivered-once",
            "0 delivery(ies) (0 by a run woken with the late message), 0 after the signal (by runs []); by the drained"
            " run after it: none",
        ),
        (
            "lifecycle.tasks-done",
            "task 0f3c319e-329b-4a0a-a676-5cfe84e35087 ('Build a slugify command-line tool') is in_progress",
        ),
        (
            "lifecycle.no-pending-bookkeeping",
            "task 0f3c319e-329b-4a0a-a676-5cfe84e35087 still counts 1 unread message(s)",
        ),
    ],
    f"{SCRIPTED}.recover-controller-sigkill": [
        (
            "restart.same-run",
            "run 6ac1cbc8-c6ec-41c7-8d59-a9fe5f364bb4: running -> failed -> failed; identity unchanged (pid"
            " 24206/24206/24206); NOT re-adopted by the new controller",
        ),
        (
            "restart.message-received",
            "no read receipt of run 6ac1cbc8-c6ec-41c7-8d59-a9fe5f364bb4 lists message"
            " 49dfaa9c-6bfb-4897-9c79-10c39a043fc3 after the restart",
        ),
        (
            "restart.records-once",
            "recorded twice: ['Delivered the slugify project (--max-length): ZIP sha256"
            " 79fb131672d6c08e3db34cbdbbc236c33610e0eb31064938bda5fdb37224eafe.',"
            " '79fb131672d6c08e3db34cbdbbc236c33610e0eb31064938bda5fdb37224eafe']",
        ),
        ("lifecycle.runs-succeeded", "run 6ac1cbc8-c6ec-41c7-8d59-a9fe5f364bb4 ended failed (process_lost)"),
    ],
    f"{SCRIPTED}.stop-redirect": [
        (
            "stop.reply-has-nonce",
            "latest reply LACKS the nonce; written by run 2d0f8693-9477-4fe5-9aa5-93be8d7aa6a5 (succeeded)",
        ),
        (
            "stop.nothing-ran-after-stop",
            "ran after Stop, uninvited: run 885ddd72-3d47-4ebc-8aba-05173fc822ca (succeeded, cause handoff, 1"
            " delivery(ies))",
        ),
        ("stop.workspace-unchanged", "changed after Stop: README.md, test_slugify.py"),
        (
            "lifecycle.runs-have-a-cause",
            "run 885ddd72-3d47-4ebc-8aba-05173fc822ca on task 647efc7b-6808-43e8-888e-4863c111a92e (succeeded,"
            " delivered d714647b-bc84-458d-8fc1-dfdfdcacf913, cause handoff): started as a hand-off, but no earlier"
            " run of another agent on its task handed it on",
        ),
    ],
    f"{CODEX}.recover-controller-drain": [
        (
            "drain.run-interrupted",
            "run 18254481-f69f-42f5-a8f9-176c10fbbb1d ended succeeded (None; {'stop_reason': 'completed', 'exit_code':"
            " None, 'signal': 'SIGTERM', 'error': None}); its runner was stopped by the shutdown",
        ),
        ("drain.work-retried", "runs started after the signal: none"),
        (
            "drain.message-received",
            "no run that finished after the signal lists message bb04c919-6683-42d2-a2b9-fc84614421fa in its reads or"
            " was woken with it",
        ),
        (
            "drain.delivered-once",
            "0 delivery(ies) (0 by a run woken with the late message), 0 after the signal (by runs []); by the drained"
            " run after it: none",
        ),
        (
            "lifecycle.tasks-done",
            "task d352142b-7eb0-45b8-a220-9dafd5d1014b ('Build a slugify command-line tool') is in_progress",
        ),
        (
            "lifecycle.no-pending-bookkeeping",
            "task d352142b-7eb0-45b8-a220-9dafd5d1014b still counts 1 unread message(s)",
        ),
    ],
    f"{CODEX}.recover-controller": [
        (
            "restart.same-run",
            "run 98a6bedb-39b9-457e-8b73-faeb37794335: running -> running -> failed; identity unchanged (pid"
            " 31172/31172/31172); re-adopted by the new controller",
        ),
        (
            "restart.message-survived",
            "message 54cc17a9-3017-442a-b497-8003bb13b360 (unread at the restart) stored 1 time(s), shown 1 time(s)"
            " after a reload; consumed by no run",
        ),
        (
            "restart.message-received",
            "no read receipt of run 98a6bedb-39b9-457e-8b73-faeb37794335 lists message"
            " 54cc17a9-3017-442a-b497-8003bb13b360 after the restart",
        ),
        (
            "lifecycle.tasks-done",
            "task 73622d00-78b0-43e4-a19f-b08bef016ae1 ('Build a slugify command-line tool') is in_progress",
        ),
        ("lifecycle.runs-succeeded", "run 98a6bedb-39b9-457e-8b73-faeb37794335 ended failed (orphaned_running_run)"),
        (
            "lifecycle.no-pending-bookkeeping",
            "task 73622d00-78b0-43e4-a19f-b08bef016ae1 still counts 1 unread message(s)",
        ),
    ],
    f"{CODEX}.service-decline": [
        (
            "decision.declined-stays-declined",
            "a later approval of declined request 29c86a21-cf0d-4aac-a573-711eb1df2f89: card 409, review queue 200; it"
            " now reads declined (accepted by review queue)",
        ),
    ],
    f"{CODEX}.stop-redirect": [
        (
            "stop.nothing-ran-after-stop",
            "ran after Stop, uninvited: run 6968e9d9-d9b7-4a6b-9450-7121a55a8d45 (succeeded, cause handoff, 1"
            " delivery(ies))",
        ),
        (
            "lifecycle.runs-have-a-cause",
            "run 6968e9d9-d9b7-4a6b-9450-7121a55a8d45 on task 063dafa2-513e-4b63-a6b7-f67e25dcda06 (succeeded,"
            " delivered 9581cfa7-2949-4d53-a2cc-872621e97f27, cause handoff): started as a hand-off, but no earlier"
            " run of another agent on its task handed it on",
        ),
    ],
    f"{CLAUDE}.recover-controller": [
        (
            "invariant.done-while-active",
            "task e7219c31-09df-40ed-8bb1-b0ce6a56b175 is done while run 6dc608fb-b161-4efa-88cc-286319dd733c is still"
            " running (seen at 2026-12-06T19:40:24.660+00:00)",
        ),
        (
            "restart.same-run",
            "run 6dc608fb-b161-4efa-88cc-286319dd733c: running -> running -> running; identity unchanged (pid"
            " 9533/9533/9533); re-adopted by the new controller",
        ),
        (
            "restart.message-survived",
            "message 4eeb9bda-b36b-462f-9fca-ceeb38f097e8 (unread at the restart) stored 1 time(s), shown 1 time(s)"
            " after a reload; consumed by no run",
        ),
        (
            "restart.message-received",
            "no read receipt of run 6dc608fb-b161-4efa-88cc-286319dd733c lists message"
            " 4eeb9bda-b36b-462f-9fca-ceeb38f097e8 after the restart",
        ),
        ("lifecycle.settled", "run 6dc608fb-b161-4efa-88cc-286319dd733c is still running"),
        (
            "lifecycle.no-pending-bookkeeping",
            "task e7219c31-09df-40ed-8bb1-b0ce6a56b175 still counts 1 unread message(s)",
        ),
    ],
    f"{CLAUDE}.service-decline": [
        (
            "decision.declined-stays-declined",
            "a later approval of declined request 2aa0bd8c-ae7a-4328-a1ff-18b130cfc808: card 409, review queue 200; it"
            " now reads declined (accepted by review queue)",
        ),
    ],
    f"{CLAUDE}.stop-redirect": [
        (
            "stop.nothing-ran-after-stop",
            "ran after Stop, uninvited: run 31ae2084-2d42-48c9-9599-6b2063a87f6f (succeeded, cause handoff, 1"
            " delivery(ies))",
        ),
        (
            "lifecycle.runs-have-a-cause",
            "run 31ae2084-2d42-48c9-9599-6b2063a87f6f on task 8758d649-d8ba-4711-b4c9-546b2233fce7 (succeeded,"
            " delivered 9dcfe1c2-699e-4d4a-9dd9-8dcd8b20b637, cause handoff): started as a hand-off, but no earlier"
            " run of another agent on its task handed it on",
        ),
    ],
}

NOT_SEEN = {
    ("recover-controller-drain", "drain_loses_to_run_end", "lifecycle.runs-succeeded"): (
        "intermittent: the race did not show in the three replay-claude attempts played on 2026-12-06 (each passed)"
    ),
    ("recover-controller-drain", "drain_loses_to_run_end", "lifecycle.runs-have-a-cause"): "the same attempts",
}
"""Signed checks no played attempt has shown yet, and why; each is held to its reproduction below instead."""
FROM_REPRODUCTION: dict[str, list[tuple[str, str]]] = {
    # drain_loses_to_run_end's runs in `make findings` (2026-12-06), as lifecycle.runs-succeeded prints a run's end:
    # the drained run adapter_failed, then the missing-comment run its end started, reaped process_lost.
    f"{CLAUDE}.recover-controller-drain": [
        (
            "lifecycle.runs-succeeded",
            "run f124fce9-2f13-409a-9587-ff4ec8cba005 ended failed (adapter_failed); run"
            " 8b2760a3-0607-4d20-9d6d-c62ffdbefe3c ended failed (process_lost)",
        ),
        (  # the missing-comment run (no cause stated) and the restart recovery's continuation (wake reason
            # issue_continuation_needed, the driver's hand-off), as lifecycle.runs-have-a-cause prints them
            "lifecycle.runs-have-a-cause",
            "the product declared run-cause; run 8b2760a3-0607-4d20-9d6d-c62ffdbefe3c on task"
            " 4b1e0d5c-8f4e-4f0e-9d53-0b6f3c1d2a77 has none; run 811299e0-df1c-44a4-bf8a-e83e1ea7c3d7 on task"
            " 4b1e0d5c-8f4e-4f0e-9d53-0b6f3c1d2a77 (running, delivered nothing, cause handoff): started as a hand-off,"
            " but no earlier run of another agent on its task handed it on",
        ),
    ],
}

OTHER_WAYS: dict[tuple[str, str], str] = {
    ("recover-controller", "restart.same-run"): (
        "run 98a6: running -> running -> failed; identity CHANGED (pid 31172/31180/31180); re-adopted by the new"
        " controller"
    ),
    ("recover-controller", "restart.message-received"): (
        "no read receipt of run 98a6 lists message 54cc (it was read before the restart)"
    ),
    ("recover-controller-sigkill", "restart.same-run"): (
        "run 6ac1: running -> running -> failed; identity unchanged (pid 24206/24206/24206); re-adopted by the new"
        " controller"
    ),
    ("recover-controller-sigkill", "restart.message-received"): (
        "no read receipt of run 6ac1 lists message 49df (it was read before the restart)"
    ),
    ("recover-controller-sigkill", "lifecycle.runs-succeeded"): (
        "run 6ac1 ended failed (process_lost); run 7bd2 ended failed (adapter_failed)"
    ),
    ("stop-redirect", "stop.nothing-ran-after-stop"): (
        "ran after Stop, uninvited: run 6968 (succeeded, cause recovery, 1 delivery(ies))"
    ),
    ("stop-redirect", "lifecycle.runs-have-a-cause"): (
        "run 6968 on task 063d (succeeded, delivered nothing, cause recovery): started as a recovery, but no earlier"
        " run on its task failed"
    ),
    ("recover-controller-drain", "drain.run-interrupted"): (
        "run 1825 ended succeeded (None; {'stop_reason': 'completed', 'exit_code': 0, 'signal': None, 'error': None});"
        " its runner was NOT stopped by the shutdown"
    ),
    ("recover-controller-drain", "lifecycle.runs-succeeded"): (
        "run 1825 ended failed (adapter_failed); run 8b27 ended failed (timeout)"
    ),
    ("recover-controller-drain", "lifecycle.runs-have-a-cause"): (
        "run 8112 on task 4b1e (succeeded, delivered 9dcf, cause recovery): started as a recovery, but no earlier run"
        " on its task failed"
    ),
    ("service-decline", "decision.declined-stays-declined"): (
        "a later approval of declined request 29c8: card 200, review queue 409; it now reads approved (accepted by"
        " card)"
    ),
}


def cell(execution_id: str) -> Cell:
    return next(c for c in registry.catalog().cells() if c.execution_id == execution_id)


def finding_of(execution_id: str) -> KnownFinding:
    finding = cell(execution_id).known_finding
    assert finding is not None, execution_id
    return finding


SHOWN = {**PLAYED, **FROM_REPRODUCTION}


@pytest.mark.parametrize("execution_id", sorted(SHOWN))
def test_what_a_findings_cell_really_printed_is_the_finding(execution_id: str) -> None:
    failures = [CheckRecord(id=check, passed=False, detail=detail) for check, detail in SHOWN[execution_id]]
    finding = finding_of(execution_id)
    assert finding.unmatched(failures) == []
    assert finding.explains(failures)


def every_finding() -> list[KnownFinding]:
    return list(registry.product("paperclip").known_findings)


@pytest.mark.parametrize(
    ("finding", "check"),
    [(f, s.check) for f in every_finding() for s in f.signatures],
    ids=[f"{f.case}:{s.check}" for f in every_finding() for s in f.signatures],
)
def test_another_defect_on_a_signed_check_is_a_new_failure(finding: KnownFinding, check: str) -> None:
    played = next(
        [CheckRecord(id=c, passed=False, detail=d) for c, d in failures]
        for execution_id, failures in SHOWN.items()
        if finding_of(execution_id) == finding and any(c == check for c, _ in failures)
    )
    other = CheckRecord(id=check, passed=False, detail=OTHER_WAYS[(finding.case, check)])
    changed = [other if failure.id == check else failure for failure in played]
    assert finding.unmatched(changed) == [other]
    assert not finding.explains(changed)


def test_every_signed_check_was_seen_failing_in_a_played_cell() -> None:
    seen = {
        (finding_of(execution_id).case, finding_of(execution_id).reproduction, check)
        for execution_id, failures in PLAYED.items()
        for check, _ in failures
    }
    signed = {(f.case, f.reproduction, s.check) for f in every_finding() for s in f.signatures}
    assert signed - seen == set(NOT_SEEN), "a signed check no played attempt showed, or one NOT_SEEN that one did"
