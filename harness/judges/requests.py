"""Building a judge request from a saved package: the criterion's declared evidence, hashed, with excerpts.

Only the files a criterion declares are read; a file or field that is not
there is named in ``missing`` (a judge answers inconclusive on it), never
guessed. Oracle internals, logs, the trace and anything secret are withheld
by construction: nothing outside the declaration is read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from harness.core.criteria import Criterion, EvidenceNeed
from harness.judges.digests import digest_json
from harness.judges.models import EvidenceFile, Excerpt, JudgeRequest

WITHHELD = (
    "oracle internals (its task's hidden tests and collector)",
    "secrets (the package was scanned for them before it was written)",
    "logs and the browser trace (not declared evidence of this criterion)",
)


def rubric_digest(criterion: Criterion) -> str:
    """The criterion's text and evidence declaration: a changed rubric is a different judgement."""
    return digest_json(criterion)


def _excerpt(package: Path, need: EvidenceNeed) -> str | None:
    raw = (package / need.path).read_text(errors="replace")
    if need.field is None:
        return raw
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    value = data.get(need.field) if isinstance(data, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def build_request(
    package: Path, attempt: str, case: str, criterion: Criterion, agent_model: str | None = None
) -> JudgeRequest:
    """The request for ``criterion`` over the package folder ``package``."""
    files: dict[str, EvidenceFile] = {}
    excerpts: list[Excerpt] = []
    missing: list[str] = []
    for need in criterion.evidence:
        path = package / need.path
        where = need.path + (f" ({need.field})" if need.field else "")
        if not path.is_file():
            missing.append(f"{where}: no such file in the package")
            continue
        data = path.read_bytes()
        files[need.path] = EvidenceFile(path=need.path, sha256=hashlib.sha256(data).hexdigest(), size=len(data))
        text = _excerpt(package, need)
        if text is None:
            missing.append(f"{where}: {need.label} is not there")
            continue
        excerpts.append(Excerpt(path=need.path, field=need.field, role=need.role, label=need.label, text=text))
    return JudgeRequest(
        attempt=attempt,
        case=case,
        criterion_id=criterion.id,
        criterion_text=criterion.text,
        rubric_digest=rubric_digest(criterion),
        evidence=tuple(files[p] for p in sorted(files)),
        excerpts=tuple(excerpts),
        missing=tuple(missing),
        withheld=WITHHELD,
        fallback=criterion.fallback,
        agent_model=agent_model,
    )
