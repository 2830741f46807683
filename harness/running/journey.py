"""The journey: the world a story acts in, in a person's vocabulary.

A story says "create the task", "wait until the agent has finished",
"download the delivery", "send a message"; the journey turns each into page
object calls (browser), API reads (to know when to look), evidence (a
screenshot at every decision point, on failure and of the final screen, the
ZIP and its sha256, the oracle result) and checks. A decision point is a
screen the person acts on (a task seen finished, a card to decide, a child
task opened); the echo of their own action (the task just created, the
message just sent) is not one: the page object has already waited for it,
a failure there keeps its own screenshot, and the final screen shows the
task and its whole thread, and every screenshot costs the browser real work.
Selectors live in the driver's page objects, JSON in its API client, paths in the evidence recorder: never in a story.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from datetime import UTC, datetime
from typing import Any, Literal, NoReturn, cast

import httpx
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel

from harness.checks.delivery import (
    Graded,
    downloaded_as_claimed,
    downloads_again_alike,
    file_hashes,
    oracle_checks,
    revision_differs,
)
from harness.checks.facts import lifecycle_facts
from harness.checks.lifecycle import grade_lifecycle
from harness.checks.metering import calls_metered
from harness.checks.observed_facts import observed_facts
from harness.checks.stalls import never_woken, retrying_errors
from harness.checks.ui import thread_matches_records
from harness.core.product_records import Agent, Comment, Hire, RecordId, Run, Task
from harness.core.records import CheckRecord, DownloadRecord
from harness.core.story_inputs import draw
from harness.core.verdicts import ExpectationUnmet, InfrastructureFailed, StoryFailed, Unexercised
from harness.core.waiting import WaitTimeout, wait_for
from harness.evidence.moments import watch_client
from harness.judging.observations import Judgement, decided, judge
from harness.products.base import ProductDriver, ProductInstance
from harness.products.views import HireFormView, TaskView
from harness.running.attempt import AttemptContext, Conclusion
from harness.running.conclusion import conclusion
from harness.running.expectations import Expectation, check_id
from harness.running.model_server import ModelServer
from harness.running.readbacks import (
    NOTHING_SHOWN,
    Fields,
    ReadBacks,
    Shown,
    Shows,
    agent_fields,
    settings_now,
    shown_both,
    task_fields,
)
from harness.running.sandbox_watch import SandboxApi, SandboxedInstance, SandboxWatch
from harness.running.screenshots import FullPageCamera
from harness.running.watch import UNREADABLE, InvariantWatch
from harness.running.world import close_world

SETTLE_S = 5.0
# The page already shows the message, so the product has it: its record must read back at once.
STORED_AFTER_SHOWN_S = 15.0
BUILD_ORACLE_TASK = "slugify"  # the oracle task a delivery is graded by unless a story names another
FINISHED_STATUSES = {"done", "in_review", "blocked", "cancelled"}
STALL_CHECK_S = 2.0  # how often a wait that has not got its state yet asks the records whether the product is stuck


class PendingMessage(BaseModel):
    """A message whose Send was pressed but whose storing nobody waited for yet."""

    task_id: RecordId
    text: str
    known_ids: frozenset[RecordId]


class Journey:
    """One attempt's product instance, browser page, deadline and evidence, for a story to use.

    It holds what every story does and what a person knows along the way
    (the messages they sent, the runs they interrupted on purpose). Faults
    are functions in :mod:`harness.faults` that take the journey and return
    their own records; nothing of a fault is kept here.
    """

    def __init__(
        self,
        context: AttemptContext,
        driver: ProductDriver,
        instance: ProductInstance,
        browser_context: Any,
        page: Any,
    ) -> None:
        self.cell = context.cell
        self.settings = context.settings
        self.evidence = context.recorder
        self.deadline = context.deadline
        self.driver = driver
        self.instance = instance
        self.api = instance.api
        for client in [v for v in getattr(self.api, "__dict__", {}).values() if isinstance(v, httpx.Client)]:
            watch_client(client, self.evidence.api_calls)  # every HTTP client the driver's API holds
        self.browser_context = browser_context
        self.page = page
        self.camera = FullPageCamera(self.page)
        self.sent_messages: list[str] = []
        self.interrupted_run_ids: list[RecordId] = []
        self.readbacks = ReadBacks(lambda: settings_now(self.api), driver.name)
        self.current: TaskView | None = None
        self._opened_afresh: tuple[str, str, TaskView] | None = None  # the task page the read-back last opened
        self.oracle_image: str | None = None
        self.watch = InvariantWatch(
            self.api,
            self.evidence,
            self.screenshot,
            done_statuses=self.cell.environment.done_statuses,
            observes=self.cell.observes,
        )
        in_sandboxes = self.cell.environment.sandbox != "process"
        self.sandboxes = SandboxWatch(instance) if in_sandboxes and isinstance(instance, SandboxedInstance) else None
        self.sandboxes_api = cast(SandboxApi, self.api)
        self._stall_checked_at = 0.0
        self._this_poll: dict[str, Task] = {}  # every task's record the current poll's invariant look read
        self._grader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="oracle")
        self._grades: list[tuple[DownloadRecord, str, Future[Any]]] = []
        self.agent_clis: dict[str, str] = {}
        self.model_server: ModelServer | None = None
        # What a story starts beside the product (an outside service fixture), closed when the attempt ends.
        self.resources = ExitStack()
        self._closed = False
        self.lead = self._hire("Avery", "lead engineer")
        self._apply_hard_stop()
        if self.sandboxes is not None:  # late: what is entered here is left when the journey closes
            self.resources.enter_context(self.sandboxes.following())
        self.resources.enter_context(self.watch.between_waits())  # last: the first to stop

    # ---- the team ---------------------------------------------------------------

    def _hire(self, name: str, role: str, reports_to: Agent | None = None) -> Agent:
        """Create an agent with the cell's profile (a calibration run swaps in a faulty persona)."""
        model = self.settings.scripted_persona or self.cell.profile.model
        agent = self.api.create_agent(
            name=name,
            role=role,
            adapter=self.cell.profile.adapter,
            model=model,
            reports_to=reports_to.id if reports_to else None,
        )
        self.evidence.note("hire", f"{name} ({role}) on {self.cell.profile.adapter}/{model}")
        hire = Hire(
            name=name,
            role=role,
            reports_to=reports_to.name if reports_to else "",
            adapter=self.cell.profile.adapter,
            model=model,
        )
        self.entered_agent(hire, None)
        return agent

    def _apply_hard_stop(self) -> None:
        """The cell's hard stop becomes the company's and the lead's budget, through the product's public API.

        Only where agents call a model: the scripted agent spends nothing, and
        a product without model-calling agents need not offer budgets.
        """
        cents = self.cell.hard_stop_cents(self.settings.hard_stop_cents)
        if cents is None:
            return
        self.api.set_company_budget(cents)
        self.api.set_agent_budget(self.lead.id, cents)
        self.evidence.note("hard stop", f"company and lead budget {cents} cents")
        self.entered(
            "budgets",
            {"company budget_cents": str(cents), "lead budget_cents": str(cents)},
            self._budgets,
            lambda reload: {},
            NOTHING_SHOWN,
        )

    def _budgets(self) -> dict[str, str | None]:
        lead = next((agent for agent in self.api.agents() if str(agent.id) == str(self.lead.id)), None)
        return {
            "company budget_cents": str(self.api.company().budget_cents),
            "lead budget_cents": str(lead.budget_cents) if lead else None,
        }

    def hire_teammate(self, name: str, role: str) -> Agent:
        return self._hire(name, role, reports_to=self.lead)

    # ---- what a person does in the browser ---------------------------------------

    def wait(self, probe: Callable[[], Any], what: str, expectation: Expectation, timeout: float | None = None) -> Any:
        """Poll the product until ``probe`` answers, sampling the invariants meanwhile.

        A state that never comes within ``timeout`` (default: what is left of
        the attempt) fails the attempt under ``expect.<expectation>``.
        """

        def watched() -> Any:
            with self.evidence.timed("invariants"):
                looked = self.watch.sample(shown=self._badge if self.current is not None else None)
                if self.sandboxes is not None:
                    self.sandboxes.sample(self.sandboxes_api.runs())
            self._this_poll = {str(task.id): task for task in looked}
            try:
                found = probe()
                if not found and time.monotonic() - self._stall_checked_at >= STALL_CHECK_S:
                    self._name_a_stall()
            finally:
                self._this_poll = {}
            return found

        try:
            return wait_for(watched, timeout=self.deadline.budget(timeout), what=what)
        except WaitTimeout as error:
            self._name_a_stall()  # what the product was doing names the failure, when its records show it
            self.unmet(expectation, str(error))

    def task_now(self, task_id: RecordId) -> Task:
        """The task's record as the product's API serves it now.

        Inside a wait's poll whose invariant look has just read every task's
        record from the API, that reading (taken the same moment, before the
        probe); otherwise a read of its own.
        """
        return self._this_poll.get(str(task_id)) or self.api.task(task_id)

    def _name_a_stall(self) -> None:
        """Fail the story under the stall the product's records show (a run retrying server errors, a task no run
        took up after a person's decision, a sandbox's lease held long after its run ended), if any."""
        self._stall_checked_at = time.monotonic()
        try:
            tasks = list(self._this_poll.values()) or [self.api.task(summary.id) for summary in self.api.tasks()]
            now = datetime.now(UTC)
            stall = retrying_errors([run for task in tasks for run in task.runs], self.api.activity())
            if stall is None:
                stall = never_woken(tasks, self.api.interactions(), now)
            if stall is None and self.sandboxes is not None:
                stall = self.sandboxes.held_past_allowance(tasks, now)
        except UNREADABLE:  # a product restarting under a fault: look again at the next wait
            return
        if stall is not None:
            self.fail_check(stall.id, stall.detail)

    @contextmanager
    def expecting(self, expectation: Expectation, what: str) -> Iterator[None]:
        """A page-object step whose wait times out is the product's failure, under ``expect.<expectation>``."""
        try:
            yield
        except (PlaywrightTimeoutError, AssertionError, TimeoutError) as error:
            self.unmet(
                expectation,
                f"{what}: {str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}",
            )

    def unmet(self, expectation: Expectation, detail: str) -> NoReturn:
        """Keep the failed expectation with the screen as it was, and end the story as failed."""
        self._end_failed(check_id(expectation), detail, f"unmet {expectation}")

    def require(self, judged: Judgement | CheckRecord, step: str, records: str | None = None) -> None:
        """Keep a rule's verdict with a screenshot of the moment (and the records it read); a failure ends the story.

        For a story whose later steps would only repeat the same miss.
        """
        judgement = judged if isinstance(judged, Judgement) else decided([judged])
        failed = next((check for check in judgement.checks if check.failed), None)
        self.screenshot(f"failed {failed.id}" if failed else step)
        self.record_checks(judgement, [self.evidence.screenshots[-1], *([records] if records else [])])
        if failed:
            raise ExpectationUnmet(failed.id, f"{failed.id}: {failed.detail}")

    def fail_check(self, check_id: str, detail: str, records: str | None = None) -> NoReturn:
        """A named check fails with the screen as it is (and the records it read); the story ends as failed."""
        self._end_failed(check_id, detail, f"failed {check_id}", records)

    def _end_failed(self, check_id: str, detail: str, shot: str, records: str | None = None) -> NoReturn:
        self.screenshot(shot)
        evidence = [self.evidence.screenshots[-1], *([records] if records else [])]
        self.evidence.check(check_id, False, detail, evidence)
        raise ExpectationUnmet(check_id, f"{check_id}: {detail}")

    def _badge(self) -> tuple[RecordId, str]:
        """The status the person sees on the open task's page."""
        page = self.current_page()
        return page.task_id, page.status()

    def screenshot(self, step: str) -> None:
        with self.evidence.timed("screenshots"):
            path = self.evidence.screenshot_path(step)
            self.camera.take(path)
            self.evidence.thumbnail(path)

    def record_checks(
        self, judged: Judgement | list[CheckRecord], evidence: list[str], promise: str | None = None
    ) -> list[CheckRecord]:
        """Keep a rule's checks (a fault module's, a family's), each linked to its evidence and held to ``promise``;
        a plain list is kept as decided while running. Returns the checks as kept."""
        judgement = judged if isinstance(judged, Judgement) else decided(judged)
        return self.evidence.observe(judgement, evidence, promise)

    # ---- read everything back (harness.checks.readback) --------------------------------

    def entered(
        self, where: str, typed: Mapping[str, str], stored: Callable[[], Fields], shown: Shown, shows: Shows
    ) -> None:
        """Values the person just typed or chose at ``where``, read back now and when the attempt concludes
        (:meth:`harness.running.readbacks.ReadBacks.entered`); ``shows``: the fields each look's page declares."""
        self.readbacks.entered(where, typed, stored, shown, shows)

    def entered_agent(self, hire: Hire, form: HireFormView | None) -> None:
        """An agent set up as ``hire`` says (through the API, or the hire form ``form`` as it stands now)."""
        fields = {"name": hire.name, "role": hire.role, "reports_to": hire.reports_to}
        fields |= {"adapter": hire.adapter, "model": hire.model}

        serves = self.driver.serves("hiring")
        listing = self.driver.hire_form(self.page, self.instance.base_url) if serves else form

        def shown(reload: bool) -> Fields:
            view = listing.open() if reload and listing is not None else form  # a product that lists its team
            return view.shown_agent(hire.name) if view is not None else {}

        shows = (form.shows if form else (), listing.shows if listing else ())
        self.entered(f"agent {hire.name}", fields, lambda: agent_fields(self.api.agents(), hire.name), shown, shows)

    def leaving_settings(self, step: str, about: Collection[str] = ()) -> AbstractContextManager[None]:
        """A step that must change no setting but those it is ``about`` (:meth:`ReadBacks.leaving_settings`)."""
        return self.readbacks.leaving_settings(step, about)

    def _read_back(self) -> None:
        """Read every entered value again (records, and each page opened afresh) and judge all of them."""
        judgement, kept = self.readbacks.judged()
        if judgement.checks:
            path = self.evidence.snapshot("readback", kept)
            self.record_checks(judgement.reading(path, origin="product"), [path])

    def create_task(self, title: str, body: str, assignee: Agent | None = None) -> Task:
        """Open the product, fill the new-task form and land on the task's page."""
        assignee = assignee or self.lead
        with self.leaving_settings(f"creating task {title!r}"):
            with self.expecting("task-page-shown", f"creating task {title!r} in the browser"):
                tasks = self.driver.task_list(self.page, self.instance.base_url).open()
                self.current = tasks.create_task(title=title, body=body, assignee=assignee.name)
        task = self.api.task(self.current.task_id)
        self.evidence.note("create task", f"task {task.id} {title!r} for {assignee.name}")
        self.entered(
            f"task {task.id}",
            {"title": title, "body": body},
            lambda: task_fields(self.api.task(task.id)),
            lambda reload: self.task_view(task.id, reload).shown_fields(),
            shown_both(self.current.shows),
        )
        return task

    def task_view(self, task_id: RecordId, reload: bool) -> TaskView:
        """The task's page: the one open (``reload`` False), or opened afresh, as a person following a link would."""
        if not reload and self.current is not None and str(self.current.task_id) == str(task_id):
            return self.current
        view = self.driver.task_page(self.page, self.instance.base_url, task_id).open()
        self._opened_afresh = (str(task_id), self.page.url, view)
        return view

    def _loaded_afresh(self, view: TaskView) -> TaskView:
        """``view``'s task page as a fresh load shows it: the one the read-back just opened, when the page is
        still there (nothing navigated since), else opened afresh now (the read-back may have left another page)."""
        if self._opened_afresh is not None:
            task_id, url, opened = self._opened_afresh
            if task_id == str(view.task_id) and self.page.url == url:
                return opened
        return self.task_view(view.task_id, reload=True)

    def open_task(self, task: Task) -> None:
        """Go to a task's page (for example back to the parent), as a person following a link would."""
        with self.expecting("task-page-shown", f"opening task {task.id}"):
            self.current = self.driver.task_page(self.page, self.instance.base_url, task.id).open()
        self.evidence.note("open task", f"task {task.id}")

    def open_child_task(self, parent: Task) -> Task:
        """Wait until the lead has created a child task, then follow its link from the parent's page.

        A parent at rest without a child never gets one: that fails at once, not at the deadline.
        """

        def child_or_rest() -> Task | None:
            current = self.task_now(parent.id)
            return current if current.children or current.at_rest else None

        found: Task = self.wait(child_or_rest, f"a child task of task {parent.id}", "child-task-created")
        if not found.children:
            self.unmet(
                "child-task-created", f"task {parent.id} is {found.status} with nothing running and no child task"
            )
        if self.current_page().task_id != parent.id:
            self.open_task(parent)
        with self.expecting("child-task-page-shown", f"following the child link of task {parent.id}"):
            self.current = self.current_page().open_child(0)
        child = self.api.task(self.current.task_id)
        self.evidence.note("open child task", f"task {child.id} assigned to {child.assignee_name}")
        self.screenshot(f"child task {child.id}")
        return child

    def shown_budget(self, at_a_tick: bool = False) -> float:
        """Seconds a page step on something the product already has may take: the environment's
        ``shown_wait_s``, within what is left of the attempt. Such a step fails in seconds, not at the deadline.

        ``at_a_tick``: the step waits for work the product takes up at its scheduler's next tick, one
        ``scheduler_tick_s`` more."""
        environment = self.cell.environment
        return self.deadline.budget(environment.shown_wait_s + (environment.scheduler_tick_s if at_a_tick else 0.0))

    def reload(self) -> None:
        self.current_page().reload()

    # ---- the premise of every fault: a running run has saved the source -------------

    def wait_until_saved(self, task: Task, filename: str | None) -> Run | None:
        """The running run on the task that has saved ``filename`` (None: any file); None once the task settled
        without one.

        A settled task means the agent finished (or died) before anyone could
        see the file: the premise is gone, and that is decided, not waited out.
        """

        def saved() -> Run | Literal["settled"] | None:
            current = self.task_now(task.id)
            run = current.running_run_that_saved(filename)
            if run is not None:
                return run
            return "settled" if current.at_rest else None

        what = filename or "a file"
        found = self.wait(saved, f"{what} saved by a running run on task {task.id}", "source-saved")
        if found == "settled":
            return None
        self.evidence.note("source saved", f"run {found.id} ({_where(found)}) saved {what} on task {task.id}")
        return found  # type: ignore[no-any-return]

    def wait_until_source_saved(self, task: Task, filename: str) -> Run:
        """Like ``wait_until_saved``, for a story that cannot go on without the premise."""
        return self._premise_saved(task, filename)

    def wait_until_revision_saved(self, task: Task) -> Run:
        """The running run revising the task, once it has saved a file: whichever files the revision changes (the
        scripted agent rewrites slugify.py, the replay's agents only the README: a file written with the bytes it
        had is no change, and gets no receipt from a CLI's runner)."""
        return self._premise_saved(task, None)

    def _premise_saved(self, task: Task, filename: str | None) -> Run:
        run = self.wait_until_saved(task, filename)
        if run is None:
            self.ended_before(self.api.task(task.id).runs[-1], f"{filename or 'a file'} was seen saved")
        return run  # type: ignore[return-value]

    def ended_before(self, run: Run, fault: str) -> NoReturn:
        """The run ended on its own before the fault: nothing to judge, or a failure of its own."""
        if run.status == "succeeded":
            self.evidence.note("premise missed", f"run {run.id} succeeded before {fault}")
            raise Unexercised(f"run {run.id} finished before {fault} could be injected")
        self.wait(lambda: self.task_now(run.task_id).settled or None, f"task {run.task_id} to settle", "task-settled")
        raise StoryFailed(f"run {run.id} ended {run.status} ({run.error_code}) before {fault}")

    # ---- messages ---------------------------------------------------------------------

    def send_message(self, text: str) -> Comment:
        """Type into the current task's composer and send; returns the message once the page shows it."""
        page = self.current_page()
        known = frozenset(c.id for c in self.api.task(page.task_id).comments)
        with self.leaving_settings(f"sending a message on task {page.task_id}"):
            with self.expecting("message-shown", f"sending a message on task {page.task_id}"):
                page.send_message(text, timeout=self.shown_budget())
        self._sent(text)
        pending = PendingMessage(task_id=page.task_id, text=text, known_ids=known)
        return self.wait_until_stored(pending, timeout=STORED_AFTER_SHOWN_S)

    def submit_message(self, text: str) -> PendingMessage:
        """Type and press Send without waiting for the page: a fault that lands "once the message is
        stored" then waits for the product's record (``wait_until_stored``) and lands as early as it can.
        """
        page = self.current_page()
        known = frozenset(c.id for c in self.api.task(page.task_id).comments)
        with self.expecting("message-shown", f"sending a message on task {page.task_id}"):
            page.submit_message(text)
        self._sent(text)
        return PendingMessage(task_id=page.task_id, text=text, known_ids=known)

    def wait_until_stored(self, pending: PendingMessage, timeout: float | None = None) -> Comment:
        """Until the product has stored the message whose Send was pressed, exactly as typed (no wait for the page)."""

        def stored() -> Comment | None:
            fresh = [
                c
                for c in self.task_now(pending.task_id).user_messages()
                if c.id not in pending.known_ids and c.body.strip() == pending.text.strip()
            ]
            return fresh[0] if fresh else None

        what = f"the message to be stored as typed on task {pending.task_id}"
        return self.wait(stored, what, "message-stored", timeout)  # type: ignore[no-any-return]

    def _sent(self, text: str) -> None:
        self.sent_messages.append(text)
        self.evidence.note("send message", text.splitlines()[0][:80])

    def excuse_interruption(self, run: Run) -> None:
        """A run the person interrupted on purpose (Stop): the lifecycle checks must not count it against the agent."""
        self.interrupted_run_ids.append(run.id)

    def record_workspace_hashes(self, task: Task, moment: str) -> dict[str, str]:
        """The sha256 of every workspace file now, kept in the package under ``moment``."""
        hashes = self.api.workspace_hashes(task.id)
        self.evidence.snapshot(f"workspace-{moment}", hashes)
        self.evidence.note("workspace hashes", f"{len(hashes)} files {moment}")
        return hashes

    @staticmethod
    def fresh_nonce() -> str:
        """A token nobody could have written before this attempt (a cassette's replay hands back the recorded one)."""
        return draw("nonce", lambda: "N" + secrets.token_hex(5).upper())

    def wait_until_finished(self, task: Task, what: str = "the agent to finish") -> Task:
        """Wait until nothing runs or waits on the task and it left active work; then look at it.

        Once the task is finished and nothing runs, its bookkeeping (no
        message still counted unread) gets ``SETTLE_S`` to catch up: a product
        that never settles fails under ``expect.task-settled`` in seconds, not
        at the attempt deadline.
        """
        finished_since: list[float] = []

        def finished() -> Task | None:
            current = self.task_now(task.id)
            if current.status not in FINISHED_STATUSES or any(run.active for run in current.runs):
                finished_since.clear()
                return None
            finished_since[:1] = finished_since[:1] or [time.monotonic()]
            return current if current.settled or time.monotonic() - finished_since[0] > SETTLE_S else None

        current = self.wait(finished, f"{what} on task {task.id}", "task-finished")
        if not current.settled:
            self.unmet(
                "task-settled",
                f"task {task.id} is {current.status} with nothing running, but "
                f"{current.unconsumed_user_messages} message(s) still count as unread and {current.owed_runs} run(s)"
                f" are owed after {SETTLE_S:.0f} s",
            )
        with self.expecting("page-shows-status", f"the page of task {task.id} showing {current.status}"):
            self.current_page().wait_until_status(current.status, timeout=self.shown_budget())
        self.evidence.note("finished", f"task {task.id} is {current.status}")
        self.screenshot(f"task {task.id} {current.status}")
        return current

    def download_latest_delivery(self, task: Task, phase: str) -> DownloadRecord:
        """Click the newest delivery's download link, as a person would, and keep the bytes."""
        current = self.api.task(task.id)
        if not current.deliveries:
            self.evidence.check(f"delivery.{phase}", False, f"task {task.id} has no delivery to download")
            raise StoryFailed(f"no delivery for {phase} on task {task.id}")
        latest = current.deliveries[-1]
        with self.expecting("delivery-downloadable", f"downloading delivery {latest.id} from the page"):
            with self.evidence.timed("downloads"):
                data = self.current_page().download_delivery_id(latest.id, timeout=self.shown_budget())
        record = self.evidence.download(phase, data)
        claimed = judge(downloaded_as_claimed, phase, record.sha256, latest.sha256)
        self.record_checks(claimed.reading(record.path, f"delivery {latest.id}"), [record.path])
        return record

    def download_again(self, original: DownloadRecord, task: Task) -> None:
        """The first delivery must still download with exactly its original bytes."""
        delivery = next((d for d in self.api.task(task.id).deliveries if d.sha256 == original.sha256), None)
        if delivery is None:
            self.record_checks(judge(downloads_again_alike, original.phase, original.sha256, None), [])
            return
        with self.expecting("delivery-downloadable", f"downloading delivery {delivery.id} again from the page"):
            with self.evidence.timed("downloads"):
                data = self.current_page().download_delivery_id(delivery.id, timeout=self.shown_budget())
        again = self.evidence.download(f"{original.phase}-again", data)
        judged = judge(downloads_again_alike, original.phase, original.sha256, again.sha256)
        self.record_checks(judged.reading(original.path, again.path, origin="harness"), [original.path, again.path])

    def require_different(self, first: DownloadRecord, second: DownloadRecord) -> None:
        """The revision changed what was delivered: a file's content, not only the archive's bytes."""
        files = [file_hashes((self.evidence.folder / d.path).read_bytes()) for d in (first, second)]
        judged = judge(revision_differs, first.phase, files[0], second.phase, files[1])
        self.record_checks(judged.reading(first.path, second.path, origin="harness"), [first.path, second.path])

    # ---- the independent oracle ----------------------------------------------------

    def grade(self, download: DownloadRecord, mode: str, task: str = BUILD_ORACLE_TASK) -> None:
        """Hand the downloaded ZIP to the oracle's ``task``; the agent's word counts for nothing.

        Grading runs in the background while the person goes on (the agent
        revises meanwhile); its checks are recorded when the attempt concludes.
        """
        self._grades.append((download, mode, self._grader.submit(self._grade_now, download, mode, task)))

    def _grade_now(self, download: DownloadRecord, mode: str, task: str) -> Any:
        from oracle import grade

        with self.evidence.timed("oracle"):
            return grade(self.evidence.folder / download.path, mode, task)

    def _record_grades(self) -> None:
        """Wait for every grade handed to the oracle and keep its result and checks."""
        from oracle import CannotGrade

        grades, self._grades = self._grades, []
        for download, mode, pending in grades:
            try:
                result = pending.result()
            except CannotGrade as error:
                raise InfrastructureFailed(f"the oracle could not grade: {error}") from None
            self.oracle_image = result.image
            path = self.evidence.oracle_result(download, mode, result.passed, result.model_dump(mode="json"))
            failing = [(check.id, check.detail) for check in result.checks if not check.passed]
            graded = Graded(phase=download.phase, mode=mode, passed=result.passed, failing=failing)
            self.record_checks(judge(oracle_checks, graded).reading(path, origin="harness"), [download.path, path])

    # ---- the end of the attempt -------------------------------------------------------

    def current_page(self) -> TaskView:
        if self.current is None:
            raise RuntimeError("the story has not opened a task yet")
        return self.current

    def _require_thread_matches(self, task: Task) -> None:
        """The reloaded page shows each message the person sent exactly once, as the product stored it."""
        page = self.current_page()
        stored = task.user_messages()
        shown = [message.id for message in stored for _ in page.user_messages_with(message.body)]
        judgement = judge(thread_matches_records, [message.id for message in stored], shown)
        self.record_checks(
            judgement.reading(self.evidence.screenshots[-1], origin="product"), [self.evidence.screenshots[-1]]
        )

    def _final_evidence(self) -> list[Run]:
        """The invariants watched, the final screen, the persisted records and the lifecycle checks; returns every run.

        The invariants come first: whatever of the rest fails, the looks the watch took are judged. The read-back
        opens its pages afresh before the final screen, so that a read-back that ends on the current task's page
        is the fresh load the final screen shows (one page load, not two)."""
        self.watch.conclude()
        self._read_back()
        if self.current is not None:
            self.current = self._loaded_afresh(self.current)
            shown = self.api.task(self.current.task_id)
            if shown.agent_replies():
                self.current.scroll_latest_reply_into_view()
            self.screenshot("final")
            self._require_thread_matches(shown)
        tasks = [self.api.task(summary.id) for summary in self.api.tasks()]
        records = self.evidence.snapshot("tasks", tasks)
        self.evidence.snapshot("agents", self.api.agents())
        self.evidence.snapshot("company", self.api.company())
        self.evidence.snapshot("activity", self.api.activity())
        facts = lifecycle_facts(
            tasks,
            self.sent_messages,
            self.interrupted_run_ids,
            self.lead.id,
            self.cell.case.max_run_records,
            done_statuses=self.cell.environment.done_statuses,
            observes=self.cell.observes,
        )
        self.evidence.snapshot("facts", observed_facts(facts, self.cell.derives))
        self.record_checks(judge(grade_lifecycle, facts).reading(records), [records])
        if self.sandboxes is not None:
            self.record_checks(self.sandboxes.conclude(self.sandboxes_api, bool(self.evidence.downloads)), [records])
        runs = [run for task in tasks for run in task.runs]
        if self.cell.profile.model_server != "none" or self.model_server is not None:  # its agents call a model
            answered = self.model_server.model_calls() if self.model_server is not None else None
            metered = sum(run.spend.calls for run in runs) if self.driver.meters_model_calls else None
            judgement = judge(calls_metered, answered, metered, declared=self.driver.meters_model_calls)
            self.record_checks(judgement.reading(records, "replay server calls"), [records])
        return runs

    def conclude(self) -> Conclusion:
        """Final screenshot, persisted records, lifecycle checks, then the oracle results; returns timing and accounting facts.

        Everything before the oracle results is done while the last grade
        still runs in the background, and so is closing the browser and the
        product (nothing after the final evidence needs them); the grades are
        kept even when something before them fails. Final evidence that
        failed leaves the closing to the journey's end, so no error of the
        closing hides it.
        """
        try:
            runs = self._final_evidence()
            self.close()
        finally:
            with self.evidence.timed("oracle wait"):
                self._record_grades()
        return conclusion(runs, self.model_server, self.oracle_image, self.agent_clis)

    def close(self) -> None:
        """Close what the story started beside the product, then the browser context and the product; once."""
        if self._closed:
            return
        self._closed = True
        try:
            self.resources.close()
        finally:
            close_world(self.evidence, self.driver, self.instance, self.browser_context)


def _where(run: Run) -> str:
    """Where a run's runner runs, for a note: its pid, or its sandbox (never the raw sandbox id)."""
    lease = run.identity.lease
    return f"pid {run.identity.pid}" if lease is None else f"{lease.sandbox} lease {lease.digest[:12]}"
