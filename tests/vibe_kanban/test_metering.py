"""Each run's model calls from our proxy's ledgers: credited by worktree and start, each call once."""

from __future__ import annotations

from pathlib import Path

from everyday_vibe_kanban.metering import LEDGERS, LedgerHead, run_spend
from harness.agents.metering.proxy import CallReport


def _report(call_id: str | None, cents: float, in_flight: bool = False, refused: str | None = None) -> str:
    return CallReport(
        protocol="messages",
        provider="anthropic",
        model="claude-sonnet-4-5",
        status=0 if in_flight else 200,
        usage=None,
        cost_cents=cents,
        simulated=True,
        price_table="t",
        refused=refused,
        spent_cents=cents,
        budget_cents=None,
        call_id=call_id,
        in_flight=in_flight,
    ).model_dump_json()


def _ledger(instance: Path, worktree: str, began: float, *lines: str, last_line_whole: bool = True) -> None:
    folder = instance / LEDGERS
    folder.mkdir(exist_ok=True)
    text = "\n".join([LedgerHead(worktree=worktree, began=began).model_dump_json(), *lines])
    (folder / f"{began}.jsonl").write_text(text + ("\n" if last_line_whole else ""))


def test_a_runs_calls_are_its_worktrees_ledgers_from_its_start_to_the_next_run_each_call_once(tmp_path: Path) -> None:
    _ledger(tmp_path, "vk-1", 100.2, _report("a", 1.0, in_flight=True), _report("a", 3.0), _report("b", 2.0, True))
    _ledger(tmp_path, "vk-1", 150.0, _report("c", 5.0), _report(None, 0.0, refused="budget"))
    _ledger(tmp_path, "vk-2", 100.5, _report("d", 7.0))
    _ledger(tmp_path, "vk-1", 160.0, _report("e", 1.0), '{"protocol": "mess', last_line_whole=False)

    first = run_spend(tmp_path, "vk-1", began=100.0, until=150.0)
    assert (first.calls, first.simulated_cents, first.cents, first.refused_calls) == (2, 5.0, 0.0, 0)
    second = run_spend(tmp_path, "vk-1", began=150.0, until=160.0)
    assert (second.calls, second.simulated_cents, second.refused_calls) == (1, 5.0, 1)
    assert run_spend(tmp_path, "vk-1", began=160.0, until=None).calls == 1  # a line being written is not read yet
    assert run_spend(tmp_path, "vk-3", began=0.0, until=None).calls == 0
