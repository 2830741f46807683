"""The page's thread against the stored messages: each stored message shown exactly once."""

from __future__ import annotations

from harness.checks.ui import THREAD_CHECK, thread_matches_records


def test_each_stored_message_shown_once_passes() -> None:
    check = thread_matches_records([1, 2, 3], ["1", "2", "3"])
    assert (check.id, check.passed) == (THREAD_CHECK, True)


def test_a_message_shown_twice_fails_naming_it() -> None:
    check = thread_matches_records([1, 2], [1, 2, 2])
    assert not check.passed and "message 2 shown 2 times" in check.detail


def test_a_missing_message_fails() -> None:
    check = thread_matches_records([1, 2], [1])
    assert not check.passed and check.detail == "message 2 shown 0 times"
