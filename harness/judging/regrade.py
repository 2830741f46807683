"""Judge saved packages again with the rules of the current code, writing a new assessment beside the original.

The original attempt.json is never touched: each regrade adds
``assessments/NNN-<time>.json`` with the checks and verdict the current rules
give on the package's own observations, the digest of the rule code used, and
what changed. Readers (report, summary, compare) take the newest assessment.
A rule that is gone, or a package without the inputs a rule now needs, gives
that rule's checks as *no evidence*: failed and named, never a pass.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import re
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness.core.numbered import add_numbered
from harness.core.records import AttemptRecord, CheckRecord, utc_now
from harness.core.verdicts import Verdict
from harness.judging.keeping import Unobservable, kept_checks
from harness.judging.observations import (
    OBSERVATIONS_FILE,
    InputsMissing,
    Observation,
    RuleNotFound,
    apply,
    load_rule,
    with_filed,
)
from harness.judging.verdict import verdict_of

ASSESSMENTS_FOLDER = "assessments"
NUMBERED = re.compile(r"^(\d{3,})-[0-9T]+\.json$")
ASSESSMENT_SCHEMA_VERSION = 1
NO_EVIDENCE = "no evidence"


class RegradeError(ValueError):
    """A package that cannot be judged again: one line saying which and why."""


class CheckChange(BaseModel):
    """One check whose record differs between the assessment before and this one (None: not there)."""

    id: str
    before: CheckRecord | None
    after: CheckRecord | None


class Assessment(BaseModel):
    """One judgement of a package, kept beside its attempt.json."""

    schema_version: int = ASSESSMENT_SCHEMA_VERSION
    assessed_at: datetime = Field(default_factory=utc_now)
    rules_digest: str = Field(description="sha256 over the source of the judging code and every rule it applied")
    based_on: str = Field(description="the record this one was compared with: the package's attempt.json")
    verdict: Verdict
    reason: str
    verdict_before: Verdict
    reason_before: str
    checks: list[CheckRecord]
    changed: list[CheckChange] = Field(default_factory=list)
    no_evidence: list[str] = Field(default_factory=list, description="checks the package holds no inputs for now")
    kept_as_decided: int = Field(0, description="checks decided while the attempt ran: kept, never judged again")


def read_observations(folder: Path) -> list[Observation]:
    path = folder / OBSERVATIONS_FILE
    if not path.is_file():
        raise RegradeError(f"{folder}: no {OBSERVATIONS_FILE}: the attempt was recorded before it could be regraded")
    try:
        return [Observation.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]
    except ValidationError as error:
        raise RegradeError(f"{path}: not an observation record: {error.errors()[0]['msg']}") from error


def judge_observations(
    observations: Iterable[Observation], unobservable: Unobservable, folder: Path
) -> tuple[list[CheckRecord], list[str], set[str], int]:
    """The checks the current rules give on ``observations`` (of the package in ``folder``, which keeps the filed
    arguments), in order; the ids with no evidence; the rules applied; how many checks were kept as decided."""
    checks: list[CheckRecord] = []
    missing: list[str] = []
    rules: set[str] = set()
    decided = 0
    for observation in sorted(observations, key=lambda o: o.seq):
        if observation.kind == "decided" or observation.rule is None:
            found = observation.decided
            decided += len(found)
        else:
            rules.add(observation.rule)
            try:
                found = apply(load_rule(observation.rule), with_filed(observation, folder))
            except (RuleNotFound, InputsMissing, ValidationError) as error:
                why = f"{NO_EVIDENCE}: {observation.rule} cannot judge this package's inputs ({_first_line(error)})"
                found = [CheckRecord(id=check_id, passed=False, detail=why) for check_id in observation.check_ids]
                missing += observation.check_ids
        checks += kept_checks(found, observation, unobservable)
    return checks, missing, rules, decided


def rules_digest(rules: Iterable[str]) -> str:
    """sha256 over the source files of the judging package, of every rule applied (by module), and of every module
    of ``harness.checks``, which the rules build on (an invariant corrected in its own module changes the digest of
    the rule that folds the watch's looks)."""
    files = {Path(inspect.getfile(sys.modules[__name__])).parent / name for name in ("keeping.py", "verdict.py")}
    files |= {Path(inspect.getfile(sys.modules["harness.judging.observations"]))}
    for rule in rules:
        try:
            files.add(Path(inspect.getfile(load_rule(rule))))
        except (RuleNotFound, TypeError):
            continue
    files |= set((Path(inspect.getfile(sys.modules[__name__])).parents[1] / "checks").glob("*.py"))
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(str(path.name).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def changes(before: list[CheckRecord], after: list[CheckRecord]) -> list[CheckChange]:
    """Every check whose record differs, matched by id and by its place among the checks of that id."""

    def keyed(checks: list[CheckRecord]) -> dict[tuple[str, int], CheckRecord]:
        seen: dict[str, int] = {}
        out: dict[tuple[str, int], CheckRecord] = {}
        for check in checks:
            seen[check.id] = seen.get(check.id, 0) + 1
            out[(check.id, seen[check.id])] = check
        return out

    old, new = keyed(before), keyed(after)
    order = list(old) + [key for key in new if key not in old]
    return [
        CheckChange(id=key[0], before=old.get(key), after=new.get(key)) for key in order if old.get(key) != new.get(key)
    ]


def newest_assessment(folder: Path) -> tuple[str, Assessment] | None:
    """The newest assessment beside a package (its file name and content), or None."""
    found = sorted((folder / ASSESSMENTS_FOLDER).glob("*.json")) if (folder / ASSESSMENTS_FOLDER).is_dir() else []
    for path in reversed(found):
        try:
            return path.name, Assessment.model_validate_json(path.read_bytes())
        except (ValidationError, OSError):
            continue
    return None


def assess(folder: Path, record: AttemptRecord, unobservable: Unobservable) -> Assessment:
    """The package judged again, compared with its original attempt.json."""
    if record.outcome is None:
        raise RegradeError(f"{folder}: attempt.json keeps no outcome: recorded before it could be regraded")
    # An attempt that ended before it observed anything (skipped, or its product never started) kept no file.
    nothing_seen = not record.checks and not (folder / OBSERVATIONS_FILE).is_file()
    observations = [] if nothing_seen else read_observations(folder)
    checks, missing, rules, decided = judge_observations(observations, unobservable, folder)
    verdict, reason = verdict_of(record.outcome, checks, record.interrupted, record.recoveries)
    return Assessment(
        rules_digest=rules_digest(rules),
        based_on="attempt.json",
        verdict=verdict,
        reason=reason,
        verdict_before=record.verdict,
        reason_before=record.reason,
        checks=checks,
        changed=changes(record.checks, checks),
        no_evidence=missing,
        kept_as_decided=decided,
    )


def write_assessment(folder: Path, assessment: Assessment) -> Path:
    """Add ``assessment`` beside the package, after every earlier one; nothing existing is touched."""
    stamp = assessment.assessed_at.strftime("%Y%m%dT%H%M%S")
    text = json.dumps(assessment.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"
    return add_numbered(folder / ASSESSMENTS_FOLDER, NUMBERED, lambda number: f"{number:03d}-{stamp}.json", text)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else type(error).__name__
