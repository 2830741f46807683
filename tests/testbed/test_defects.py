"""Each product defect is off by default and on only when switched, observed on real controllers and runners.

A flow drives a real instance the way a story would (build and revise, Stop,
a restart under a running job, delegation) and reports the symptoms it saw,
each named after the defect that causes it. A healthy instance must show no
symptom in any flow; an instance with one defect switched on must show that
defect's symptom. The instance passes the switch again on a restart.
"""

from __future__ import annotations

import base64
import hashlib
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, get_args

import httpx
import pytest
from product_helpers import model_call_report, runner_token, unique

from calibration.product_defects import DEFECT_CASES, missing_cases, unknown_defects
from harness.agents.receipts import ids_in
from harness.core.product_records import Interaction, RecordId, Task
from harness.decisions.contract import (
    AGENTMAIL_KEY_PAGE,
    EMAIL_TASK,
    HUBSPOT,
    JIRA,
    PROVIDER_OPTIONS,
    contact_task,
    document_task,
    issues_task,
    notes_task,
)
from harness.fixtures.documents import PROTECTED_ACTION, DocumentService
from harness.fixtures.gateway import GATEWAY_NAME, ArcadeGateway
from harness.products.base import InstanceError
from harness.products.testbed import ApiClient, TestbedInstance
from harness.testbed.defects import REGISTRY, Area
from oracle.tasks.slugify.contract import (
    BUILD_TASK,
    BUILD_TASK_TITLE,
    LATE_REQUIREMENT_MAX_LENGTH,
    REVISION_SEPARATOR,
    delegation_task,
)
from stories.create_skill_studio import SKILL_REQUEST, SKILL_TASK_TITLE
from tests.needs import needs

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test

Symptoms = set[str]


def form_origin(instance: TestbedInstance) -> dict[str, str]:
    """What a browser's form post names as its origin (the web forms refuse any other)."""
    return {"Origin": instance.base_url.rstrip("/")}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def all_ended(task: Task) -> bool:
    return bool(task.runs) and all(not run.active for run in task.runs)


def received_ids(task: Task, run_id: int) -> list[int]:
    """The message ids the run's own read receipts say the agent received."""
    run = next(r for r in task.runs if r.id == run_id)
    return [i for r in run.receipts if r.tool in ("read_task", "read_inbox") for i in ids_in(r.detail)]


SAMPLE_EVERY_S = 0.1
"""Each sample is four requests: every 20 ms they kept the controller busy for the whole flow (2 CPU-s a
test). The shortest state looked for, the revision run at pace 0.1, still gets 18 of a flow's 38 samples."""


class Sampler:
    """Reads the task (API and page fragment) and its first delivery's download, over and over, while runs work."""

    def __init__(self, instance: TestbedInstance, task_id: int) -> None:
        self.http = httpx.Client(base_url=instance.base_url, timeout=10)
        self.task_id = task_id
        self.samples: list[tuple[dict[str, Any], str, dict[str, Any], str | None]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)
        self.http.close()

    def _loop(self) -> None:
        while not self._stop.wait(SAMPLE_EVERY_S):
            before = self.http.get(f"/api/tasks/{self.task_id}").json()
            page = self.http.get(f"/tasks/{self.task_id}/live").text
            after = self.http.get(f"/api/tasks/{self.task_id}").json()
            first = before["deliveries"][0] if before["deliveries"] else None
            downloaded = sha(self.http.get(first["download_url"]).content) if first else None
            self.samples.append((before, page, after, downloaded))


def build_and_revise(instance: TestbedInstance) -> Symptoms:
    """A build, then a revision asked for in a message, watched throughout."""
    api, seen = instance.api, set()
    lead = api.create_agent(name=unique("Lead"))
    form = httpx.post(
        f"{instance.base_url}/tasks",
        data={"title": "From the form", "body": "No one is assigned."},
        headers=form_origin(instance),
    )
    if form.headers.get("location") != f"/tasks/{max(t.id for t in api.tasks())}":
        seen.add("new-task-lands-on-list")
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=lead.id)
    if task.title != BUILD_TASK_TITLE:
        seen.add("task-title-cut-short")
    with Sampler(instance, task.id) as sampler:
        api.wait_for_task(task.id, lambda t: all_ended(t) and len(t.deliveries) == 1, 60, "the build")
        message = api.send_message(task.id, REVISION_SEPARATOR)
        final = api.wait_for_task(task.id, lambda t: all_ended(t) and len(t.deliveries) == 2, 60, "the revision")
    if [int(d.id) for d in final.deliveries] != sorted(int(d.id) for d in final.deliveries):
        seen.add("deliveries-newest-first")
    first, newest = sorted(final.deliveries, key=lambda d: int(d.id))
    for before, page, after, downloaded in sampler.samples:
        running = [r["id"] for r in before["runs"] if r["status"] in ("queued", "running")]
        if before["active_run_id"] is not None and before["active_run_id"] not in running:
            seen.add("stale-active-run-pointer")
        if running and downloaded is not None and downloaded != first.sha256:
            seen.add("download-partial-while-running")
        delivering = {d["run_id"] for d in before["deliveries"]}
        working = [r["id"] for r in before["runs"] if r["status"] == "running" and r["id"] not in delivering]
        if working and before["status"] == "done":  # the agent itself sets done, but only after delivering
            seen.add("done-while-running")
        if (
            before["status"] == after["status"] == "in_progress"
            and 'data-testid="task-status" data-status="done"' in page
        ):
            seen.add("badge-done-while-running")
    if sha(api.delivery_bytes(newest.id)) != newest.sha256:
        seen.add("download-other-bytes")
    if sha(api.delivery_bytes(first.id)) == newest.sha256:
        seen.add("redownload-serves-newest")
    copies = [c for c in final.user_messages() if c.body == message.body]
    if len(copies) != 1:
        seen.add("message-stored-twice")
    if message.body.strip() != REVISION_SEPARATOR.strip():
        seen.add("message-stored-crlf")
    if final.active_run_id is not None:
        seen.add("ended-run-still-active")
    if final.status == "in_progress":
        seen.add("run-end-keeps-task-in-progress")
    reader = copies[0].consumed_by_run_id
    if reader is not None and message.id not in received_ids(final, reader):
        seen.add("message-lost")
    unread = sum(1 for c in final.user_messages() if c.consumed_by_run_id is None)
    if final.unconsumed_user_messages != unread:  # with one message read, both counter defects look alike
        seen |= {"read-still-unread", "unread-off-by-one"}
    if len(final.runs) > 2:
        seen.add("run-recorded-per-step")
    if any(run.identity.pid is None for run in final.runs):
        seen.add("run-identity-not-served")
    for run in final.runs:
        if not (instance.log_dir / f"run-{run.id}.log").exists():
            continue  # a run record no runner was started for
        started_as = (instance.log_dir / f"run-{run.id}.log").read_text()
        if f"runner {run.identity.runner_instance_id} " not in started_as:
            seen.add("runner-identity-changes")
    page = httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text
    shown = page.count(f'data-comment-id="{message.id}"')
    seen |= {"thread-hides-newest-message"} if shown == 0 else {"thread-shows-twice"} if shown > 1 else set()
    if any(f'href="{d.download_url}"' not in page for d in final.deliveries):
        seen.add("download-link-broken")
    if f'data-testid="task-status" data-status="{final.status}"' not in page:
        seen.add("badge-stuck-in-progress")
    return seen


def stop_while_working(instance: TestbedInstance) -> Symptoms:
    """Stop a working run: its process group gone when the product answers, the run cancelled, nothing
    starting by itself; then a short request: stored once, answered by a run it started, the task done."""
    api, seen = instance.api, set()
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Lead")).id)
    run = api.wait_until_file_saved(task.id, "slugify.py")
    result = api.stop_run(run.id)
    assert result.process_group_gone, "the product must say the group is gone either way"
    if instance.process_group_alive(run.identity.pid or 0):
        seen.add("stop-without-signal")
    if api.run(run.id).active:  # nothing after this can end: the run stays recorded running
        return seen | {"stop-end-not-recorded"}
    if api.run(run.id).status != "cancelled":
        seen.add("stop-records-succeeded")
    if (
        f'data-testid="stop-result" data-run-id="{run.id}"'
        not in httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text
    ):
        seen.add("stop-result-hidden")
    time.sleep(1.0)  # a scheduler tick is 0.1 s: a run the product starts by itself is queued by now
    message = api.send_message(task.id, "Change of plan: reply with nonce Q7W8E9R0 only.")
    final = api.wait_for_task(
        task.id, lambda t: all_ended(t) and all(c.consumed_by_run_id for c in t.user_messages()), 60, "the answer"
    )
    if any(r.queued_at < message.created_at for r in final.runs[1:]):
        seen.add("stop-retries-run")
    if sum(1 for c in final.user_messages() if c.body == message.body) != 1:
        seen.add("stop-then-message-twice")
    if final.status != "done":
        seen.add("stopped-task-never-done")
    return seen


def restart_under_a_run(instance: TestbedInstance) -> Symptoms:
    """One message before a controller restart under a running job, one after; the same run must take both."""
    api, seen = instance.api, set()
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Lead")).id)
    run = api.wait_until_file_saved(task.id, "slugify.py")
    early = api.send_message(task.id, LATE_REQUIREMENT_MAX_LENGTH)
    before, receipts = api.health()["instance_id"], api.run(run.id).receipts
    try:
        instance.stop_controller(signal.SIGTERM)
    except InstanceError:  # nothing after it can happen: no new controller can start beside this one
        return seen | {"shutdown-hangs"}
    if not instance.process_alive(run.identity.pid or 0, run.identity.process_start_time or 0):
        seen.add("restart-kills-runners")
    instance.start()
    if api.health()["instance_id"] == before:
        seen.add("restart-reuses-instance-id")
    late = api.send_message(task.id, "Also keep the README short.")
    api.wait_for_task(task.id, lambda t: all(c.consumed_by_run_id for c in t.user_messages()), 60, "both messages read")
    final = api.wait_for_task(task.id, all_ended, 60, "the runs to end")
    if early.body not in [c.body for c in final.user_messages()]:  # by body: SQLite may reuse a lost message's id
        seen.add("restart-drops-message")
    if len(final.runs) != 1 or final.runs[0].status != "succeeded":
        seen.add("restart-second-run")
    reader = next(c.consumed_by_run_id for c in final.user_messages() if c.id == late.id)
    if reader == run.id and late.id not in received_ids(final, run.id):
        seen.add("restart-inbox-lost")
    after = next(r for r in final.runs if r.id == run.id).receipts
    if after[: len(receipts)] != receipts:
        seen.add("restart-fails-last-step")
    if [r.seq for r in after] != list(range(len(after))):
        seen.add("restart-receipt-lost")
    replies = [(c.run_id, c.body) for c in final.agent_replies()]
    if len(set(replies)) != len(replies):
        seen.add("restart-replies-twice")
    if any(run_id is None for run_id, _ in replies):
        seen.add("restart-reply-echoed")
    return seen


def drain_under_a_run(instance: TestbedInstance) -> Symptoms:
    """A drain the operator asked for under a running job with one unread message: the run must end interrupted, and
    one retry read the message and deliver, alone."""
    api, seen = instance.api, set()
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Lead")).id)
    run = api.wait_until_file_saved(task.id, "slugify.py")
    late = api.send_message(task.id, LATE_REQUIREMENT_MAX_LENGTH)
    instance.request_drain()
    instance.stop_controller(signal.SIGTERM)
    instance.start()
    if api.run(run.id).status == "succeeded":
        seen.add("drain-records-success")
    if not [r for r in api.task(task.id).runs if r.id != run.id]:
        return seen | {"drain-queues-no-retry"}
    final = api.wait_for_task(task.id, all_ended, 60, "the runs to end")
    [retry] = [int(r.id) for r in final.runs if r.id != run.id]
    if late.id not in received_ids(final, retry):
        seen.add("drain-marks-message-read")
    if any(d.run_id == run.id for d in final.deliveries):
        seen.add("drain-delivers-interrupted-work")
    return seen


def delegate(instance: TestbedInstance) -> Symptoms:
    """The lead delegates to a named teammate: the child must be the teammate's."""
    api, seen = instance.api, set()
    lead = api.create_agent(name=unique("Lead"))
    mate = api.create_agent(name=unique("Mate"), reports_to=lead.id)
    if mate.reports_to != lead.id:
        seen.add("reports-to-ignored")
    parent = api.create_task("Delegate", delegation_task(mate.name), assignee_id=lead.id)
    parent = api.wait_for_task(parent.id, lambda t: bool(t.children), 30, "a child task")
    if parent.children[0].assignee_id != mate.id:
        seen.add("child-assigned-to-lead")
    if any(run.agent_id != lead.id for run in parent.runs):
        seen.add("parent-run-recorded-as-teammate")
    if f'href="/tasks/{parent.children[0].id}"' not in httpx.get(f"{instance.base_url}/tasks/{parent.id}/live").text:
        seen.add("child-link-opens-parent")
    feedback = api.send_message(parent.children[0].id, "Also keep the README short.")
    if feedback.body in [c.body for c in api.task(parent.id).user_messages()]:
        seen.add("feedback-copied-to-parent")
    return seen


def hire_and_reuse(instance: TestbedInstance) -> Symptoms:
    """A hire through the web form like the lead (manager, runner, its connection), then two delegations to the hire."""
    api, seen = instance.api, set()
    with DocumentService(instance.data_dir / "service-capture.jsonl") as fixture:
        lead = api.create_agent(name=unique("Lead"))
        service = api.install_service(unique("Docs"), fixture.url)
        connection = api.add_connection(service.id, "Team", fixture.credential, "ask_first", [lead.id])
        before = {agent.id for agent in api.agents()}
        if f'<option value="{lead.id}">' not in httpx.get(f"{instance.base_url}/").text:
            seen.add("hire-form-lists-no-managers")
        name = unique("Morgan")
        form = {"name": name, "role": "QA", "reports_to": str(lead.id), "adapter": lead.adapter, "model": lead.model}
        posted = httpx.post(
            f"{instance.base_url}/agents",
            data={**form, "connection_ids": [str(connection.id)]},
            headers={"origin": instance.base_url},
        )
        if posted.status_code != 303:
            return seen | {"hire-form-prefixes-connections"}  # the form refused the hire: nothing to delegate
        new = [agent for agent in api.agents() if agent.id not in before]
        listed = re.search(
            rf'data-agent-name="{name}">.*?data-testid="agent-role">([^<]*)<', httpx.get(f"{instance.base_url}/").text
        )
        if listed is None or listed.group(1) != "QA":
            seen.add("team-list-shows-default-role")
        if len(new) != 1:
            seen.add("hire-stored-twice")
        hired = next(agent for agent in new if agent.name == name)
        if hired.reports_to != lead.id:
            seen.add("hire-form-drops-manager")
        if hired.adapter != lead.adapter:
            return seen | {"hire-runner-ignored"}  # a hire on another runner cannot work here: nothing to delegate
        if hired.id not in api.connections()[0].agent_ids:
            seen.add("hire-connections-dropped")
        for title in ("First", "Second"):
            parent = api.create_task(title, delegation_task(hired.name), assignee_id=lead.id)
            parent = api.wait_for_task(parent.id, lambda t: bool(t.children), 30, "a child task")
            child = api.wait_for_task(parent.children[0].id, lambda t: bool(t.runs), 30, "a run on the child")
            if child.assignee_id != hired.id:
                seen.add("delegation-hires-copy")
            if child.runs[0].agent_id != hired.id:
                seen.add("child-run-by-delegator")
            ended = api.wait_for_task(child.id, all_ended, 60, "the child's runs to end")
            if any(r.tool == "deliver" for run in ended.runs for r in run.receipts) and not ended.deliveries:
                return seen | {"deliveries-hidden-after-agents-second"}  # the lead waits for ever on the delivery
            api.wait_until_done(parent.id)
    return seen


def read_and_rest(instance: TestbedInstance) -> Symptoms:
    """A revision read by its run; the task then rests: no later run is handed the message again."""
    api = instance.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Lead")).id)
    api.wait_until_done(task.id)
    message = api.send_message(task.id, REVISION_SEPARATOR)
    read = api.wait_for_task(task.id, lambda t: t.settled and bool(t.user_messages()[0].consumed_by_run_id), 60)
    reader = read.user_messages()[0].consumed_by_run_id
    try:  # a further run would start at once; a resting task has none
        api.wait_for_task(task.id, lambda t: len(t.runs) > 2, 5, "a further run")
    except TimeoutError:
        return set()
    later = api.wait_for_task(task.id, all_ended, 60, "the further run to end")
    again = [run.id for run in later.runs if run.id != reader and message.id in received_ids(later, run.id)]
    receivers = {run.id for run in later.runs if message.id in received_ids(later, run.id)}
    if len({delivery.run_id for delivery in later.deliveries} & receivers) > 1:
        return {"message-redone-in-a-fresh-workspace"}  # two runs that received the message each delivered
    return {"consumed-message-woken-again"} if again else set()


def read_after_success(instance: TestbedInstance) -> Symptoms:
    """A build run succeeds on a task; the task must still read (the API never breaks on its own records) and
    list the delivery the run made."""
    api = instance.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Lead")).id)
    deadline = time.monotonic() + 30
    while not (runs := api.runs(task.id)) or any(r.active for r in runs):
        if any(a.kind == "run_request_failed" for a in api.activity()):  # the runner retries; it will not end soon
            return {"delivery-store-fails"}
        assert time.monotonic() < deadline, "the run did not end"
        time.sleep(0.1)
    try:
        read = httpx.get(f"{instance.base_url}/api/tasks/{task.id}", timeout=2)
    except httpx.ReadTimeout:
        return {"task-read-hangs"}
    if read.status_code >= 500:
        return {"task-read-server-error"}
    if not read.headers["content-type"].startswith("application/json"):
        return {"task-read-not-json"}
    delivered = [r for run in runs for r in run.receipts if r.tool == "deliver"]
    return {"deliveries-not-listed"} if delivered and not read.json()["deliveries"] else set()


def finish_two_tasks(instance: TestbedInstance) -> Symptoms:
    """Two short tasks in turn, each finished by the one run its assignment asked for; the first is not run again
    by the time the second, created after it finished, has finished too (the scheduler has passed over it since)."""
    api = instance.api
    agent = api.create_agent(name=unique("Helper"))
    tasks = []
    for n in (1, 2):
        tasks.append(api.create_task(f"Note {n}", "Just acknowledge this.", assignee_id=agent.id))
        api.wait_for_task(tasks[-1].id, lambda t: t.status == "done" and all_ended(t), 30, f"note {n} done")
    runs = api.runs(tasks[0].id)
    return {"finished-task-runs-again"} if [r.cause for r in runs] != ["assignment"] else set()


def meter_a_call(instance: TestbedInstance) -> Symptoms:
    """A run's proxy admits a model call and completes it, through the agent API as the proxy does: it is on record."""
    api = instance.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=api.create_agent(name=unique("Metered")).id)
    run = api.wait_for_active_run(task.id)
    auth = {"Authorization": f"Bearer {runner_token(run.identity.pid or 0)}"}
    for report in (
        model_call_report(run.id, "probe", 2.0, status=0, in_flight=True),
        model_call_report(run.id, "probe", 3.0),
    ):
        answer = httpx.post(f"{instance.base_url}/api/agent/runs/{run.id}/model-calls", json=report, headers=auth)
        assert answer.status_code == 201, answer.text
    calls = api.run(run.id).spend.calls
    return {"model-call-admission-skipped"} if calls == 0 else {"model-call-metered-twice"} if calls > 1 else set()


# A call the product forwards as the agent asks may reach the service's capture a moment after the request shows.
def called_before_the_answer(api: ApiClient, task_id: RecordId, calls: Callable[[], list[str]], start: int) -> bool:
    """Whether the service saw a call after position ``start`` before the asking agent heard back.

    A product that forwards early does it before it answers the agent, and
    the scripted agent comments only once it has the answer: once its comment
    shows, every early call has been made. Looking then, not for a while
    after the request appears, needs no time window a busy machine could
    outlast.
    """
    api.wait_for(
        lambda: api.task(task_id).agent_replies() or None,
        what="the agent's comment that it asked",
    )
    return len(calls()) > start


def asked_or_ended(api: ApiClient, task_id: RecordId) -> list[Interaction] | str | None:
    """The task's requests once there are any; "ended" once its runs all ended without one."""
    ended = all_ended(api.task(task_id))  # read first: a request made before the end is seen below
    return api.interactions(task_id) or ("ended" if ended else None)


def email_card(instance: TestbedInstance, task_id: RecordId, interaction_id: RecordId) -> str:
    """The email setup card as the task page's live part draws it (its list item); "" where none is drawn."""
    live = httpx.get(f"{instance.base_url}/tasks/{task_id}/live").text
    start = live.find(f'data-interaction-id="{interaction_id}"')
    return "" if start < 0 else live[start : live.index("</li>", start)]


def decide_on_services(instance: TestbedInstance) -> Symptoms:
    """Approve one service action, decline another, answer Not now to a connection request: watched from outside."""
    api, seen = instance.api, set()
    with DocumentService(instance.data_dir / "service-capture.jsonl") as fixture:

        def calls() -> list[str]:
            """The protected action's calls, and every refused request (a refused session never gets to the call)."""
            return [e.outcome for e in fixture.capture() if e.tool == PROTECTED_ACTION or e.outcome == "rejected"]

        if api.connections():  # a new company has connected nothing yet
            seen.add("connection-seeded-at-start")
        lead = api.create_agent(name=unique("Lead"))
        service = api.install_service(unique("Docs"), fixture.url)
        api.add_connection(service.id, "Team", fixture.credential, "ask_first", [lead.id])
        if any(fixture.credential.encode() in body for body in api.raw_reads().values()):
            seen.add("credential-in-api")
        encoded = base64.b64encode(fixture.credential.encode())
        if any(encoded in body for body in api.raw_reads().values()):
            seen.add("credential-in-api-encoded")
        if fixture.credential in httpx.get(f"{instance.base_url}/").text:
            seen.add("credential-rendered")
        for approve in (True, False):
            start = len(calls())
            task = api.create_task("Doc", document_task(unique("Doc"), service.name), assignee_id=lead.id)
            asked = api.wait_for(lambda task=task: asked_or_ended(api, task.id), what="a pending request")
            if asked == "ended":  # the agent's action ran without anyone being asked
                return seen | {"ask-first-not-enforced"}
            [pending] = asked
            if called_before_the_answer(api, task.id, calls, start):
                seen.add("forwards-before-approval")
            card = httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text
            shown = card.count(f'data-interaction-id="{pending.id}"')
            seen |= {"card-hidden"} if shown == 0 else {"card-shown-twice"} if shown > 1 else set()
            if shown and f'data-agent="{lead.name}"' not in card:
                seen.add("card-names-another-agent")
            before = len(calls())
            api.decide(pending.id, "approve" if approve else "decline")
            if [i.status for i in api.interactions(task.id)] == ["pending"]:  # the agent would wait forever
                return seen | {"decision-not-saved"}
            [decided] = api.interactions(task.id)
            if [c.policy for c in api.connections()] != ["ask_first"]:
                seen.add("decision-allows-connection")
            if decided.decided_by != "user":
                seen.add("decision-filed-under-agent")
            api.decide(pending.id, "approve" if approve else "decline")  # a second click, as the API gets it
            if api.interactions(task.id)[0].decided_at != decided.decided_at:
                seen.add("decision-resaved-on-second-click")
            api.wait_until_done(task.id)
            made = calls()[before:]
            if approve and made.count("accepted") > 1:
                seen.add("forwards-twice")
            if approve and "rejected" in made:
                seen.add("forwards-without-credential")
            if not approve and made:
                seen.add("forwards-after-decline")
        asker = api.create_agent(name=unique("Asker"), model="asks-again-after-decline")
        connections = api.connections()
        task = api.create_task("Notes", notes_task("Notion"), assignee_id=asker.id)
        [intent] = api.wait_for(lambda: api.interactions(task.id) or None, what="a connection request")
        api.decide(intent.id, "decline")
        api.wait_for_task(task.id, all_ended, 30, "the agent to answer")
        if len(api.interactions(task.id)) > 1:
            seen.add("intent-shown-again")
        if api.connections() != connections:
            seen.add("not-now-connects")
        api.set_chat_connectors(True)
        task = api.create_task("Email", EMAIL_TASK, assignee_id=lead.id)
        [email] = api.wait_for(lambda: api.interactions(task.id) or None, what="an email setup card")
        card = email_card(instance, task.id, email.id)
        if card.count('type="password"') != 1:
            seen.add("email-card-two-password-fields")
        if 'data-testid="email-key-link"' not in card:
            seen.add("email-card-no-key-link")
        elif f'href="{AGENTMAIL_KEY_PAGE}"' not in card:
            seen.add("email-card-key-link-elsewhere")
        if "<select" in card:
            seen.add("email-card-shows-access-selector")
        httpx.get(f"{instance.base_url}/tasks/{task.id}").raise_for_status()  # the person reloads the page
        if email_card(instance, task.id, email.id) != card:
            seen.add("email-card-changes-on-reload")
        api.decide(email.id, "decline")
        api.wait_until_done(task.id)
    return seen


def skill_and_edit(instance: TestbedInstance) -> Symptoms:
    """An agent creates a skill; it is edited; Studio is read plainly and as a reload (a revalidating request)."""
    api, seen = instance.api, set()
    before = {s.id for s in api.skills()}
    task = api.create_task(SKILL_TASK_TITLE, SKILL_REQUEST, assignee_id=api.create_agent(name=unique("Lead")).id)
    api.wait_until_done(task.id)
    new = [s for s in api.skills() if s.id not in before]
    if len(new) != 1:
        seen.add("skill-created-twice")
    created = new[0]
    live = httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text
    if 'data-testid="skill-card"' not in live:
        seen.add("skill-card-missing")
    elif f'data-testid="skill-card" data-skill-id="{created.id}"' not in live:
        seen.add("card-links-same-heading")
    if live.count(f'data-testid="task-skill-link" data-skill-id="{created.id}"') > 1:
        seen.add("sidebar-lists-skill-twice")
    if f'href="/skills/{created.id}" data-testid="task-skill-link"' not in live:
        seen.add("sidebar-links-same-heading")
    api.request("POST", f"/api/skills/{created.id}/versions", json={"body": "# Edited body"}).raise_for_status()
    if api.skill(created.id).body != "# Edited body":
        seen.add("skill-edit-not-saved")
    studio = f"{instance.base_url}/skills/{created.id}"
    if (
        "# Edited body" in httpx.get(studio).text
        and "# Edited body" not in httpx.get(studio, headers={"cache-control": "max-age=0"}).text
    ):
        seen.add("skill-edit-lost-on-reload")
    return seen


def reach_providers(instance: TestbedInstance) -> Symptoms:
    """HubSpot through the installed Arcade gateway across a restart, None asked again, Jira's card declined."""
    api, seen = instance.api, set()
    with ArcadeGateway(instance.data_dir / "gateway-capture.jsonl") as gateway:
        service = api.install_service(GATEWAY_NAME, gateway.url)
        api.add_connection(service.id, "Arcade gateway", gateway.credential, "ask_first", [])
        lead = api.create_agent(name=unique("Lead"))
        task = api.create_task("Contact", contact_task(HUBSPOT), assignee_id=lead.id)
        [question] = api.wait_for(lambda: api.interactions(task.id) or None, what="a provider question")
        if question.options != list(PROVIDER_OPTIONS):
            seen.add("provider-none-missing" if "None" not in question.options else "provider-options-reordered")
        live = httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text
        if question.disclosure is None or 'data-testid="provider-disclosure"' not in live:
            seen.add("provider-no-disclosure")
        elif "nothing goes" in question.disclosure:
            seen.add("provider-disclosure-negated")
        if called_before_the_answer(api, task.id, lambda: [e.outcome for e in gateway.look_ups()], 0):
            seen.add("gateway-called-before-choice")
        api.wait_for_task(task.id, all_ended, 30, "the asking run to end")
        instance.stop_controller(signal.SIGTERM)
        instance.start()
        if api.interactions(task.id) != [question]:
            seen.add("question-lost-on-restart")
            return seen
        asked = len(api.task(task.id).runs)
        api.choose(question.id, GATEWAY_NAME).raise_for_status()
        try:  # the run that asked has ended: only a new run can read the answer
            api.wait_for_task(task.id, lambda t: len(t.runs) > asked, 15, "a run to read the answer")
        except TimeoutError:
            return seen | {"decision-wakes-nothing"}
        api.wait_until_done(task.id)
        if len([c for c in api.connections() if c.service_id == service.id]) != 1:
            seen.add("provider-choice-duplicates-connection")
    if "None" in question.options:
        asker = api.create_agent(name=unique("Asker"), model="asks-again-after-decline")
        task = api.create_task("Contact", contact_task(HUBSPOT), assignee_id=asker.id)
        [question] = api.wait_for(lambda: api.interactions(task.id) or None, what="a provider question")
        api.choose(question.id, "None").raise_for_status()
        api.wait_until_done(task.id)
        if len(api.interactions(task.id)) > 1:
            seen.add("provider-asked-again")
    task = api.create_task("Issues", issues_task(JIRA), assignee_id=lead.id)
    [card] = api.wait_for(lambda: api.interactions(task.id) or None, what="Jira's connection card")
    api.decide(card.id, "decline")
    api.wait_until_done(task.id)
    if any(i.kind == "provider_question" for i in api.interactions(task.id)):
        seen.add("native-falls-back-to-aggregators")
    return seen


FLOWS: dict[str, tuple[Callable[[TestbedInstance], Symptoms], float]] = {
    "build-and-revise": (build_and_revise, 0.1),
    "skill": (skill_and_edit, 0.05),
    "stop": (stop_while_working, 1.0),
    "restart": (restart_under_a_run, 0.5),
    "drain": (drain_under_a_run, 0.5),
    "delegate": (delegate, 0.05),
    "hire": (hire_and_reuse, 0.05),
    "decisions": (decide_on_services, 0.05),
    "read-after-success": (read_after_success, 0.05),
    "read-and-rest": (read_and_rest, 0.05),
    "providers": (reach_providers, 0.05),
    "metering": (meter_a_call, 0.5),
    "finish": (finish_two_tasks, 0.05),
}
FLOW_OF: dict[str, str] = {
    "stop-without-signal": "stop",
    "stop-records-succeeded": "stop",
    "stop-retries-run": "stop",
    "stop-then-message-twice": "stop",
    "stopped-task-never-done": "stop",
    "restart-reuses-instance-id": "restart",
    "restart-kills-runners": "restart",
    "shutdown-hangs": "restart",
    "restart-fails-last-step": "restart",
    "restart-receipt-lost": "restart",
    "restart-replies-twice": "restart",
    "reports-to-ignored": "delegate",
    "feedback-copied-to-parent": "delegate",
    "restart-second-run": "restart",
    "restart-inbox-lost": "restart",
    "restart-drops-message": "restart",
    **{name: "drain" for name, defect in REGISTRY.items() if defect.area == "drain"},
    "child-assigned-to-lead": "delegate",
    **{name: "decisions" for name, defect in REGISTRY.items() if defect.area in ("decisions", "credentials")},
    "task-read-server-error": "read-after-success",
    "task-read-not-json": "read-after-success",
    "task-read-hangs": "read-after-success",
    "deliveries-not-listed": "read-after-success",
    "decision-wakes-nothing": "providers",
    "delivery-store-fails": "read-after-success",
    "restart-reply-echoed": "restart",
    "consumed-message-woken-again": "read-and-rest",
    "message-redone-in-a-fresh-workspace": "read-and-rest",
    "parent-run-recorded-as-teammate": "delegate",
    "deliveries-hidden-after-agents-second": "hire",
    "sidebar-lists-skill-twice": "skill",
    "sidebar-links-same-heading": "skill",
    "stop-end-not-recorded": "stop",
    "stop-result-hidden": "stop",
    "child-link-opens-parent": "delegate",
    **{name: "hire" for name in REGISTRY if name.startswith("hire-")},
    "team-list-shows-default-role": "hire",
    "delegation-hires-copy": "hire",
    "child-run-by-delegator": "hire",
    "skill-created-twice": "skill",
    "skill-card-missing": "skill",
    "card-links-same-heading": "skill",
    "skill-edit-not-saved": "skill",
    "skill-edit-lost-on-reload": "skill",
    **{name: "providers" for name, defect in REGISTRY.items() if defect.area == "providers"},
    "model-call-admission-skipped": "metering",
    "model-call-metered-twice": "metering",
    "finished-task-runs-again": "finish",
}


@pytest.fixture
@needs("product")
def instance_with(request: pytest.FixtureRequest) -> Iterator[Callable[..., TestbedInstance]]:
    started: list[TestbedInstance] = []

    def start(pace: float, defects: tuple[str, ...] = ()) -> TestbedInstance:
        started.append(TestbedInstance(pace=pace, defects=defects).start())
        return started[-1]

    yield start
    for instance in started:
        instance.close()


@pytest.mark.parametrize("flow", sorted(FLOWS))
def test_a_normal_instance_has_no_defect(flow: str, instance_with: Callable[..., TestbedInstance]) -> None:
    run, pace = FLOWS[flow]
    instance = instance_with(pace)
    assert instance.api.health()["defects"] == []
    assert run(instance) == set()


STORY_ONLY_AREAS = ("team", "routines", "budgets", "sandbox")
"""Areas whose defects no flow here plays yet: their calibration cases, which make test runs, show each one."""
STORY_ONLY = {name for name, defect in REGISTRY.items() if defect.area in STORY_ONLY_AREAS} | {
    "declined-still-approvable"
}


def test_a_defect_no_flow_plays_is_shown_by_its_calibration_case() -> None:
    assert STORY_ONLY - {case.defect for case in DEFECT_CASES} == set()


FLOWED = sorted(set(REGISTRY) - STORY_ONLY)
PROVING_EACH_FLOW = {flow: next(d for d in FLOWED if FLOW_OF.get(d, "build-and-revise") == flow) for flow in FLOWS}
"""One defect per flow plays in `make test`, so every flow is shown able to see a defect; the rest of the sweep
(each defect's calibration case already proves the harness catches it) plays with ``--defect-sweep``."""


@pytest.mark.parametrize(
    "defect",
    [d if d in PROVING_EACH_FLOW.values() else pytest.param(d, marks=pytest.mark.defect_sweep) for d in FLOWED],
)
def test_each_defect_shows_only_when_switched_on(defect: str, instance_with: Callable[..., TestbedInstance]) -> None:
    run, pace = FLOWS[FLOW_OF.get(defect, "build-and-revise")]
    instance = instance_with(pace, (defect,))
    assert instance.api.health()["defects"] == [defect]
    assert defect in run(instance)
    if defect.startswith("restart-"):
        assert instance.api.health()["defects"] == [defect], "the restarted controller lost its switch"


def test_an_unknown_defect_is_refused_at_start(instance_with: Callable[..., TestbedInstance]) -> None:
    with pytest.raises(Exception, match="invalid choice"):
        instance_with(0.05, ("no-such-defect",))


def test_every_defect_has_a_calibration_case_and_every_case_a_defect() -> None:
    assert missing_cases() == [], "defects without a product-defect calibration case"
    assert unknown_defects() == [], "calibration cases naming no testbed defect"
    assert len({case.label for case in DEFECT_CASES}) == len(DEFECT_CASES), "a defect calibrated twice in one story"


def test_the_registry_spreads_over_every_kind_of_miss() -> None:
    areas = {defect.area for defect in REGISTRY.values()}
    assert len(REGISTRY) >= 12
    assert areas == set(get_args(Area)), "an area with no defect in it"


def test_the_api_client_reads_the_switch(instance_with: Callable[..., TestbedInstance]) -> None:
    api: ApiClient = instance_with(0.05, ("thread-shows-twice", "message-stored-twice")).api
    assert api.health()["defects"] == ["message-stored-twice", "thread-shows-twice"]
