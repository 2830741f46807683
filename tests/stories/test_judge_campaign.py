"""A scripted service-decline campaign, judged afterwards by the model judge against the replay's judge script.

Nothing of the run is replayed: `harness judge` reads the saved package only.
The first judgement calls the (scripted) model and keeps the call whole;
judging again calls nothing and writes a byte-identical judgement beside the
first; a changed rubric is a cache miss.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from harness.agents.loopback import LoopbackServer
from harness.cli import main
from harness.core import registry
from harness.replay.server import create_app
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import harness_run

CRITERION = "explanation-after-decline"


def judge_calls(url: str) -> int:
    return sum(1 for call in httpx.get(f"{url}/replay/calls").json() if call["script"] == "judge")


@marked(*PLAYS_CELLS)
def test_a_played_campaign_is_judged_by_a_model_once_then_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    played = harness_run(results, "--id", "service-decline")
    assert played.returncode == 0, played.stdout + played.stderr
    (package,) = (results / "test").glob("*/*/attempt.json")
    package = package.parent
    extra = json.loads((package / "attempt.json").read_text())["extra"]
    assert extra[f"criteria.{CRITERION}"] == "not_judged", "attempt.json names its criteria not judged at the end"
    with LoopbackServer(create_app("build")) as replay:
        flags = ["--judge", "model", "--judge-endpoint", f"{replay.url}/scripts/judge", "--judge-protocol", "anthropic"]
        judge = ["judge", "test", "--results", str(results), *flags, "--judge-model", "claude-haiku-4-5"]
        assert main(judge) == 0
        assert judge_calls(replay.url) == 1
        first = package / "judgements" / "model" / CRITERION / "0001.json"
        result = json.loads(first.read_text())["result"]
        (call,) = result["model_calls"]
        assert result["status"] == "passed" and result["judge_model"] == call["model"] == "claude-haiku-4-5"
        assert len(call["prompt_digest"]) == 64 and call["raw_reply"].endswith("VERDICT: passed")
        assert call["cost_cents"] > 0 and call["scripted"] is True

        assert main(judge) == 0
        assert judge_calls(replay.url) == 1, "judging again called the model"
        second = first.with_name("0002.json")
        assert second.read_bytes() == first.read_bytes()

        changed = [
            case.model_copy(
                update={"criteria": tuple(c.model_copy(update={"text": c.text + " Be strict."}) for c in case.criteria)}
            )
            for case in registry.cases()
        ]
        monkeypatch.setattr(registry, "cases", lambda: tuple(changed))
        assert main(judge) == 0
        assert judge_calls(replay.url) == 2, "a changed rubric was served from the cache"
        assert (
            json.loads(first.with_name("0003.json").read_text())["request"]["rubric_digest"]
            != json.loads(first.read_text())["request"]["rubric_digest"]
        )
