"""Cassettes: the tap records what the real model replay answers, and the player answers the same from the cassette."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from harness.agents.loopback import LoopbackServer
from harness.cassettes.model import Cassette, load_cassette
from harness.cassettes.normalise import Normaliser
from harness.cassettes.player import CassettePlayer
from harness.cassettes.session import Recording
from harness.core import story_inputs
from harness.core.registry import catalog

CANARY_KEY = "sk-canary-" + "7" * 24
CALLS = [
    ("/v1/responses", {"model": "gpt-5-codex", "input": [{"role": "user", "content": "build it"}]}),
    ("/v1/messages", {"model": "claude-haiku-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "go"}]}),
    ("/v1/chat/completions", {"model": "gpt-5-mini", "messages": [{"role": "user", "content": "go"}]}),
]
CELL = next(cell for cell in catalog().cells() if cell.execution_id.endswith("replay-codex.local.build-revise"))


def _post(url: str, path: str, body: dict, stream: bool) -> httpx.Response:
    headers = {"authorization": f"Bearer {CANARY_KEY}", "x-api-key": CANARY_KEY}
    return httpx.post(url + path, json=body | {"stream": stream}, headers=headers, timeout=30)


def _record(replay, tmp_path: Path, calls=CALLS, streams=(False, True)) -> Cassette:
    recording = Recording(replay.url)
    try:
        for path, body in calls:
            for stream in streams:
                assert _post(recording.url, path, body, stream).status_code == 200
    finally:
        recording.stop()
    return load_cassette(recording.keep(tmp_path, CELL, {}, [], {}, {}))


def _player(cassette: Cassette, rules=()) -> tuple[CassettePlayer, LoopbackServer]:
    player = CassettePlayer(cassette, Normaliser(rules))
    return player, LoopbackServer(player.app).start()


def test_a_recorded_exchange_is_answered_the_same_without_the_model(replay, tmp_path: Path) -> None:
    cassette = _record(replay, tmp_path)
    upstream_calls = len(replay.calls())
    assert [e.path for e in cassette.exchanges] == [path for path, _ in CALLS for _ in (False, True)]
    player, server = _player(cassette)
    try:
        for (path, body), recorded in zip([c for c in CALLS for _ in (0, 1)], cassette.exchanges, strict=True):
            stream = bool(recorded.events)
            answer = _post(server.url, path, body, stream)
            assert answer.status_code == recorded.status
            if stream:
                assert [e for e in answer.text.split("\n\n") if e.strip()] == [e.data for e in recorded.events]
            else:
                assert answer.text == recorded.body
    finally:
        server.stop()
    assert player.answered == len(cassette.exchanges) and player.divergences == []
    assert len(replay.calls()) == upstream_calls, "nothing reached the model while the cassette played"


def test_no_key_is_recorded_and_known_secrets_are_redacted(replay, tmp_path: Path) -> None:
    token = "run-token-" + "5" * 20
    body = {"model": "gpt-5-codex", "input": [{"role": "user", "content": f"my token is {token}, issue ABC-123456789"}]}
    recording = Recording(replay.url)
    try:
        _post(recording.url, "/v1/responses", body, stream=True)
    finally:
        recording.stop()
    patterns = {"issue id": re.compile(rb"ABC-\d{9}")}
    path = recording.keep(tmp_path, CELL, {}, [], {"run token": token}, patterns)
    text = path.read_text()
    assert CANARY_KEY not in text and token not in text and "ABC-123456789" not in text
    assert "[redacted: run token]" in text and "[redacted: issue id]" in text


def test_a_request_the_cassette_does_not_hold_diverges_with_a_diff(replay, tmp_path: Path) -> None:
    cassette = _record(replay, tmp_path, calls=CALLS[:1], streams=(True,))
    player, server = _player(cassette)
    changed = {"model": "gpt-5-codex", "input": [{"role": "user", "content": "build something else"}]}
    try:
        answer = _post(server.url, "/v1/responses", changed, stream=True)
    finally:
        server.stop()
    assert answer.status_code == 402 and "diverged at call 1" in answer.json()["error"]["message"]
    [divergence] = player.divergences
    assert divergence.call == 1 and divergence.nearest == 0
    assert '-   "content": "build it",' in divergence.diff.splitlines()
    assert '+   "content": "build something else",' in divergence.diff.splitlines()


def test_what_varies_between_runs_is_ignored_and_the_answer_gets_this_runs_values() -> None:
    normaliser = Normaliser([r"ses_[A-Za-z0-9]{8}"])
    recorded = '{"cwd": "/tmp/agent-home-run1-abc", "session": "ses_AAAAAAAA", "at": "2026-12-04T20:55:01Z"}'
    now = '{"cwd": "/tmp/agent-home-run1-xyz", "session": "ses_BBBBBBBB", "at": "2026-12-05T09:00:00Z"}'
    assert normaliser.key(recorded) == normaliser.key(now)
    assert normaliser.key(recorded) != normaliser.key(recorded.replace("cwd", "home"))
    answer = "write /tmp/agent-home-run1-abc/slugify.py for ses_AAAAAAAA"
    assert normaliser.fit(answer, recorded, now) == "write /tmp/agent-home-run1-xyz/slugify.py for ses_BBBBBBBB"


def test_identical_requests_are_answered_in_recorded_order(replay, tmp_path: Path) -> None:
    cassette = _record(replay, tmp_path, calls=[CALLS[0], CALLS[0]], streams=(False,))
    player, server = _player(cassette)
    try:
        answers = [_post(server.url, "/v1/responses", CALLS[0][1], stream=False).text for _ in range(2)]
        extra = _post(server.url, "/v1/responses", CALLS[0][1], stream=False)
    finally:
        server.stop()
    assert answers == [e.body for e in cassette.exchanges]
    assert extra.status_code == 402, "a third identical call is one more than was recorded"


def test_a_replay_hands_back_the_recorded_inputs_kind_by_kind() -> None:
    with story_inputs.drawing() as drawn:
        first = story_inputs.draw("nonce", lambda: "N1")
        marker = story_inputs.draw("contact-marker", lambda: "HS-1")
    assert [(d.kind, d.value) for d in drawn] == [("nonce", "N1"), ("contact-marker", "HS-1")]
    with story_inputs.drawing(drawn) as again:
        assert story_inputs.draw("contact-marker", lambda: "HS-2") == marker
        assert story_inputs.draw("nonce", lambda: "N2") == first
        assert story_inputs.draw("nonce", lambda: "N3") == "N3", "past the recording, values are fresh again"
    assert [d.value for d in again] == ["HS-1", "N1", "N3"]
    assert story_inputs.draw("nonce", lambda: "N4") == "N4", "outside a cassette a draw is just the fresh value"


@pytest.mark.parametrize(
    "flags,said",
    [
        (["--cassette", "/nonexistent/cassette.json"], "--cassette: no cassette at /nonexistent/cassette.json"),
        (["--record", "--cassette", "x"], "--record and --cassette exclude each other"),
    ],
)
def test_a_cassette_that_cannot_serve_is_refused_in_one_line(flags, said, capsys) -> None:
    from harness.cli import main

    assert main(["run", "--id", CELL.execution_id, *flags]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_recording_a_scripted_cell_and_replaying_another_story_are_refused(replay, tmp_path: Path, capsys) -> None:
    from harness.cli import main

    scripted = CELL.execution_id.replace(
        "everyday-workflows-replay.replay-codex", "everyday-workflows-scripted.scripted"
    )
    assert main(["run", "--id", scripted, "--record"]) == 2
    assert "makes no model calls to record" in capsys.readouterr().err
    _record(replay, tmp_path, calls=CALLS[:1], streams=(False,))
    other = CELL.execution_id.replace("build-revise", "stop-redirect")
    assert main(["run", "--id", other, "--cassette", str(tmp_path)]) == 2
    assert "it was recorded on" in capsys.readouterr().err
