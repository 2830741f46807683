"""A campaign's plan (campaign.json): what it was asked to run, so it can be resumed and its missing cells named.

Written when a campaign starts (and again by each resume), before any cell
runs: a run killed at any moment leaves its plan behind. It is the
``RunSettings`` of the run, whole, so a resume plays the same cells with the
same settings (attempts, product defect, persona, deadlines).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from harness.core.settings import RunSettings

PLAN_FILE = "campaign.json"


class PlanError(ValueError):
    """No campaign, or no readable plan to resume it from: one line for the person who asked."""


def write_plan(settings: RunSettings) -> Path:
    """Record the run's settings in its campaign folder; written whole, then moved in place, so never half."""
    folder = settings.results / settings.campaign
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / f".{PLAN_FILE}.partial"
    partial.write_text(settings.model_copy(update={"resume": None, "rerun": None}).model_dump_json(indent=2) + "\n")
    return partial.replace(folder / PLAN_FILE)


def read_plan(results: Path, campaign: str) -> RunSettings:
    """The settings a campaign was started with (raises PlanError naming what is wrong)."""
    path = results / campaign / PLAN_FILE
    if not (results / campaign).is_dir():
        raise PlanError(f"no campaign {campaign} under {results}")
    try:
        return RunSettings.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        raise PlanError(
            f"{results / campaign} has no {PLAN_FILE}: it was not started by a harness that can resume it"
        ) from None
    except (OSError, ValidationError, ValueError) as error:
        raise PlanError(f"{path} is unreadable: {str(error).splitlines()[0]}") from error


def planned_cells(roots: Iterable[Path], campaign: str) -> tuple[str, ...]:
    """The cells a campaign selected, from the first root whose plan is readable; none without a plan."""
    for root in roots:
        try:
            return read_plan(root, campaign).cells
        except PlanError:
            continue
    return ()
