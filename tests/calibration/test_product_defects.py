"""Every product defect makes its story fail on the intended check, never by the deadline."""

from __future__ import annotations

from calibration.product_defects import DEADLINE_REASON, registry_rows, run_product_defect_suite
from harness.core.deadline import Deadline


def test_the_registry_and_the_cases_match() -> None:
    assert registry_rows() == [], [row.detail for row in registry_rows()]


def test_a_deadline_is_recognised_in_the_reason() -> None:
    assert DEADLINE_REASON.search(str(Deadline(120).exceeded("waiting for the revision on task 1")))
    assert not DEADLINE_REASON.search("failed checks: invariant.unread-count")


def test_every_defect_is_caught_by_its_intended_check() -> None:
    """The whole suite as `make calibrate ARGS=product-defects` runs it: two cells at a time."""
    wrong = [row for row in run_product_defect_suite() if not row.ok]
    assert wrong == [], "\n".join(
        f"{row.delivery}: expected {row.expected}, got {row.got} ({row.detail})" for row in wrong
    )
