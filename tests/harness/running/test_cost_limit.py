"""--max-cost-cents: once a campaign's recorded real spend reaches N, no further paid cell starts."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core import registry
from harness.core.settings import RunSettings
from harness.running.cost_limit import campaign_spent_cents, cost_limit_reason

PAID = next(
    c for c in registry.catalog().cells() if c.execution_id == "everyday-workflows.runner-codex.local.build-revise"
)
FREE = next(
    c
    for c in registry.catalog().cells()
    if c.execution_id == "everyday-workflows-replay.replay-codex.local.build-revise"
)


def record(results: Path, cell_id: str, cents: int, simulated: float = 0.0) -> None:
    folder = results / "c" / cell_id / "1-abcd"
    folder.mkdir(parents=True)
    (folder / "attempt.json").write_text(
        json.dumps({"accounting": {"cost_cents": cents, "simulated_cost_cents": simulated}})
    )


def test_real_cents_count_and_simulated_ones_never(tmp_path: Path) -> None:
    record(tmp_path, "a", 40)
    record(tmp_path, "b", 0, simulated=500.0)
    assert campaign_spent_cents(tmp_path, "c") == 40


def test_a_paid_cell_is_refused_at_the_limit_and_a_free_one_still_runs(tmp_path: Path) -> None:
    settings = RunSettings(results=tmp_path, campaign="c", max_cost_cents=50)
    assert cost_limit_reason(PAID, settings) is None
    record(tmp_path, "a", 50)
    reason = cost_limit_reason(PAID, settings)
    assert reason is not None and "50 of 50 cents" in reason
    assert cost_limit_reason(FREE, settings) is None
    assert cost_limit_reason(PAID, RunSettings(results=tmp_path, campaign="c")) is None
