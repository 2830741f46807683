"""Digests of what a judgement depends on: canonical JSON, so equal content always hashes equal."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel


def digest_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def digest_json(value: object) -> str:
    data = value.model_dump(mode="json", by_alias=True) if isinstance(value, BaseModel) else value
    return digest_text(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
