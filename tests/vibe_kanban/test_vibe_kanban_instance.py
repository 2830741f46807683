"""A real vibe-kanban instance (the outside plug-in's product): isolated, torn down without leftovers, its API
and its scripted agent read into records, its board and task panel driven in real headless Chromium.

Needs vibe-kanban installed (``make vibe-kanban``, which ``make test`` runs): a
missing install fails these tests loudly, it never skips them.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from playwright.sync_api import Page

from everyday_vibe_kanban.instance import PRODUCT_TMP, VibeKanbanInstance
from everyday_vibe_kanban.pages import BoardPage
from harness.core.product_records import Task
from harness.core.waiting import wait_for
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR
from tests.needs import marked, needs

RUN_S = 120.0


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


@pytest.fixture
@needs("product")
def vibe_kanban() -> Iterator[VibeKanbanInstance]:
    instance = VibeKanbanInstance(pace=0.05)
    try:
        yield instance.start()
    finally:
        instance.close()
    assert not instance.root.exists()


def _finished(instance: VibeKanbanInstance, task_id: str, runs: int) -> Task:
    def done() -> Task | None:
        task = instance.api.task(task_id)
        return task if len(task.runs) == runs and not task.runs[-1].active and task.status == "in_review" else None

    return wait_for(done, RUN_S, what=f"run {runs} of task {task_id} to end")


def _worktree(instance: VibeKanbanInstance, task_id: str) -> Path:
    """The attempt's worktree on this machine, once the product has made it."""
    reported = wait_for(lambda: (instance.api.latest_attempt(task_id) or {}).get("container_ref"), what="a worktree")
    return wait_for(lambda: (p := instance.on_disk(reported)).is_dir() and p, what=f"{reported} on disk")


@marked("product")
def test_two_instances_keep_their_worktrees_apart_and_a_stop_leaves_no_process_folder_or_worktree() -> None:
    """An instance answers, and its stop (B's while its agent works) leaves no server, folder or worktree behind.

    vibe-kanban deletes, at start, every worktree in its folder its own database does not know: without a folder
    of its own per instance, B's start would delete A's worktree under A's running agent."""
    shared = set(PRODUCT_TMP.joinpath("worktrees").glob("*")) if PRODUCT_TMP.joinpath("worktrees").is_dir() else set()
    first, second = VibeKanbanInstance(pace=1.0), VibeKanbanInstance(pace=1.0)
    try:
        first.start()
        assert first.api.health() == {"status": "OK"}
        server = first.api.controller().pid
        assert server is not None and _alive(server)
        lead = first.api.create_agent("Avery", "lead engineer")
        task = first.api.create_task(BUILD_TASK_TITLE, BUILD_TASK)
        first.api.start_attempt(task.id, lead.id)
        mine = _worktree(first, str(task.id))
        assert mine.is_relative_to(first.root)
        assert first.api.latest_attempt(task.id)["task_id"] == task.id
        second.start()  # its start runs the product's orphan clean-up
        their_server = second.api.controller().pid
        other = second.api.create_task(BUILD_TASK_TITLE, BUILD_TASK)
        second.api.start_attempt(other.id, second.api.create_agent("Avery", "lead engineer").id)
        theirs = _worktree(second, str(other.id))
        assert theirs.is_relative_to(second.root) and mine.is_dir(), "B's start deleted A's worktree"
        assert _finished(first, str(task.id), 1).runs[0].status == "succeeded"
        second.close()
        assert mine.is_dir() and not theirs.exists()
        assert their_server is not None and not _alive(their_server), "B's server outlived its instance"
    finally:
        second.close()
        first.close()
    assert not _alive(server), "the vibe-kanban server outlived its instance"
    assert not first.root.exists() and not second.root.exists()
    assert not mine.exists(), "the attempt's worktree outlived the instance"
    now = set(PRODUCT_TMP.joinpath("worktrees").glob("*")) if PRODUCT_TMP.joinpath("worktrees").is_dir() else set()
    assert now <= shared, "an instance wrote into the machine's shared worktree folder"


def test_the_scripted_agent_builds_and_revises_through_the_api_and_each_run_is_a_commit_on_the_branch(
    vibe_kanban: VibeKanbanInstance,
) -> None:
    api = vibe_kanban.api
    lead = api.create_agent("Avery", "lead engineer")
    assert [a.id for a in api.agents()] == ["AVERY"]
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    attempt = api.start_attempt(task.id, lead.id)
    built = _finished(vibe_kanban, str(task.id), 1)
    assert [(r.agent_id, r.status) for r in built.runs] == [("AVERY", "succeeded")]
    assert built.agent_replies() and "Delivered the slugify project" in built.agent_replies()[-1].body
    assert len(built.deliveries) == 1
    first = built.deliveries[0]
    assert first.run_id == built.runs[0].id and "slugify.py" in first.files
    data = api.delivery_bytes(first.id)
    assert zipfile.ZipFile(io.BytesIO(data)).read("slugify.py").startswith(b'"""Turn text into a URL slug')

    # A follow-up without a variant runs on the DEFAULT profile, which the hire pointed at the same agent; it
    # resumes the agent's session, whose second prompt it is (as the agent's read receipt says).
    follow_up = api.follow_up(attempt["id"], REVISION_SEPARATOR)
    session = follow_up["executor_action"]["typ"]["session_id"]
    revised = _finished(vibe_kanban, str(task.id), 2)
    [message] = revised.user_messages()
    assert message.body == REVISION_SEPARATOR and message.consumed_by_run_id == revised.runs[1].id
    reads = [r for r in revised.runs[1].receipts if r.tool == "read_task"]
    assert message.id == f"{session}:1" and [r.received_message_ids for r in reads] == [[message.id]]
    assert revised.runs[1].agent_id == "DEFAULT" and revised.runs[1].status == "succeeded"
    assert len(revised.deliveries) == 2 and revised.deliveries[1].sha256 != first.sha256
    assert b"--separator" in zipfile.ZipFile(io.BytesIO(api.delivery_bytes(revised.deliveries[1].id))).read(
        "slugify.py"
    )
    assert api.delivery_bytes(first.id) == data, "a delivery's ZIP is the same bytes every time"


def test_the_board_creates_and_starts_a_task_and_its_panel_shows_status_conversation_branch_and_follow_up(
    vibe_kanban: VibeKanbanInstance, page: Page
) -> None:
    vibe_kanban.api.create_agent("Avery", "lead engineer")
    board = BoardPage(page, vibe_kanban.base_url, vibe_kanban.api.project["id"], vibe_kanban.repo).open()
    panel = board.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    built = _finished(vibe_kanban, panel.task_id, 1)
    panel.wait_until_status("in_review", timeout=RUN_S)
    assert panel.status() == "in_review"
    assert panel.shown_branch() == vibe_kanban.api.latest_attempt(panel.task_id)["branch"]
    reply = panel.latest_reply()
    assert reply is not None and reply.body == built.agent_replies()[-1].body
    assert panel.download_delivery_id(built.deliveries[0].id) == vibe_kanban.api.delivery_bytes(built.deliveries[0].id)
    panel.send_message(REVISION_SEPARATOR, timeout=RUN_S)
    revised = _finished(vibe_kanban, panel.task_id, 2)
    assert revised.runs[1].agent_id == "AVERY", "the follow-up box sends the variant it shows"
    assert len(panel.reload().user_messages_with(REVISION_SEPARATOR)) == 1
    assert panel.download_delivery_id("0" * 40) == b"", "a commit not on the branch the panel names is no delivery"


@marked("product", "agent_cli")
def test_the_real_claude_code_builds_and_revises_against_the_replay_and_each_runs_calls_are_metered() -> None:
    """The replay profile's path without a browser: vibe-kanban runs the pinned Claude Code behind our proxy."""
    from harness.agents.loopback import LoopbackServer
    from harness.replay.server import create_app

    app = create_app("story", pace_s=0)
    with LoopbackServer(app) as replay:
        instance = VibeKanbanInstance(pace=0.05, model_upstream=f"{replay.url}/scripts/story")
        try:
            api = instance.start().api
            lead = api.create_agent("Avery", "lead engineer", adapter="claude", model="claude-sonnet-4-5")
            assert [(a.adapter, a.model) for a in api.agents()] == [("claude", "claude-sonnet-4-5")]
            task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK)
            attempt = api.start_attempt(task.id, lead.id)
            built = _finished(instance, str(task.id), 1)
            api.follow_up(attempt["id"], REVISION_SEPARATOR)
            revised = _finished(instance, str(task.id), 2)
        finally:
            instance.close()
    assert [r.status for r in revised.runs] == ["succeeded", "succeeded"]
    assert "Delivered slugify.py" in built.agent_replies()[-1].body
    assert "--separator" in revised.agent_replies()[-1].body and len(revised.deliveries) == 2
    written = [r.target for r in revised.runs[0].receipts if r.tool == "write_file"]
    assert written == ["slugify.py", "README.md", "tests/test_slugify.py"]
    answered = [c for c in app.state.calls.all() if c.path.endswith("/messages")]
    assert answered and all(c.key is None for c in answered), "the CLI's throwaway key stops at our proxy"
    # Five turns of the script each (Claude Code may add a side request of its own): every call is on a run's ledger.
    metered = [r.spend.calls for r in revised.runs]
    assert min(metered) >= 5 and sum(metered) == len(answered), (metered, [(c.script, c.tool) for c in answered])
    assert all(r.spend.simulated_cents > 0 and r.spend.cents == 0 for r in revised.runs)
