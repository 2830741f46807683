"""The page's thread against the stored messages: each stored message shown exactly once, nothing else."""

from __future__ import annotations

from harness.checks.ui import THREAD_CHECK, thread_matches_records


def test_each_stored_message_shown_once_passes() -> None:
    check = thread_matches_records([1, 2, 3], ["1", "2", "3"])
    assert (check.id, check.passed) == (THREAD_CHECK, True)


def test_a_message_shown_twice_fails_naming_it() -> None:
    check = thread_matches_records([1, 2], [1, 2, 2])
    assert not check.passed and "message 2 shown 2 times" in check.detail


def test_a_missing_or_unstored_message_fails() -> None:
    check = thread_matches_records([1, 2], [1, 7])
    assert not check.passed
    assert "message 2 shown 0 times" in check.detail and "message 7 shown but not stored" in check.detail
