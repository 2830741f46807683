"""The graceful drain (recover-controller-drain on the testbed): each defect breaks one promise of the drain."""

from __future__ import annotations

from calibration.defect_case import DefectCase

CASE = "recover-controller-drain"

CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="drain-records-success",
        case=CASE,
        expected_check="drain.run-interrupted",
        why="the run the SIGTERM cut short is recorded succeeded: a success it never finished",
    ),
    DefectCase(
        defect="drain-queues-no-retry",
        case=CASE,
        expected_check="drain.work-retried",
        also_expected=("drain.message-received", "drain.delivered-once"),
        why="the run is recorded interrupted, but nothing takes its work up again: no retry, no delivery",
    ),
    DefectCase(
        defect="drain-marks-message-read",
        case=CASE,
        expected_check="drain.message-received",
        why="the drain marks the late message read by the run it interrupts: the retry is never handed it, though it"
        " builds what the thread asks for",
    ),
    DefectCase(
        defect="drain-delivers-interrupted-work",
        case=CASE,
        expected_check="drain.delivered-once",
        why="the interrupted run's half-done workspace is kept as its delivery after the signal, beside the retry's",
    ),
)
