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
from subprocess import CompletedProcess

import pytest

from harness.cassettes.model import CASSETTE_FILE, load_cassette
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import attempts, harness_run
from tests.stories.shared_plays import CANARY

RECORDED = {"claude": "service-approve", "opencode": "connection-decline"}
"""The decision story whose recording of each CLI's replay cell is replayed. Codex is recorded on its paid cell below:
every CLI's wire protocol is recorded and replayed once, and both ways to record (through the model replay, through
the provider) are shown."""


def _only_attempt(results: Path) -> tuple[AttemptRecord, Path]:
    [record] = attempts(results)
    return record, results / "test" / record.cell.execution_id / record.attempt


def _passed(done: CompletedProcess[str], record: AttemptRecord) -> bool:
    return done.returncode == 0 and record.verdict is Verdict.PASSED


def _replays_like_its_recording(
    original: AttemptRecord, recording: Path, results: Path, env: dict[str, str]
) -> AttemptRecord:
    """Replayed from the cassette: the recording's verdict, checks and model calls, with no spend and no cassette."""
    cell = original.cell.execution_id
    cassette = load_cassette(recording)
    assert cassette.exchanges and cassette.cell == cell and cassette.agent_clis
    done = harness_run(results, "--id", cell, "--cassette", str(recording), env=env)
    replayed, replay_folder = _only_attempt(results)
    assert _passed(done, replayed), f"{replayed.reason}\n{done.stdout[-2000:]}"
    assert [(c.id, c.passed) for c in replayed.checks] == [(c.id, c.passed) for c in original.checks]
    assert replayed.accounting.cost_recorded and replayed.accounting.cost_cents == 0
    assert replayed.accounting.model_calls == original.accounting.model_calls == len(cassette.exchanges)
    assert not (replay_folder / CASSETTE_FILE).exists()
    return replayed


@marked(*PLAYS_CELLS, "agent_cli")
@pytest.mark.parametrize("cli", sorted(RECORDED))
def test_a_recorded_replay_cell_replays_to_the_same_verdict_checks_and_cost(
    cli: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The recording is the decision stories' replay play, played once in the session with the tap and the operator's
    keys (tests/stories/shared_plays.py): the cell, its drawn inputs and the person's decision replay here."""
    played = shared_plays.decisions_recorded(tmp_path_factory)
    cell = shared_plays.decision_replay_cell(RECORDED[cli])
    assert cell.split(".")[1] == f"replay-{cli}"
    original, folder = shared_plays.package_of(played.results, cell)
    assert original.verdict is Verdict.PASSED, f"{original.reason}\n{played.stdout[-2000:]}"
    assert CANARY not in (folder / CASSETTE_FILE).read_text()
    assert not original.accounting.cost_recorded
    replayed = _replays_like_its_recording(original, folder, tmp_path / "replayed", dict(os.environ))
    assert replayed.accounting.simulated_cost_cents == original.accounting.simulated_cost_cents


@marked(*PLAYS_CELLS)
def test_a_paid_cell_is_recorded_where_its_runners_find_the_provider_and_replays_with_no_key(tmp_path: Path) -> None:
    """The paid path, without money: the model replay plays the provider at the operator's base URL. Replayed
    against a product changed since the recording, it never passes (the matching is the same for every CLI). The
    claim is the path's, not the story's: the cell is a short one, with no delivery to grade."""
    from harness.agents.loopback import LoopbackServer
    from harness.replay.server import create_app

    cell = "everyday-workflows.runner-codex.local.service-decline"
    provider = LoopbackServer(create_app("story")).start()
    try:
        operator = {"OPENAI_API_KEY": CANARY, "OPENAI_BASE_URL": f"{provider.url}/scripts/story"}
        done = harness_run(tmp_path / "paid", "--id", cell, "--record", env={**os.environ, **operator})
    finally:
        provider.stop()
    paid, folder = _only_attempt(tmp_path / "paid")
    assert _passed(done, paid), f"{paid.reason}\n{done.stdout[-2000:]}"
    assert paid.accounting.cost_cents > 0, "a paid cell's spend stays real while it is recorded"
    cassette = load_cassette(folder)
    assert cassette.upstream == "the provider" and CANARY not in (folder / CASSETTE_FILE).read_text()
    unkeyed = {name: value for name, value in os.environ.items() if name not in operator}
    _replays_like_its_recording(paid, folder, tmp_path / "replayed", unkeyed)

    changed = tmp_path / "changed"
    done = harness_run(
        changed, "--id", cell, "--cassette", str(folder), "--product-defect", "forwards-after-decline", env=unkeyed
    )
    replayed, replay_folder = _only_attempt(changed)
    assert replayed.verdict in (Verdict.UNEXERCISED, Verdict.FAILED), done.stdout[-2000:]
    if replayed.verdict is Verdict.UNEXERCISED:
        assert "diverged at call" in replayed.reason
        assert "@@" in (replay_folder / "cassette-divergence.txt").read_text()
