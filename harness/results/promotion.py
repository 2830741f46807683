"""The promotion gate: a suite version is promoted only on reviewed, repeated, calibrated evidence.

``evaluate`` collects *every* reason to refuse instead of stopping at the
first, so a maintainer fixes them all in one pass. The rules (issue 6):

- every counted attempt ran on a clean tree, with one source revision, one
  harness digest and the current definition of the suite;
- calibration passed, completely, for that harness digest;
- every local cell of the suite has at least three *independent* attempts:
  an original attempt and its automatic retries form one chain and count
  once, and only when the chain reached a decisive verdict (passed or
  failed); skipped, unexercised and infrastructure failures prove nothing
  about the product;
- every counted attempt that did not pass (failed, infrastructure_failed,
  unexercised, or a broken package) carries a review note;
- every judged criterion of every counted attempt was judged (``harness
  judge``): "not judged" is no verdict, and a judge that broke (an
  instrument failure) must judge again;
- when a baseline campaign is named, the candidate (the one counted
  campaign) is not worse than it: no cell of the suite regressed by
  ``harness compare``'s test (Fisher's exact, Holm-adjusted, below alpha).

Counted attempts are the suite's attempts that are not diagnostics
(diagnostics stay in the report, out of the promoted matrix).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness.core import registry
from harness.core.catalog import Case, Catalog, suite_definition_hash
from harness.core.records import utc_now
from harness.judges.mapping import CriterionState, criteria_states
from harness.results.calibration_record import CalibrationRecord, calibration_path, read_calibration
from harness.results.compare import REGRESSED, CompareError, compare
from harness.results.packages import LoadedAttempt, load_attempts
from harness.results.review import default_reviewer

PROMOTIONS_FOLDER = "promotions"
PROMOTION_SCHEMA_VERSION = 1
MIN_INDEPENDENT_ATTEMPTS = 3
DECISIVE = frozenset({"passed", "passed_with_recovery", "failed"})
RECOVERED = "passed_with_recovery"
NEEDS_REVIEW = frozenset({"failed", "infrastructure_failed", "unexercised", "broken"})
# How many attempt keys a reason names before it says "and N more".
NAMED = 5


class ReviewedAttempt(BaseModel):
    attempt: str
    verdict: str
    reviewer: str
    note: str


class PromotionRecord(BaseModel):
    schema_version: int = PROMOTION_SCHEMA_VERSION
    suite: str
    suite_definition_hash: str
    source_revision: str
    harness_digest: str
    promoted_at: datetime = Field(default_factory=utc_now)
    promoted_by: str
    calibration: str = Field(description="path of the calibration record relied on")
    counts: dict[str, dict[str, int]] = Field(description="execution id -> verdict -> attempts")
    independent: dict[str, int] = Field(description="local execution id -> independent attempts")
    attempts: list[str]
    recovered: list[str] = Field(
        default_factory=list,
        description="attempts that passed only after the harness recovered its own infrastructure: passes, named"
        " apart from the clean ones",
    )
    notes: list[ReviewedAttempt]


class Decision(BaseModel):
    suite: str
    reasons: list[str]
    counted: list[LoadedAttempt]
    calibration: str = Field("", description="the passing calibration record relied on")

    @property
    def accepted(self) -> bool:
        return not self.reasons

    @property
    def recovered(self) -> list[str]:
        """The counted attempts that passed only after a recovery of the harness's own: passes, shown apart."""
        return [a.key for a in self.counted if a.verdict == RECOVERED]


def _named(keys: Sequence[str]) -> str:
    more = f" and {len(keys) - NAMED} more" if len(keys) > NAMED else ""
    return ", ".join(keys[:NAMED]) + more


def _one_value(counted: Sequence[LoadedAttempt], what: str, attribute: str) -> list[str]:
    values = Counter(getattr(a.record.provenance, attribute) for a in counted if a.record)
    if len(values) <= 1:
        return []
    spread = "; ".join(f"{value} ({n} attempt(s))" for value, n in values.most_common())
    return [f"attempts ran on different {what}s: {spread}"]


def _chain(attempt: LoadedAttempt, by_id: dict[tuple[str, str], LoadedAttempt]) -> tuple[str, str]:
    """The original attempt a retry chain started from (its id even when only the retry is on disk)."""
    key, seen = (attempt.campaign, attempt.attempt), set()
    while key in by_id and key not in seen:
        seen.add(key)
        record = by_id[key].record
        if not (record and record.retry_of):
            break
        key = (attempt.campaign, record.retry_of)
    return key


def independent_attempts(attempts: Sequence[LoadedAttempt]) -> int:
    """Chains (an original and its automatic retries, within one campaign) that reached passed or failed."""
    by_id = {(a.campaign, a.attempt): a for a in attempts}
    return len({_chain(a, by_id) for a in attempts if a.verdict in DECISIVE})


def _calibration_reasons(roots: Sequence[Path], digests: set[str]) -> tuple[list[str], str]:
    reasons: list[str] = []
    relied_on = ""
    for digest in sorted(digests):
        found = [(root, read_calibration(root, digest)) for root in roots]
        records = [(root, r) for root, r in found if isinstance(r, CalibrationRecord)]
        good = [(root, r) for root, r in records if r.passed and r.complete]
        if good:
            relied_on = str(calibration_path(good[0][0], digest))
            continue
        problems = [r for _, r in found if isinstance(r, str)]
        if records:
            record = records[0][1]
            if not record.passed:
                problems.append(
                    f"calibration failed for harness digest {digest}: {len(record.wrong)} wrong row(s) of {record.rows}"
                )
            if not record.complete:
                problems.append(
                    f"calibration for harness digest {digest} ran only {', '.join(record.suites)}, not every suite"
                )
        if not problems:
            where = calibration_path(roots[0], digest)
            problems.append(f"no calibration record for harness digest {digest} ({where}); run 'make calibrate'")
        reasons += problems
    return reasons, relied_on


def evaluate(
    suite: str,
    results: Sequence[Path] = (Path("results"),),
    campaigns: Sequence[str] = (),
    min_independent: int = MIN_INDEPENDENT_ATTEMPTS,
    catalog: Catalog | None = None,
    baseline: str | None = None,
) -> Decision:
    """Every reason the suite cannot be promoted from these results (none: it can)."""
    catalog = catalog or registry.catalog()
    definitions = {s.name: s for s in catalog.suites}
    if suite not in definitions:
        return Decision(
            suite=suite,
            reasons=[f"unknown suite '{suite}'; valid suites: {', '.join(sorted(definitions))}"],
            counted=[],
        )
    definition = definitions[suite]
    counted = [
        a
        for a in load_attempts(results)
        if a.suite == suite and not a.diagnostic_reason and (not campaigns or a.campaign in campaigns)
    ]
    if not counted:
        where = ", ".join(str(r) for r in results)
        return Decision(suite=suite, reasons=[f"no attempts of suite {suite} under {where}"], counted=[])
    reasons: list[str] = []
    recorded = [a for a in counted if a.record]
    dirty = [a.key for a in recorded if a.record and a.record.provenance.source_dirty]
    if dirty:
        reasons.append(f"{len(dirty)} attempt(s) ran on a dirty source tree: {_named(dirty)}")
    reasons += _one_value(recorded, "source revision", "source_revision")
    reasons += _one_value(recorded, "harness digest", "harness_digest")
    current_hash = suite_definition_hash(definition)
    stale = [a.key for a in recorded if a.record and a.record.provenance.suite_definition_hash != current_hash]
    if stale:
        reasons.append(
            f"{len(stale)} attempt(s) ran a different definition of suite {suite} than the catalog's: {_named(stale)}"
        )
    calibration, relied_on = _calibration_reasons(
        results, {a.record.provenance.harness_digest for a in recorded if a.record}
    )
    reasons += calibration
    by_cell: dict[str, list[LoadedAttempt]] = defaultdict(list)
    for attempt in counted:
        by_cell[attempt.execution_id].append(attempt)
    local_cells = [c.execution_id for c in catalog.cells() if c.suite.name == suite and c.environment.name == "local"]
    for execution_id in local_cells:
        found = independent_attempts(by_cell.get(execution_id, []))
        if found < min_independent:
            reasons.append(
                f"{execution_id} has {found} independent attempt(s) that passed or failed; {min_independent} needed"
            )
    for attempt in counted:
        if attempt.verdict in NEEDS_REVIEW and not attempt.reviewed:
            reasons.append(
                f"{attempt.key} is {attempt.verdict} and has no review note (harness review {attempt.folder} --note ...)"
            )
    reasons += unjudged_reasons(counted, {case.name: case for case in definition.cases})
    if baseline is not None:
        reasons += baseline_reasons(suite, results, campaigns, baseline)
    return Decision(suite=suite, reasons=reasons, counted=counted, calibration=relied_on)


def unjudged_reasons(counted: Sequence[LoadedAttempt], cases: dict[str, Case]) -> list[str]:
    """One reason per criterion no judge decided on some counted attempt (not judged, or the judge broke)."""
    open_: dict[str, list[str]] = defaultdict(list)
    for attempt in counted:
        case = cases.get(attempt.case)
        if attempt.record is None or case is None:
            continue
        for state in criteria_states(attempt.folder, case.criteria):
            if state.state in (CriterionState.NOT_JUDGED, CriterionState.INSTRUMENT_FAILED):
                open_[f"{case.name} {state.criterion} ({state.state.value.replace('_', ' ')})"].append(attempt.key)
    return [
        f"judged criterion {what} on {len(keys)} attempt(s): {_named(keys)} (harness judge CAMPAIGN --judge NAME)"
        for what, keys in sorted(open_.items())
    ]


def baseline_reasons(suite: str, results: Sequence[Path], campaigns: Sequence[str], baseline: str) -> list[str]:
    """Why the candidate campaign is worse than the baseline on this suite's cells (none: it is not)."""
    if len(campaigns) != 1:
        return [f"a baseline ({baseline}) is compared with one candidate campaign: name exactly one --campaign"]
    found = [(root / baseline, root / campaigns[0]) for root in results]
    pairs = [(base, candidate) for base, candidate in found if base.is_dir() and candidate.is_dir()]
    if not pairs:
        return [f"no results folder holds both the baseline {baseline} and the candidate {campaigns[0]}"]
    try:
        comparison = compare([str(pairs[0][0]), str(pairs[0][1])])
    except CompareError as error:
        return [f"cannot compare with the baseline: {error}"]
    return [
        f"{cell.execution_id} regressed against the baseline {baseline}: {cell.test}, p = {cell.p_exact}"
        f" (Holm {cell.p_adjusted:.3g})"
        for cell in comparison.cells
        if cell.direction == REGRESSED and cell.execution_id.split(".")[0] == suite
    ]


def promotion_record(decision: Decision, promoted_by: str | None = None) -> PromotionRecord:
    first = next(a.record for a in decision.counted if a.record)
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    for attempt in decision.counted:
        counts[attempt.execution_id][attempt.verdict] = counts[attempt.execution_id].get(attempt.verdict, 0) + 1
    by_cell: dict[str, list[LoadedAttempt]] = defaultdict(list)
    for attempt in decision.counted:
        by_cell[attempt.execution_id].append(attempt)
    notes = [
        ReviewedAttempt(attempt=a.key, verdict=a.verdict, reviewer=n.reviewer, note=n.note)
        for a in decision.counted
        if a.reviews
        for n in a.reviews.notes
    ]
    return PromotionRecord(
        suite=decision.suite,
        suite_definition_hash=first.provenance.suite_definition_hash,
        source_revision=first.provenance.source_revision,
        harness_digest=first.provenance.harness_digest,
        promoted_by=promoted_by or default_reviewer(),
        calibration=decision.calibration,
        counts=dict(sorted(counts.items())),
        independent={
            cell: independent_attempts(items)
            for cell, items in sorted(by_cell.items())
            if items[0].environment == "local"
        },
        attempts=[a.key for a in decision.counted],
        recovered=decision.recovered,
        notes=notes,
    )


def promote(
    suite: str,
    results: Sequence[Path] = (Path("results"),),
    campaigns: Sequence[str] = (),
    min_independent: int = MIN_INDEPENDENT_ATTEMPTS,
    promoted_by: str | None = None,
    baseline: str | None = None,
) -> tuple[Decision, Path | None]:
    """Evaluate the gate; when it accepts, write the promotion record under the first results root."""
    decision = evaluate(suite, results, campaigns, min_independent, baseline=baseline)
    if not decision.accepted:
        return decision, None
    record = promotion_record(decision, promoted_by)
    stamp = record.promoted_at.strftime("%Y%m%dT%H%M%S")
    path = results[0] / PROMOTIONS_FOLDER / f"{suite}-{record.source_revision[:12]}-{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.model_dump_json(indent=2) + "\n")
    return decision, path


def read_promotions(roots: Sequence[Path]) -> list[tuple[Path, PromotionRecord | str]]:
    """Every promotion record of the roots, newest first; unreadable ones as a message."""
    found: list[tuple[Path, PromotionRecord | str]] = []
    for root in roots:
        for path in sorted((root / PROMOTIONS_FOLDER).glob("*.json")):
            try:
                found.append((path, PromotionRecord.model_validate_json(path.read_text())))
            except (ValidationError, ValueError, OSError) as error:
                found.append((path, f"unreadable promotion record: {str(error).splitlines()[0]}"))
    return sorted(found, key=lambda item: item[0].name, reverse=True)
