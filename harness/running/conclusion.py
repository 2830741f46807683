"""What an attempt concludes beyond its checks: how long its agents worked and what the work cost.

Computed from the runs the product recorded and from the harness's own model
server; the journey builds it once its final evidence is kept.
"""

from __future__ import annotations

from datetime import datetime

from harness.core.product_records import Run
from harness.running.attempt import Conclusion
from harness.running.model_server import ModelServer


def conclusion(
    runs: list[Run], model_server: ModelServer | None, oracle_image: str | None, agent_clis: dict[str, str]
) -> Conclusion:
    """Timing and accounting of the attempt's ``runs``."""
    return Conclusion(
        agent_run_s=round(_busy_s(runs), 3),
        accounting={
            "cost_cents": sum(run.cost_cents for run in runs),
            "run_count": len(runs),
            "model_calls": sum(run.spend.calls for run in runs),
            "simulated_cost_cents": round(sum(run.spend.simulated_cents for run in runs), 4),
            "refused_model_calls": sum(run.spend.refused_calls for run in runs),
            "agent_reported_cost_usd": _reported_cost_usd(runs),
            "replay_model_calls": model_server.model_calls() if model_server else None,
            "cost_recorded": bool(model_server and model_server.replaying),
        },
        oracle_image=oracle_image,
        agent_clis=agent_clis,
    )


def _reported_cost_usd(runs: list[Run]) -> float | None:
    """The sum of what the agent CLIs reported themselves (None when none did): a comparison, never spend."""
    reported = [run.agent_reported_cost_usd for run in runs if run.agent_reported_cost_usd is not None]
    return round(sum(reported), 6) if reported else None


def _busy_s(runs: list[Run]) -> float:
    """Seconds during which at least one run was active: a lead waiting on its teammate counts once."""
    spans = sorted(
        (datetime.fromisoformat(run.started_at), datetime.fromisoformat(run.ended_at))
        for run in runs
        if run.started_at and run.ended_at
    )
    busy, reach = 0.0, None
    for start, end in spans:
        if reach is None or start > reach:
            busy, reach = busy + (end - start).total_seconds(), end
        elif end > reach:
            busy, reach = busy + (end - reach).total_seconds(), end
    return busy
