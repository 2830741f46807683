"""The real agent CLIs, each in a private home and a cleared environment, through the metering proxy to the replay server.

Judged by effects: the files in the workspace, the calls the proxy metered and
priced, the calls that reached the replay server. Exit status alone proves
nothing (a CLI exits 0 after a refused tool call with nothing written). A CLI
that is not installed fails these tests (MissingCli names `make agents`).
"""

from __future__ import annotations

import pytest

from harness.agents.cli_agent import last
from harness.agents.install import locate
from harness.agents.launch import LaunchRequest, RunOutcome, run
from harness.agents.metering.proxy import CallReport, ProxyConfig, start_proxy
from harness.agents.registry import registered
from harness.replay import reference

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test

CLIS = registered()
PROMPT = "Write slugify.py (a command-line slug tool), a README and tests, run the tests, then say what you did."
THROWAWAY_KEY = "proxy-only-throwaway-key"


def run_cli(
    name: str,
    tmp_path,
    upstream: str,
    budget_cents: float | None = None,
    timeout: float = 120,
    prompt: str = PROMPT,
    resume_session: str | None = None,
) -> tuple[RunOutcome, list[CallReport]]:
    cli = CLIS[name]
    reports: list[CallReport] = []
    _, proxy = start_proxy(
        ProxyConfig(
            upstream=upstream,
            provider=cli.provider,
            client_key=THROWAWAY_KEY,
            simulated=True,
            budget_cents=budget_cents,
        ),
        reports.append,
    )
    try:
        request = LaunchRequest(
            cli=locate(name),
            workspace=tmp_path / "workspace",
            home=tmp_path / "home",
            prompt=prompt,
            proxy_url=proxy.url,
            proxy_key=THROWAWAY_KEY,
            model=cli.replay_model,
            timeout_seconds=timeout,
            resume_session=resume_session,
        )
        outcome = run(cli.launch(request))
    finally:
        proxy.stop()
    return outcome, reports


@pytest.mark.parametrize("name", sorted(CLIS))
def test_cli_builds_the_reference_project_through_the_proxy_then_resumes_the_session_with_a_late_message(
    name, tmp_path, replay
):
    """One build, then how a late message will reach an agent whose turn has ended: the same session, resumed."""
    outcome, reports = run_cli(name, tmp_path, replay.url)
    built_the_reference_project(name, tmp_path, replay, outcome, reports)
    if name == "claude":
        priced_as_claude_code_prices_itself(outcome, reports)
    session = CLIS[name].session_id(outcome.stdout)
    assert session, f"{name} printed no session id"
    calls_before = len(replay.calls())
    late = "A late message from the user: also support --max-length N."
    second, reports = run_cli(name, tmp_path, replay.url, prompt=late, resume_session=session)
    resumed = [call for call in replay.calls()[calls_before:] if late in call.user_text]
    assert resumed, f"{name} did not send the late message: {second.stderr[-2000:]}"
    assert resumed[-1].tool_calls_answered == 5, "the resumed conversation carries the first run's tool calls"
    assert [report for report in reports if report.usage]


def built_the_reference_project(name, tmp_path, replay, outcome: RunOutcome, reports: list[CallReport]) -> None:
    """The build script's project in the workspace, every call metered at its entry's protocol, nothing fetched."""
    workspace = tmp_path / "workspace"
    written = {
        path: (workspace / path).read_text() if (workspace / path).exists() else None for path in reference.files()
    }
    assert written == reference.files(), f"{name} did not write the project: {outcome.stderr[-2000:]}"
    assert not outcome.timed_out
    metered = [report for report in reports if report.usage]
    assert len(metered) >= 6 and all(report.simulated for report in metered)
    assert {report.protocol for report in metered} == {CLIS[name].protocol}  # the wire protocol its entry declares
    assert sum(report.cost_cents for report in metered) > 0
    assert not [report for report in reports if report.refused]
    # Every model call went through the proxy, and nothing else reached the "provider".
    assert len(replay.calls()) == len(metered), [call.path for call in replay.calls()]
    # The build script ran the tests in the workspace: its last shell step's output reached the model.
    assert [call.tool_calls_answered for call in replay.calls() if call.tool][:5] == [0, 1, 2, 3, 4]
    # Nor did it fetch packages at run time (OpenCode installs its plug-in package unless told it has it).
    home = tmp_path / "home"
    assert not (home / ".npm").exists() and not (home / ".bun").exists(), sorted(p.name for p in home.iterdir())
    assert not [path for path in home.rglob("node_modules/*") if path.name != ".package-lock.json"]


def priced_as_claude_code_prices_itself(outcome: RunOutcome, reports: list[CallReport]) -> None:
    """Claude Code prices its own usage (total_cost_usd): the same tokens at the table's prices must agree."""
    reported_usd = last(CLIS["claude"].reported_cost_usd, outcome.stdout)  # its entry's cost parser
    proxy_cents = sum(report.cost_cents for report in reports)
    assert proxy_cents > 0 and reported_usd is not None
    assert proxy_cents == pytest.approx(reported_usd * 100, rel=0.01)


@pytest.mark.parametrize("name", sorted(CLIS))
def test_budget_stop_ends_the_cli_and_nothing_more_reaches_upstream(name, tmp_path, replay):
    outcome, reports = run_cli(name, tmp_path, replay.url + "/scripts/over-budget", budget_cents=20, timeout=90)
    metered = [report for report in reports if report.usage]
    refused = [report for report in reports if report.refused]
    assert metered and refused, f"{name}: no budget stop: {outcome.stderr[-2000:]}"
    assert not outcome.timed_out, f"{name} kept going after the refusal"
    assert len(replay.calls()) == len(metered)
    assert len(refused) == 1, f"{name} retried a final refusal {len(refused)} times"
    assert refused[0].spent_cents > 0 and all("budget exceeded" in report.refused for report in refused)


@pytest.mark.parametrize("name", sorted(CLIS))
def test_an_environment_dump_shows_a_cleared_environment_without_the_real_key(name, tmp_path, replay, monkeypatch):
    monkeypatch.setenv("RUNNER_ONLY_CANARY", "runner-environment-leaked")
    cli = CLIS[name]
    reports: list[CallReport] = []
    _, proxy = start_proxy(
        ProxyConfig(
            upstream=replay.url + "/scripts/environment-dump",
            provider=cli.provider,
            client_key=THROWAWAY_KEY,
            upstream_key="real-provider-key-held-by-the-proxy",
            simulated=True,
        ),
        reports.append,
    )
    try:
        request = LaunchRequest(
            cli=locate(name),
            workspace=tmp_path / "workspace",
            home=tmp_path / "home",
            prompt=PROMPT,
            proxy_url=proxy.url,
            proxy_key=THROWAWAY_KEY,
            model=cli.replay_model,
            timeout_seconds=120,
        )
        outcome = run(cli.launch(request))
    finally:
        proxy.stop()
    dump = tmp_path / "workspace" / "environment.txt"
    assert dump.exists(), f"{name} wrote no dump: {outcome.stderr[-2000:]}"
    text = dump.read_text()
    assert f"HOME={tmp_path / 'home'}" in text
    assert "runner-environment-leaked" not in text and "real-provider-key-held-by-the-proxy" not in text
    assert {call.key for call in replay.calls()} == {"real-provider-key-held-by-the-proxy"}


def _session_members(sid: int) -> list[int]:
    import os

    import psutil

    members = []
    for pid in psutil.pids():
        try:
            if os.getsid(pid) == sid:
                members.append(pid)
        except OSError:
            continue
    return members


# Long enough for a slow start on a shared machine to still loop: opencode alone takes ~5 s to start on a quiet
# machine and made no call within 20 s on a clean-clone CI run with three test workers.
LOOP_DEADLINE_S = {"opencode": 60}


@pytest.mark.parametrize("name", sorted(CLIS))
def test_a_script_that_never_finishes_is_ended_at_the_deadline_with_nothing_left_running(name, tmp_path, replay):
    deadline = LOOP_DEADLINE_S.get(name, 20)
    outcome, reports = run_cli(name, tmp_path, replay.url + "/scripts/never-finishes", timeout=deadline)
    assert outcome.timed_out and outcome.exit_code is None
    assert len([report for report in reports if report.usage]) >= 2, (
        f"{name} never looped ({len(reports)} calls): {outcome.stderr[-2000:]}"
    )
    assert _session_members(outcome.pid) == []


def test_the_late_message_script_delivers_without_the_late_requirement(tmp_path, replay):
    """What the script writes is the same whatever the protocol (each CLI's write and shell steps are the build's
    above), so one CLI shows it."""
    run_cli("codex", tmp_path, replay.url + "/scripts/ignores-late-message")
    source = (tmp_path / "workspace" / "slugify.py").read_text()
    assert "--separator" in source and "--max-length" not in source
