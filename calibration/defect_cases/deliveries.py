"""Delivery defects: the bytes a download serves, the deliveries a task lists, a store that fails."""

from __future__ import annotations

from calibration.defect_case import DefectCase

CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="download-other-bytes",
        case="build-revise",
        expected_check="delivery.build.sha256",
        also_expected=("delivery.revision.sha256",),
        why="the downloaded ZIP's sha256 differs from the one the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="delegate-feedback",
        expected_check="delivery.child.sha256",
        why="the child's ZIP downloads with other bytes than the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="recover-controller",
        expected_check="delivery.final.sha256",
        why="the ZIP delivered across the restart downloads with other bytes than the product recorded",
    ),
    DefectCase(
        defect="download-other-bytes",
        case="hire-reuse",
        expected_check="delivery.first.sha256",
        also_expected=("delivery.second.sha256",),
        why="both of Morgan's ZIPs download with other bytes than the product recorded",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="delegate-feedback",
        expected_check="delivery.child",
        why="the teammate delivered, but the child task lists no delivery to download",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="recover-controller",
        expected_check="delivery.final",
        why="the agent delivered across the restart, but the task lists no delivery to download",
    ),
    DefectCase(
        defect="deliveries-not-listed",
        case="hire-reuse",
        expected_check="delivery.first",
        why="Morgan delivered, but the child task lists no delivery to download",
    ),
    DefectCase(
        defect="delivery-store-fails",
        case="build-revise",
        expected_check="stall.run-retrying-errors",
        why="every delivery upload answers 500; the runner retries it for minutes: named within seconds, not by the"
        " deadline",
    ),
    DefectCase(
        defect="deliveries-hidden-after-agents-second",
        case="build-revise",
        expected_check="delivery.revision",
        why="the build is listed; once the agent delivers the revision, the task lists none",
    ),
    DefectCase(
        defect="deliveries-hidden-after-agents-second",
        case="hire-reuse",
        expected_check="delivery.second",
        why="Morgan's first delivery is listed; Morgan's second piece of work lists none",
    ),
)
