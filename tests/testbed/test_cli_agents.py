"""Real agent CLIs as the testbed's agents: runner, MCP tools, metering proxy, model replay, all real.

Each test starts a product whose runners send model calls to a replay server
on loopback (the scripts name what the "model" does) and judges the run by
what the product recorded and what reached the replay server, never by a
CLI's exit status. A CLI that is not installed fails these tests (`make agents`).
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator

import psutil
import pytest

from harness.agents.loopback import LoopbackServer
from harness.agents.receipts import ids_in
from harness.core.product_records import READ_TOOLS, Run, Task
from harness.products.testbed import TestbedInstance
from harness.replay.server import create_app
from harness.testbed.faults import DIE_AFTER_INBOX_COMMIT, ENV, SLOW_TOOL_SERVER
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR
from tests.needs import needs

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test

MODELS = {"codex": "gpt-5-codex", "claude": "claude-sonnet-4-5", "opencode": "gpt-5-mini"}


class Product:
    def __init__(self, instance: TestbedInstance, replay: LoopbackServer) -> None:
        self.instance, self.replay, self.api = instance, replay, instance.api

    def replay_calls(self) -> list:
        return self.replay.app.state.calls.all()

    def hire(self, cli: str, **fields: object):
        return self.api.create_agent(name=f"{cli.title()}Agent", adapter=cli, model=MODELS[cli], **fields)  # type: ignore[arg-type]


@pytest.fixture
@needs("product")
def product(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Product]:
    """A product whose live agents talk to a fresh replay server; script and time limit from ``@pytest.mark.replay``.

    ``@pytest.mark.controller_env(NAME=value)`` adds to the controller's environment (test hooks).
    """
    hooks = request.node.get_closest_marker("controller_env")
    for name, value in (hooks.kwargs if hooks else {}).items():
        monkeypatch.setenv(name, value)
    marker = request.node.get_closest_marker("replay")
    script = marker.kwargs.get("script", "story") if marker else "story"
    limit = marker.kwargs.get("time_limit") if marker else None
    server = LoopbackServer(create_app("story")).start()
    try:
        with TestbedInstance(model_upstream=f"{server.url}/scripts/{script}", agent_time_limit_s=limit) as instance:
            yield Product(instance, server)
    finally:
        server.stop()


def session_members(sid: int) -> list[str]:
    """Command lines of the live processes of a runner's session (the runner, its CLI, their tools)."""
    members = []
    for process in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if os.getsid(process.pid) == sid and process.info["status"] != psutil.STATUS_ZOMBIE:
                members.append(" ".join(process.info["cmdline"] or [])[:200])
        except (OSError, psutil.Error):
            continue
    return members


def nothing_left(sid: int, timeout: float = 10.0) -> bool:
    """The runner exits right after its last report: give it a moment, then nothing of its session may remain."""
    deadline = time.monotonic() + timeout
    while session_members(sid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert session_members(sid) == []
    return True


def built_and_delivered_through_the_tools(cli: str, product: Product, done: Task, run: Run) -> None:
    """The run succeeded through the product's tools: every agent turn was offered them, its first delivery holds the
    project, every model call went through the run's proxy priced as simulated, and nothing of its session remains."""
    assert run.status == "succeeded" and run.error_code is None, run.terminal
    # Every agent turn offered the product's tools (OpenCode's title call offers no tools at all).
    turns = [c.tools for c in product.replay_calls() if c.script and c.tools]
    assert turns and all(any(t.endswith("deliver") for t in tools) for tools in turns), turns
    first = done.deliveries[0]
    assert first.run_id == run.id and sorted(first.files) == ["README.md", "slugify.py", "tests/test_slugify.py"]
    assert any(c.author_kind == "agent" and c.run_id == run.id and "Delivered" in c.body for c in done.comments)
    assert {"slugify.py", "README.md"} <= {r.target for r in run.receipts if r.tool == "write_file"}
    # Every model call went through the run's proxy, priced as simulated, never as real spend.
    assert run.spend.calls == len([c for c in product.replay_calls() if c.script]) >= 6
    assert run.spend.simulated_cents > 0 and run.spend.cents == 0 and run.cost_cents == 0
    company = product.api.company()
    assert company.spend_cents == 0 and company.spend.simulated_cents == pytest.approx(run.spend.simulated_cents)
    # The CLI got a throwaway key for its proxy; the replay ("provider") saw no key at all.
    assert {c.key for c in product.replay_calls()} == {None}
    # Claude Code prices its own calls (total_cost_usd): kept beside the metered figure, never replacing it.
    if cli == "claude":
        assert run.agent_reported_cost_usd is not None and run.agent_reported_cost_usd > 0
        assert run.terminal["agent_reported_cost_usd"] == run.agent_reported_cost_usd
    else:
        assert run.agent_reported_cost_usd is None
    assert nothing_left(run.identity.pid)


# The tool server loads late, as on a busy machine: a CLI that does not wait for it calls the model without the
# product's tools and the run fails on a missing tool (Codex did, until its server was made required). Codex and
# Claude Code show it in the message test below, whose run starts the same way.
@pytest.mark.parametrize("cli", ["opencode"])
@pytest.mark.controller_env(**{ENV: SLOW_TOOL_SERVER})
def test_the_cli_waits_for_a_slow_tool_server_then_builds_and_delivers_through_it(cli, product):
    agent = product.hire(cli)
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    done = product.api.wait_until_done(task.id, timeout=180)
    [run] = done.runs
    assert len(done.deliveries) == 1
    built_and_delivered_through_the_tools(cli, product, done, run)


@pytest.mark.replay(script="story-paced")
@pytest.mark.parametrize("cli", ["codex", "claude"])
@pytest.mark.controller_env(**{ENV: SLOW_TOOL_SERVER})
def test_a_message_sent_while_the_agent_works_resumes_the_same_session_in_the_same_run(cli, product):
    """With the tool server loading late, as in the test above: the CLI waits for it, builds and delivers through it;
    a message sent while it works resumes its session in the same run, which delivers again."""
    agent = product.hire(cli)
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    working = product.api.wait_until_file_saved(task.id, "slugify.py", timeout=120)
    message = product.api.send_message(task.id, REVISION_SEPARATOR)
    done = product.api.wait_until_done(task.id, timeout=180)
    [run] = done.runs
    assert run.id == working.id and run.status == "succeeded"
    assert next(c for c in done.comments if c.id == message.id).consumed_by_run_id == run.id
    assert len(done.deliveries) == 2 and all(d.run_id == run.id for d in done.deliveries)
    assert "2 turn(s)" in run.terminal["summary"]
    built_and_delivered_through_the_tools(cli, product, done, run)
    resumed = [
        c
        for c in product.replay_calls()
        if "--separator" in c.user_text and "arrived while you were working" in c.user_text
    ]
    assert resumed and resumed[-1].tool_calls_answered > 4, "the resumed session carried the first turn's history"
    if cli == "claude":
        # Claude Code's total_cost_usd is its session's running total across the resume: counted once, it agrees
        # with what the proxy metered for both turns (adding the turns' figures would count the first one twice).
        assert run.agent_reported_cost_usd == pytest.approx(run.spend.simulated_cents / 100, rel=0.01)


@pytest.mark.replay(script="over-budget")
def test_a_call_past_the_agents_budget_is_refused_and_the_run_ends_budget_exceeded(product):
    agent = product.hire("codex", budget_cents=30)
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    ended = product.api.wait_for_task(
        task.id, lambda t: bool(t.runs) and not t.runs[-1].active, timeout=120, what="the run to end"
    )
    run = ended.runs[-1]
    # Two mechanisms hold the hard stop, and whichever lands first ends the run: the proxy refuses the call that
    # would pass the budget, or the product's budget pause stops the run once a call's charge reaches it.
    if (run.status, run.error_code) == ("failed", "budget_exceeded"):
        assert "budget exceeded" in run.terminal["summary"] and "cents" in run.terminal["summary"]
        assert run.spend.refused_calls == 1
    else:
        assert (run.status, run.error_code) == ("cancelled", "budget_paused")
        assert run.spend.simulated_cents >= 30, "paused only once the spend reached the budget"
    assert run.spend.simulated_cents > 0
    assert len([c for c in product.replay_calls() if c.script]) == run.spend.calls, (
        "a call after the refusal reached the provider"
    )
    assert nothing_left(run.identity.pid)
    mate = next(a for a in product.api.agents() if a.id == agent.id)
    assert mate.budget_cents == 30 and mate.spend.simulated_cents == pytest.approx(run.spend.simulated_cents)


@pytest.mark.replay(script="never-finishes")
def test_stop_ends_the_cli_and_everything_it_started(product):
    agent = product.hire("codex")
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    run = product.api.wait_for_active_run(task.id)
    product.api.wait_for(lambda: len(product.replay_calls()) >= 2 or None, timeout=60, what="the agent looping")
    result = product.api.stop_run(run.id)
    assert result.process_group_gone and result.run.status == "cancelled"
    assert nothing_left(run.identity.pid)


@pytest.mark.replay(script="never-finishes", time_limit=15)
def test_the_wall_clock_limit_ends_the_cli_and_the_run_says_so(product):
    agent = product.hire("codex")
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    ended = product.api.wait_for_task(
        task.id, lambda t: bool(t.runs) and not t.runs[-1].active, timeout=90, what="the run to end"
    )
    run = ended.runs[-1]
    assert (run.status, run.error_code) == ("failed", "deadline_exceeded")
    assert nothing_left(run.identity.pid)


@pytest.mark.replay(script="story-reads-task")
@pytest.mark.controller_env(**{ENV: DIE_AFTER_INBOX_COMMIT})
def test_a_message_consumed_by_an_mcp_read_that_the_controller_dies_answering_still_reaches_the_agent(product):
    agent = product.hire("codex")
    task = product.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    product.api.wait_until_file_saved(task.id, "notes.md", timeout=60)
    nonce = f"mcp{uuid.uuid4().hex[:8]}"
    message = product.api.send_message(task.id, f"Please reply with nonce {nonce}")
    # The premise: the agent's read_task committed the message as consumed, and the controller died right there.
    assert product.instance.process is not None
    assert product.instance.process.wait(timeout=60) == -signal.SIGKILL, "the controller did not die at the hook"
    product.instance.start()

    done = product.api.wait_until_done(task.id, timeout=180)
    [run] = done.runs
    assert run.status == "succeeded", run.terminal
    [stored] = [c for c in done.user_messages() if c.id == message.id]
    assert stored.consumed_by_run_id == run.id
    activity = [a.message for a in product.api.activity()]
    assert any(f"never saw messages [{message.id}]" in line for line in activity), "the MCP read never consumed it"
    # Handed to the agent exactly once after the death (the runner's read, which re-hands what no receipt names) ...
    handed = [r for r in run.receipts if r.tool in READ_TOOLS and message.id in ids_in(r.detail)]
    assert [r.tool for r in handed] == ["read_inbox"], [(r.tool, r.detail) for r in run.receipts]
    # ... and the model really read it: the resumed session carried it, and the agent answered it once.
    assert any(nonce in call.user_text for call in product.replay_calls())
    assert len([c for c in done.agent_replies() if nonce in c.body]) == 1
    assert nothing_left(run.identity.pid)
