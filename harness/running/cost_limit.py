"""``harness run --max-cost-cents N``: no new paid cell starts once the campaign has spent N cents.

The spend is read back from the attempt records already written under the
campaign folder (real cents only; simulated replay cents never count), so
every xdist worker and every shard on the same results folder sees the same
figure without talking to the others. A cell already running finishes: the
product's own budgets are what stop a call mid-run.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.catalog import Cell
from harness.core.settings import RunSettings


def campaign_spent_cents(results: Path, campaign: str) -> int:
    """Real cents of every attempt recorded so far in the campaign."""
    total = 0
    for path in (results / campaign).glob("*/*/attempt.json"):
        try:
            total += int(json.loads(path.read_text()).get("accounting", {}).get("cost_cents", 0))
        except (OSError, ValueError, TypeError):
            continue
    return total


def cost_limit_reason(cell: Cell, settings: RunSettings) -> str | None:
    """Why a paid cell must not start (reported ``skipped``); None when it may."""
    if settings.max_cost_cents is None or not cell.paid:
        return None
    spent = campaign_spent_cents(settings.results, settings.campaign) + settings.spent_elsewhere_cents
    if spent < settings.max_cost_cents:
        return None
    return f"campaign cost limit reached: {spent} of {settings.max_cost_cents} cents spent before this cell started"
