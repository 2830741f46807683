"""A CLI's own cost figure for a run of several turns: each session's running total is counted once."""

from __future__ import annotations

from harness.agents.cli_agent import Turn, reported_cost_of_run


def turn(session: str | None, cost: float | None) -> Turn:
    return Turn(
        session=session,
        seconds=1.0,
        exit_code=0,
        timed_out=False,
        stopped_for_budget=False,
        final_text="",
        reported_cost_usd=cost,
    )


def test_a_resumed_sessions_running_total_is_taken_once() -> None:
    # Claude Code 2.1.332: the resumed turn reports the whole session so far (0.2627 + 0.0327).
    assert reported_cost_of_run([turn("s1", 0.2627), turn("s1", 0.2954)]) == 0.2954


def test_separate_sessions_add_up_and_a_turn_without_a_session_stands_alone() -> None:
    turns = [turn("s1", 0.10), turn("s1", 0.15), turn("s2", 0.05), turn(None, 0.01), turn(None, 0.02)]
    assert reported_cost_of_run(turns) == 0.23


def test_no_reported_figure_is_none_not_zero() -> None:
    assert reported_cost_of_run([turn("s1", None), turn("s1", None)]) is None
