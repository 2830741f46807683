"""A replay cell recorded into a cassette replays from it, with no model at all, to the same verdict, checks and cost.

The recording goes through the same path as a paid one (the agents' metering
proxies, the harness's tap), with the model replay playing the provider; the
replay runs the same cell with the cassette player instead, and the replay
server never starts. A product changed between the two shows as a divergence
or as the failed check that names the change, never as a pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cassettes.model import CASSETTE_FILE, load_cassette
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from tests.stories.harness_runs import attempts, harness_run

CLIS = ("codex", "claude", "opencode")
CANARY = "sk-canary-" + "3" * 32


def _cell(cli: str) -> str:
    return f"everyday-workflows-replay.replay-{cli}.local.build-revise"


def _only_attempt(results: Path) -> tuple[AttemptRecord, Path]:
    [record] = attempts(results)
    return record, results / "test" / record.cell.execution_id / record.attempt


@pytest.fixture(scope="module", params=CLIS)
def recorded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, AttemptRecord, Path]:
    """One recording per CLI, shared by the tests that replay it."""
    cli = request.param
    results = tmp_path_factory.mktemp(f"recorded-{cli}")
    # The operator's keys, as for a paid run: the proxies send them on every call, and none may land anywhere.
    keys = {"OPENAI_API_KEY": CANARY, "ANTHROPIC_API_KEY": CANARY}
    done = harness_run(results, "--id", _cell(cli), "--record", env={**os.environ, **keys})
    record, folder = _only_attempt(results)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    assert CANARY not in (folder / CASSETTE_FILE).read_text()
    return cli, record, folder


def test_the_cassette_replays_to_the_same_verdict_checks_and_cost(recorded, tmp_path: Path) -> None:
    cli, original, folder = recorded
    cassette = load_cassette(folder)
    assert cassette.exchanges and cassette.cell == _cell(cli) and cassette.agent_clis
    done = harness_run(tmp_path, "--id", _cell(cli), "--cassette", str(folder))
    replayed, replay_folder = _only_attempt(tmp_path)
    assert done.returncode == 0 and replayed.verdict is Verdict.PASSED, f"{replayed.reason}\n{done.stdout[-2000:]}"
    assert [(c.id, c.passed) for c in replayed.checks] == [(c.id, c.passed) for c in original.checks]
    assert replayed.accounting.cost_recorded and not original.accounting.cost_recorded
    assert replayed.accounting.simulated_cost_cents == original.accounting.simulated_cost_cents
    assert replayed.accounting.model_calls == original.accounting.model_calls == len(cassette.exchanges)
    assert replayed.accounting.cost_cents == 0
    assert not (replay_folder / CASSETTE_FILE).exists()


@pytest.mark.parametrize("recorded", ["codex"], indirect=True)  # the matching is the same for all three
def test_a_product_changed_since_the_recording_never_replays_to_a_pass(recorded, tmp_path: Path) -> None:
    cli, _, folder = recorded
    done = harness_run(
        tmp_path, "--id", _cell(cli), "--cassette", str(folder), "--product-defect", "message-stored-twice"
    )
    replayed, replay_folder = _only_attempt(tmp_path)
    assert replayed.verdict in (Verdict.UNEXERCISED, Verdict.FAILED), done.stdout[-2000:]
    if replayed.verdict is Verdict.UNEXERCISED:
        assert "diverged at call" in replayed.reason
        assert "@@" in (replay_folder / "cassette-divergence.txt").read_text()


def test_a_paid_cell_is_recorded_where_its_runners_find_the_provider_and_replays_with_no_key(tmp_path: Path) -> None:
    """The paid path, without money: the model replay plays the provider at the operator's base URL."""
    from agents.loopback import LoopbackServer
    from replay.server import create_app

    cell = "everyday-workflows.runner-codex.local.build-revise"
    provider = LoopbackServer(create_app("story")).start()
    try:
        operator = {"OPENAI_API_KEY": CANARY, "OPENAI_BASE_URL": f"{provider.url}/scripts/story"}
        done = harness_run(tmp_path / "paid", "--id", cell, "--record", env={**os.environ, **operator})
    finally:
        provider.stop()
    paid, folder = _only_attempt(tmp_path / "paid")
    assert done.returncode == 0 and paid.verdict is Verdict.PASSED, f"{paid.reason}\n{done.stdout[-2000:]}"
    assert paid.accounting.cost_cents > 0, "a paid cell's spend stays real while it is recorded"
    cassette = load_cassette(folder)
    assert cassette.upstream == "the provider" and CANARY not in (folder / CASSETTE_FILE).read_text()
    unkeyed = {name: value for name, value in os.environ.items() if name not in operator}
    done = harness_run(tmp_path / "replayed", "--id", cell, "--cassette", str(folder), env=unkeyed)
    replayed, _ = _only_attempt(tmp_path / "replayed")
    assert done.returncode == 0 and replayed.verdict is Verdict.PASSED, f"{replayed.reason}\n{done.stdout[-2000:]}"
    assert [(c.id, c.passed) for c in replayed.checks] == [(c.id, c.passed) for c in paid.checks]
    assert replayed.accounting.cost_cents == 0 and replayed.accounting.cost_recorded
    assert replayed.accounting.model_calls == paid.accounting.model_calls
