"""The fake product's state: a company, its agents and tasks as plain Python objects, and an agent that works on reads.

Nothing runs in the background: the world moves one step each time the API
is read (:meth:`FakeWorld.step`), so a wait that polls the API sees the work
progress, and the same calls always give the same records. A step takes up
work owed (a new assignment, a message waiting), starts it, saves the source
(reading the messages waiting), works on for ``WORK_STEPS`` steps, then
finishes it with a delivery; a *defect* switched on changes one of those
steps, so a check test can show its check catches it without the testbed:

- ``drop-message``: a message a person sends is stored but never handed to a
  run (it stays unread, and no run wakes for it);
- ``run-without-cause``: the product records no cause for the runs it starts.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count

from harness.core.product_records import (
    Activity,
    Agent,
    Comment,
    Company,
    Controller,
    Delivery,
    Receipt,
    RecordId,
    Run,
    RunCause,
    RunIdentity,
    RunStatus,
    Task,
    TaskStatus,
    TaskSummary,
)

DEFECTS = ("drop-message", "run-without-cause")
WORK_STEPS = 4
"""How many steps a run works between saving its source and delivering: a journey's look at the task reads the
API several times (its invariants, the page, the records), so a fault's wait sees the saved, running run."""
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
DELIVERED_FILE = "slugify.py"


NO_SUCH_PID = 1 << 22
"""Where the fake's runner pids start: above the largest pid Linux can give (PID_MAX_LIMIT), so the harness's look at
the process table never finds a real process, or its group, under a fake runner's pid."""


class UnknownDefect(ValueError):
    """A defect the fake cannot play: refused, so a check test never passes on the healthy fake by mistake."""


@dataclass
class _Run:
    id: int
    task_id: int
    agent_id: int
    cause: RunCause | None
    queued_at: str
    status: RunStatus = "queued"
    started_at: str | None = None
    ended_at: str | None = None
    process_group_gone: bool | None = None
    receipts: list[Receipt] = field(default_factory=list)
    work_left: int = 0

    @property
    def active(self) -> bool:
        return self.status in ("queued", "running")


@dataclass
class _Task:
    id: int
    title: str
    body: str
    assignee_id: int | None
    updated_at: str
    status: TaskStatus = "todo"
    comments: list[Comment] = field(default_factory=list)
    runs: list[_Run] = field(default_factory=list)
    deliveries: list[tuple[Delivery, bytes]] = field(default_factory=list)

    def unread(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "user" and c.consumed_by_run_id is None]

    def active_run(self) -> _Run | None:
        return next((run for run in self.runs if run.active), None)


class FakeWorld:
    """One fake product's records and its scripted agent."""

    def __init__(self, defects: tuple[str, ...] = ()) -> None:
        if unknown := sorted(set(defects) - set(DEFECTS)):
            raise UnknownDefect(f"the fake product has no defect {', '.join(unknown)} (it has {', '.join(DEFECTS)})")
        self.defects = frozenset(defects)
        self._ids = count(1)
        self._seconds = count()
        self.controller_instance = "controller-1"
        self.company = Company(name="Fake Co", budget_cents=0, spend_cents=0)
        self.agents: list[Agent] = []
        self.tasks: dict[int, _Task] = {}
        self.activity: list[Activity] = []

    # ---- what a person does ---------------------------------------------------------

    def now(self) -> str:
        """A clock that moves one second per reading: times are ordered and the same on every run."""
        return (EPOCH + timedelta(seconds=next(self._seconds))).isoformat()

    def hire(self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str) -> Agent:
        agent = Agent(id=next(self._ids), name=name, role=role, reports_to=reports_to, adapter=adapter, model=model)
        self.agents.append(agent)
        self._note("agent.hired", None, None, f"{name} ({role})")
        return agent

    def create_task(self, title: str, body: str, assignee: str | None = None) -> _Task:
        agent = next((a for a in self.agents if a.name == assignee), self.agents[0] if self.agents else None)
        task = _Task(next(self._ids), title, body, int(agent.id) if agent else None, self.now())
        self.tasks[task.id] = task
        self._note("task.created", task.id, None, title)
        return task

    def send_message(self, task_id: RecordId, text: str) -> Comment:
        task = self.tasks[int(task_id)]
        comment = Comment(
            id=next(self._ids),
            task_id=task.id,
            author_kind="user",
            agent_id=None,
            author_name="you",
            run_id=None,
            body=text,
            created_at=self.now(),
            consumed_by_run_id=None,
            consumed_at=None,
        )
        task.comments.append(comment)
        if task.status == "done" and "drop-message" not in self.defects:
            task.status = "todo"  # a message reopens the work, as the testbed's does (a dropped one, nothing)
        return comment

    def stop(self, run_id: RecordId) -> bool:
        """Stop the run: cancelled, its (imaginary) process group gone at once; False when it was not active."""
        run = self._run(run_id)
        if not run.active:
            return False
        run.status, run.ended_at, run.process_group_gone = "cancelled", self.now(), True
        task = self.tasks[run.task_id]
        task.status = "todo"
        self._note("run.stopped", task.id, run.id, "stopped by the user")
        return True

    def restart_controller(self) -> None:
        """A new controller: its instance id changes, the runs go on."""
        number = int(self.controller_instance.rsplit("-", 1)[1]) + 1
        self.controller_instance = f"controller-{number}"

    # ---- the agent ------------------------------------------------------------------

    def step(self) -> None:
        """One move of the scripted agent on each task: take up owed work, start it, or finish it."""
        for task in self.tasks.values():
            run = task.active_run()
            if run is None:
                self._take_up(task)
            elif run.status == "queued":
                run.status, run.started_at = "running", self.now()
                task.status = "in_progress"
            elif not run.receipts:
                self._save(task, run)
            elif run.work_left:
                run.work_left -= 1
            else:
                self._finish(task, run)

    def settle(self, steps: int = 50) -> None:
        """Step until nothing is active or owed (or ``steps`` ran out: a defect may leave work owed forever)."""
        for _ in range(steps):
            if all(t.active_run() is None and not self._owed(t) for t in self.tasks.values()):
                return
            self.step()

    def _owed(self, task: _Task) -> RunCause | None:
        if task.assignee_id is None or task.status == "cancelled":
            return None
        if not task.runs:
            return "assignment"
        if task.unread() and "drop-message" not in self.defects:
            return "user_message"
        return None

    def _take_up(self, task: _Task) -> None:
        if (cause := self._owed(task)) is None or task.assignee_id is None:
            return
        recorded = None if "run-without-cause" in self.defects else cause
        run = _Run(next(self._ids), task.id, task.assignee_id, recorded, self.now(), work_left=WORK_STEPS)
        task.runs.append(run)
        self._note("run.queued", task.id, run.id, cause)

    def _save(self, task: _Task, run: _Run) -> None:
        """The run reads its task and the messages waiting, and saves its source: a running run that saved a file
        is every fault's premise (a Stop or a restart lands here, before the delivery)."""
        handed = [] if "drop-message" in self.defects else task.unread()
        ids = ",".join(str(c.id) for c in handed) or "-"
        run.receipts.append(self._receipt(run, "read_task", str(task.id), f"read task {task.id}, ids {ids}"))
        at = self.now()
        task.comments = [
            c.model_copy(update={"consumed_by_run_id": run.id, "consumed_at": at, "woke_run_ids": [run.id]})
            if c in handed
            else c
            for c in task.comments
        ]
        size = len(_delivery(task, len(task.deliveries) + 1))
        run.receipts.append(self._receipt(run, "write_file", DELIVERED_FILE, f"{size} bytes"))

    def _finish(self, task: _Task, run: _Run) -> None:
        data = _delivery(task, len(task.deliveries) + 1)
        delivery = Delivery(
            id=next(self._ids),
            task_id=task.id,
            run_id=run.id,
            sha256=hashlib.sha256(data).hexdigest(),
            size=len(data),
            files=[DELIVERED_FILE],
            created_at=self.now(),
            download_url=f"/deliveries/{task.id}/{len(task.deliveries) + 1}.zip",
        )
        task.deliveries.append((delivery, data))
        task.comments.append(self._reply(task, run, f"Delivered revision {len(task.deliveries)}."))
        run.status, run.ended_at = "succeeded", self.now()
        task.status, task.updated_at = "done", run.ended_at
        self._note("run.succeeded", task.id, run.id, "delivered")

    def _receipt(self, run: _Run, tool: str, target: str, detail: str) -> Receipt:
        seq = len(run.receipts) + 1
        return Receipt(
            id=f"{run.id}-{seq}", seq=seq, tool=tool, target=target, ok=True, detail=detail, created_at=self.now()
        )

    def _reply(self, task: _Task, run: _Run, body: str) -> Comment:
        agent = next(a for a in self.agents if a.id == run.agent_id)
        return Comment(
            id=next(self._ids),
            task_id=task.id,
            author_kind="agent",
            agent_id=agent.id,
            author_name=agent.name,
            run_id=run.id,
            body=body,
            created_at=self.now(),
            consumed_by_run_id=None,
            consumed_at=None,
        )

    def _note(self, kind: str, task_id: int | None, run_id: int | None, message: str) -> None:
        self.activity.append(
            Activity(
                id=len(self.activity) + 1, at=self.now(), kind=kind, task_id=task_id, run_id=run_id, message=message
            )
        )

    def _run(self, run_id: RecordId) -> _Run:
        return next(run for task in self.tasks.values() for run in task.runs if run.id == int(run_id))

    # ---- the records, as the API answers them -----------------------------------------

    def controller(self) -> Controller:
        return Controller(instance_id=self.controller_instance, pid=None)

    def summary(self, task: _Task) -> TaskSummary:
        assignee = next((a for a in self.agents if a.id == task.assignee_id), None)
        return TaskSummary(
            id=task.id,
            title=task.title,
            status=task.status,
            assignee_id=task.assignee_id,
            assignee_name=assignee.name if assignee else None,
            parent_id=None,
            updated_at=task.updated_at,
        )

    def task(self, task_id: RecordId) -> Task:
        task = self.tasks[int(task_id)]
        active = task.active_run()
        return Task(
            **self.summary(task).model_dump(),
            body=task.body,
            comments=list(task.comments),
            runs=[self.run(run.id) for run in task.runs],
            deliveries=[delivery for delivery, _ in task.deliveries],
            children=[],
            active_run_id=active.id if active else None,
            unconsumed_user_messages=len(task.unread()),
        )

    def run(self, run_id: RecordId) -> Run:
        run = self._run(run_id)
        return Run(
            id=run.id,
            task_id=run.task_id,
            agent_id=run.agent_id,
            status=run.status,
            identity=RunIdentity(
                runner_instance_id=f"runner-{run.id}", pid=NO_SUCH_PID + run.id, process_start_time=1.0
            ),
            queued_at=run.queued_at,
            started_at=run.started_at,
            ended_at=run.ended_at,
            cost_cents=0,
            error_code=None,
            terminal=None,
            process_group_gone=run.process_group_gone,
            receipts=list(run.receipts),
            cause=run.cause,
        )

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        """sha256 by path of the task's workspace: the files of its latest delivery (the fake keeps no others)."""
        task = self.tasks[int(task_id)]
        if not task.deliveries:
            return {}
        with zipfile.ZipFile(io.BytesIO(task.deliveries[-1][1])) as archive:
            return {name: hashlib.sha256(archive.read(name)).hexdigest() for name in archive.namelist()}

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        return next(data for t in self.tasks.values() for d, data in t.deliveries if d.id == int(delivery_id))


def _delivery(task: _Task, revision: int) -> bytes:
    """The ZIP a run delivers: one file naming the task and the revision, so each delivery's bytes differ."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo(DELIVERED_FILE, date_time=(2026, 1, 1, 0, 0, 0))
        archive.writestr(info, f"# {task.title}: revision {revision}\n")
    return buffer.getvalue()
