"""The published JSON Schema of attempt.json, generated from the pydantic model.

Other tools (dashboards, importers, other languages) validate against this
file instead of reading our Python. Its ``$id`` carries the schema version,
so a reader can tell which shape it holds; ``harness/core/schemas/attempt.schema.json``
is the committed copy and a test keeps it equal to the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.core.records import ATTEMPT_SCHEMA_VERSION, AttemptRecord

COMMITTED_SCHEMA = Path(__file__).with_name("schemas") / "attempt.schema.json"


def attempt_schema() -> dict[str, Any]:
    schema = AttemptRecord.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:everyday-evals:attempt:v{ATTEMPT_SCHEMA_VERSION}",
        **schema,
        "description": f"attempt.json, schema_version {ATTEMPT_SCHEMA_VERSION}: one attempt of one cell and its evidence.",
    }


def schema_text() -> str:
    return json.dumps(attempt_schema(), indent=2, sort_keys=True) + "\n"


def write_schema(out: Path | None = None) -> str:
    """The schema as text; also written to OUT when given (a folder gets attempt.schema.json)."""
    text = schema_text()
    if out is not None:
        target = out / "attempt.schema.json" if out.is_dir() else out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return text
