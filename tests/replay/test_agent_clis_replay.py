"""The real agent CLIs, each in a private home and a cleared environment, through the metering proxy to the replay server.

Judged by effects: the files in the workspace, the calls the proxy metered and
priced, the calls that reached the replay server. Exit status alone proves
nothing (a CLI exits 0 after a refused tool call with nothing written). A CLI
that is not installed fails these tests (MissingCli names `make agents`).
"""

from __future__ import annotations

import pytest

from replay import reference
from testbed.adapters import claude_cli, codex_cli, opencode_cli
from testbed.adapters.agent_clis import locate
from testbed.adapters.cli_launch import LaunchRequest, RunOutcome, run
from testbed.metering.proxy import CallReport, ProxyConfig, start_proxy

CLIS = {
    "codex": (codex_cli, "openai", "gpt-5-codex"),
    "claude": (claude_cli, "anthropic", "claude-sonnet-4-5"),
    "opencode": (opencode_cli, "openai", "gpt-5-mini"),
}
PROMPT = "Write slugify.py (a command-line slug tool), a README and tests, run the tests, then say what you did."
THROWAWAY_KEY = "proxy-only-throwaway-key"


def run_cli(name: str, tmp_path, upstream: str, budget_cents: float | None = None, timeout: float = 120) -> tuple[RunOutcome, list[CallReport]]:
    module, provider, model = CLIS[name]
    reports: list[CallReport] = []
    _, proxy = start_proxy(ProxyConfig(upstream=upstream, provider=provider, client_key=THROWAWAY_KEY, simulated=True,
                                       budget_cents=budget_cents), reports.append)
    try:
        request = LaunchRequest(cli=locate(name), workspace=tmp_path / "workspace", home=tmp_path / "home", prompt=PROMPT,
                                proxy_url=proxy.url, proxy_key=THROWAWAY_KEY, model=model, timeout_seconds=timeout)
        outcome = run(module.launch(request))
    finally:
        proxy.stop()
    return outcome, reports


@pytest.mark.parametrize("name", sorted(CLIS))
def test_cli_builds_the_reference_project_through_the_proxy(name, tmp_path, replay):
    outcome, reports = run_cli(name, tmp_path, replay.url)
    workspace = tmp_path / "workspace"
    written = {path: (workspace / path).read_text() if (workspace / path).exists() else None for path in reference.files()}
    assert written == reference.files(), f"{name} did not write the project: {outcome.stderr[-2000:]}"
    assert not outcome.timed_out
    metered = [report for report in reports if report.usage]
    assert len(metered) >= 6 and all(report.simulated for report in metered)
    assert sum(report.cost_cents for report in metered) > 0
    assert not [report for report in reports if report.refused]
    # Every model call went through the proxy, and nothing else reached the "provider".
    assert len(replay.calls()) == len(metered), [call.path for call in replay.calls()]
    # The build script ran the tests in the workspace: its last shell step's output reached the model.
    assert [call.tool_calls_answered for call in replay.calls() if call.tool][:5] == [0, 1, 2, 3, 4]


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
