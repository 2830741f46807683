"""The reply cache's key is the whole request and everything that shaped the reply: any change is a miss."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.judges.cache import CachedReply, ReplyCache, ReplyKey
from harness.judges.models import Usage

KEY = ReplyKey(
    request_digest="req",
    rubric_digest="rub",
    prompt_template_digest="tpl",
    judge="model",
    judge_version="1",
    model="m",
    endpoint="http://127.0.0.1:1/scripts/judge",
    parameters={"max_tokens": 600, "temperature": 0.0, "protocol": "openai"},
)


@pytest.mark.parametrize(
    "change",
    [
        {"request_digest": "req2"},
        {"rubric_digest": "rub2"},
        {"prompt_template_digest": "tpl2"},
        {"judge": "other"},
        {"judge_version": "2"},
        {"model": "m2"},
        {"endpoint": "http://127.0.0.1:2/scripts/judge"},
        {"parameters": {"max_tokens": 600, "temperature": 0.5, "protocol": "openai"}},
    ],
)
def test_any_part_of_the_key_changed_is_a_miss(tmp_path: Path, change: dict[str, object]) -> None:
    cache = ReplyCache(tmp_path)
    cache.put(CachedReply(key=KEY, protocol="openai", raw_reply="VERDICT: passed", ended="done", usage=Usage()))
    assert cache.get(KEY) is not None
    assert cache.get(KEY.model_copy(update=change)) is None
