"""The judge reply cache: a raw model reply kept under a key of everything that shaped it.

The key is the whole request (its digest), the rubric and prompt template
digests, the judge's name and version, the pinned model id, the endpoint and
the parameters: a judge cache keyed on less serves old verdicts under a new
judge's name. The parser version is *not* in the reply key but in the result
key: a fixed parser re-reads the cached raw reply, with no new model call.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel

from harness.judges.digests import digest_json
from harness.judges.models import Usage


class ReplyKey(BaseModel):
    request_digest: str
    rubric_digest: str
    prompt_template_digest: str
    judge: str
    judge_version: str
    model: str
    endpoint: str
    parameters: dict[str, object]

    def digest(self) -> str:
        return digest_json(self)


class CachedReply(BaseModel):
    """A reply as it came back, never its parse: parsing happens again on every read."""

    key: ReplyKey
    protocol: str
    raw_reply: str
    ended: str
    usage: Usage
    scripted: bool = False


class ReplyCache:
    """One folder of ``<key digest>.json`` files; written atomically, never edited."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def get(self, key: ReplyKey) -> CachedReply | None:
        path = self.folder / f"{key.digest()}.json"
        if not path.is_file():
            return None
        cached = CachedReply.model_validate_json(path.read_bytes())
        return cached if cached.key == key else None  # a digest collision is a miss, never another's reply

    def put(self, reply: CachedReply) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{reply.key.digest()}.json"
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps(reply.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
        partial.replace(path)
