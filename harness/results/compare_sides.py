"""The sides of a comparison: a campaign read from its folder, its provenance, and whether it was run as pairs.

Reading is kept apart from judging so the tests of either can be told apart,
and so a campaign is read the same way whichever design compares it: every
package (superseded and unreadable ones too), its plan when it has one, and
the pair ids its attempts recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.results.epochs import by_cell
from harness.results.packages import ATTEMPT_FILE, campaign_package_folders, read_package
from harness.results.plan import PLAN_FILE, PlanError, read_plan

SETTINGS_COMPARED = (
    "product_defect",
    "scripted_persona",
    "replay_script",
    "cassette",
    "hard_stop_cents",
    "pace_s",
    "deadline_s",
)
"""Run settings that change what a campaign measures, recorded beside the attempts' provenance."""


class CompareError(ValueError):
    """A side that is not a campaign, or a design that cannot be compared so: one line, exit 2."""


class Side(BaseModel):
    campaign: str
    variant: str | None = Field(None, description="the paired variant this side is (a paired campaign's sides)")
    folder: str
    attempts: int = Field(description="attempt packages read, superseded ones included")
    read_from: dict[str, int] = Field(
        default_factory=dict,
        description="where the verdicts were read: attempt.json, or the newest assessment of `harness regrade` (named"
        " by its rules digest) -> attempts",
    )
    provenance: dict[str, list[str]] = Field(
        description="what the side ran on: each provenance field and run setting -> its distinct values"
    )


def campaign_folder(reference: str, results: Path) -> Path:
    """A campaign folder given as a path or as an id under the results folder (raises CompareError)."""
    for folder in (Path(reference), results / reference):
        if folder.is_dir() and ((folder / PLAN_FILE).is_file() or any(folder.glob(f"*/*/{ATTEMPT_FILE}"))):
            return folder
    if Path(reference).is_dir() or (results / reference).is_dir():
        raise CompareError(f"{reference} is not a campaign folder (no {PLAN_FILE} and no attempt.json in it)")
    raise CompareError(f"no campaign {reference} (neither a folder nor a campaign under {results})")


def _plan(folder: Path) -> RunSettings | None:
    try:
        return read_plan(folder.parent, folder.name)
    except PlanError:
        return None


@dataclass(frozen=True)
class LoadedCampaign:
    """One campaign read: its records, and per cell the packages without a readable record."""

    folder: Path
    plan: RunSettings | None
    records: list[AttemptRecord]
    broken: Counter[str]
    packages: int
    read_from: Counter[str]

    def ends(self, records: Sequence[AttemptRecord] | None = None) -> dict[str, list[AttemptRecord | None]]:
        """Per cell the newest attempt of each slot, and None for each unreadable package."""
        found: dict[str, list[AttemptRecord | None]] = {
            cell: list(ends) for cell, ends in by_cell(self.records if records is None else records).items()
        }
        if records is None:
            for cell, count in self.broken.items():
                found.setdefault(cell, []).extend([None] * count)
        return found


def load_campaign(folder: Path) -> LoadedCampaign:
    loaded = [read_package(folder.parent, package) for package in campaign_package_folders(folder)]
    return LoadedCampaign(
        folder=folder,
        plan=_plan(folder),
        records=[attempt.record for attempt in loaded if attempt.record],
        broken=Counter(attempt.execution_id for attempt in loaded if attempt.record is None),
        packages=len(loaded),
        read_from=Counter(
            f"assessment {attempt.assessment.rules_digest[:12]}" if attempt.assessment else ATTEMPT_FILE
            for attempt in loaded
            if attempt.record
        ),
    )


def _provenance(records: Sequence[AttemptRecord], plan: RunSettings | None) -> dict[str, list[str]]:
    values: dict[str, set[str]] = {}
    for record in records:
        provenance = record.provenance.model_dump(mode="json")
        provenance["agent_clis"] = ", ".join(f"{k}={v}" for k, v in sorted(record.provenance.agent_clis.items()))
        for name, value in provenance.items():
            values.setdefault(name, set()).add(str(value))
    settings = plan.model_dump(mode="json") if plan else {}
    for name in SETTINGS_COMPARED:
        values[f"settings.{name}"] = {str(settings.get(name))} if settings else {"(no plan)"}
    return {name: sorted(found) for name, found in sorted(values.items())}


def side_of(
    loaded: LoadedCampaign, records: Sequence[AttemptRecord], plan: RunSettings | None, variant: str | None
) -> Side:
    return Side(
        campaign=loaded.folder.name,
        variant=variant,
        folder=str(loaded.folder),
        attempts=len(records) if variant else loaded.packages,
        read_from=dict(sorted(loaded.read_from.items())),
        provenance=_provenance(records, plan),
    )


def paired_variants(loaded: LoadedCampaign) -> list[tuple[str, RunSettings | None]] | None:
    """A paired campaign's (label, settings) of its base and candidate variants; None for a campaign without pairs.

    From the plan when it names the pair, else from the pair marks the
    attempts carry: a campaign is paired by what was recorded, never by a guess.
    """
    if loaded.plan is not None and loaded.plan.pair is not None:
        return [(label, settings) for label, settings in loaded.plan.variants()]
    marks = {(record.pair.first, record.pair.variant) for record in loaded.records if record.pair}
    if not marks:
        return None
    firsts, seconds = (sorted(label for first, label in marks if first is wanted) for wanted in (True, False))
    if len(firsts) != 1 or len(seconds) != 1:
        raise CompareError(f"{loaded.folder.name}: its pair marks do not name one base and one candidate variant")
    return [(firsts[0], loaded.plan), (seconds[0], loaded.plan)]
