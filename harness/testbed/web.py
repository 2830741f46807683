"""Server-rendered web UI. The live part of a task page is one template
fragment that the controller pushes to the open page whenever it changes
(:mod:`.live`), so the first render, every live update and a reload all show
the same persisted state from the same code."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, StreamingResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from harness.agents.adapters import adapter_names

from . import email_setup, interactions, live, providers, records, services, skills, team
from .api import PathId, controller_of, create_agent, create_task, post_comment, stop_run
from .failpoints import failpoint
from .models import AgentCreate, CommentCreate, TaskCreate
from .origin import same_origin_required

router = APIRouter(include_in_schema=False, dependencies=[Depends(same_origin_required)])
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")

STATUS_LABELS = {
    "todo": "To do",
    "in_progress": "In progress",
    "in_review": "In review",
    "blocked": "Blocked",
    "done": "Done",
    "cancelled": "Cancelled",
}
templates.env.globals["status_label"] = lambda status: STATUS_LABELS.get(status, status)


def compile_templates() -> None:
    """Compile every page template now: a process that forks controllers does it once for all of them."""
    for name in templates.env.list_templates():
        templates.env.get_template(name)


def render_index(
    request: Request, error: str | None = None, status_code: int = 200, agent_error: str | None = None
) -> HTMLResponse:
    controller = controller_of(request)
    db = controller.db
    connections = services.connections(db)
    context = {
        "services": services.services(db),
        "connections": connections,
        "debug_credentials": failpoint(
            "services-page.credentials",
            {},
            connections=connections,
            open_credential=lambda ident: services.open_credential(db, controller.credentials, ident),
        ),
        "tasks": records.tasks(db),
        "agents": failpoint("team-list.agents", agents := records.agents(db)),
        "managers": failpoint("hire-form.managers", agents),
        "approvals": failpoint("approvals-page.items", team.approvals(db)),
        "adapters": adapter_names(),
        "company": records.company(db),
        "error": error,
        "agent_error": agent_error,
    }
    return templates.TemplateResponse(request, "index.html", context, status_code=status_code)


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> HTMLResponse:
    return render_index(request)


def form_failure(request: Request, error: Exception, field: str) -> HTMLResponse:
    """Re-render the index with the API's own message for a rejected form."""
    if isinstance(error, ValidationError):
        message, code = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors()), 422
    else:
        assert isinstance(error, HTTPException)
        message, code = str(error.detail), error.status_code
    return render_index(request, status_code=code, **{field: message})


@router.post("/agents", response_model=None)
def create_agent_form(
    request: Request,
    name: Annotated[str, Form()] = "",
    role: Annotated[str, Form()] = "engineer",
    adapter: Annotated[str, Form()] = "scripted",
    model: Annotated[str, Form()] = "default",
    reports_to: Annotated[str, Form()] = "",
    connection_ids: Annotated[list[str] | None, Form()] = None,
) -> HTMLResponse | RedirectResponse:
    """The hire form: who the agent is, whom it reports to, the runner it works on and the connections it may use."""
    try:  # pydantic converts (or rejects, naming the field) the ids the form sends as text
        fields = {
            "name": name,
            "role": role,
            "adapter": adapter,
            "model": model,
            "reports_to": reports_to or None,
            "connection_ids": connection_ids or [],
        }
        payload = AgentCreate.model_validate(failpoint("hire-form.fields", fields, runners=adapter_names()))
        if records.company(controller_of(request).db).hire_approval:
            team.request_hire(controller_of(request), payload)  # it waits in Approvals
        else:
            failpoint("hire-form.create", create_agent)(payload, request)
    except (ValidationError, HTTPException) as error:
        return form_failure(request, error, "agent_error")
    return RedirectResponse("/", status_code=303)


@router.post("/tasks", response_model=None)
def create_task_form(
    request: Request,
    title: Annotated[str, Form()] = "",
    body: Annotated[str, Form()] = "",
    assignee_id: Annotated[str, Form()] = "",
) -> HTMLResponse | RedirectResponse:
    try:
        payload = TaskCreate.model_validate({"title": title, "body": body, "assignee_id": assignee_id or None})
        task = create_task(payload, request)
    except (ValidationError, HTTPException) as error:
        return form_failure(request, error, "error")
    return RedirectResponse(failpoint("task-form.redirect", f"/tasks/{task.id}"), status_code=303)


def thread_context(request: Request, task_id: int, whole_page: bool = False) -> dict[str, object]:
    """What the task's live part shows (``whole_page``: drawn in a page load, not a refresh of that part)."""
    db = controller_of(request).db
    task = failpoint("task-page.task", records.task(db, task_id))
    shown = failpoint("task-page.interactions", interactions.interactions(db, task_id))
    email_pending = any(i.kind == "email_setup" and i.status == "pending" for i in shown)
    active = next((r for r in task.runs if r.id == task.active_run_id), None)
    stopped = [r for r in task.runs if r.status == "cancelled"]
    context: dict[str, object] = {
        "task": task,
        "active": active,
        "last_stopped": failpoint("task-page.last-stopped", stopped[-1] if stopped else None),
        "child_links": {
            child.id: failpoint("task-page.child-link", f"/tasks/{child.id}", parent_id=task_id)
            for child in task.children
        },
        "interactions": shown,
        "email_card": failpoint(
            "task-page.email-card",
            {"key_page": email_setup.KEY_PAGE, "password_fields": 1},
            task_id=task_id,
            pending=email_pending,
            whole_page=whole_page,
        ),
    }
    context.update(skills.page_context(db, task_id, task.comments))  # skill cards in the thread; skills sidebar
    return context


@router.get("/tasks/{task_id}", response_class=HTMLResponse)
def task_page(task_id: PathId, request: Request) -> HTMLResponse:
    return render_task(request, task_id)


def render_task(
    request: Request, task_id: int, status_code: int = 200, composer_error: str | None = None, composer_text: str = ""
) -> HTMLResponse:
    """The task page; a refused message is shown again in its composer, with the reason beside it."""
    context = thread_context(request, task_id, whole_page=True)
    parent = context["task"].parent_id  # type: ignore[attr-defined]
    context["parent"] = records.task(controller_of(request).db, parent) if parent else None
    context |= {"composer_error": composer_error, "composer_text": composer_text}
    return templates.TemplateResponse(request, "task.html", context, status_code=status_code)


@router.get("/tasks/{task_id}/live", response_class=HTMLResponse)
def task_live(task_id: PathId, request: Request) -> HTMLResponse:
    return templates.TemplateResponse(request, "_live.html", thread_context(request, task_id))


def live_fragment(request: Request, task_id: int) -> str:
    """The live part as ``/tasks/{id}/live`` renders it."""
    return bytes(task_live(task_id, request).body).decode()


@router.get("/tasks/{task_id}/live/events", response_class=StreamingResponse)
async def task_live_events(task_id: PathId, request: Request) -> StreamingResponse:
    """The live part now and after every change (:mod:`.live`); a task that does not exist: 404 before any event."""
    changes = controller_of(request).live
    version = changes.version
    first = await run_in_threadpool(live_fragment, request, task_id)
    events = live.stream(changes, lambda: live_fragment(request, task_id), first, version)
    return StreamingResponse(events, media_type="text/event-stream", headers={"Cache-Control": "no-store"})


EMPTY_MESSAGE = "Write a message before sending: an empty message is not sent."


@router.post("/tasks/{task_id}/comments", response_model=None)
def comment_form(
    task_id: PathId, request: Request, body: Annotated[str, Form()] = ""
) -> HTMLResponse | RedirectResponse:
    """Fallback for the composer without JavaScript; the script posts to the JSON API instead.

    A message the API refuses (empty, too long, on a cancelled task) is never
    dropped in silence: the page comes back with the reason and what was typed.
    """
    try:
        post_comment(task_id, CommentCreate(body=body), request)
    except ValidationError as error:
        reason = EMPTY_MESSAGE if not body.strip() else "; ".join(str(e["msg"]) for e in error.errors())
        return render_task(request, task_id, 422, reason, body)
    except HTTPException as error:
        if error.status_code == 404:
            raise
        return render_task(request, task_id, error.status_code, str(error.detail), body)
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


@router.post("/runs/{run_id}/stop")
def stop_form(run_id: PathId, request: Request) -> RedirectResponse:
    run = records.run(controller_of(request).db, run_id)
    if run.status in ("queued", "running"):
        stop_run(run_id, request)
    return RedirectResponse(f"/tasks/{run.task_id}", status_code=303)


@router.post("/interactions/{interaction_id}/decision")
def decision_form(
    interaction_id: PathId,
    request: Request,
    decision: Annotated[str, Form()] = "",
    choice: Annotated[str, Form()] = "",
) -> RedirectResponse:
    """Fallback for the card's buttons without JavaScript; the script posts to the JSON API instead."""
    found = interactions.interaction(controller_of(request).db, interaction_id)
    if choice and found.kind == "provider_question":
        decision = "decline" if choice == providers.NONE else "approve"
    if decision in ("approve", "decline") and found.status == "pending":
        interactions.decide(controller_of(request), interaction_id, decision, via="web", choice=choice or None)
    return RedirectResponse(f"/tasks/{found.task_id}", status_code=303)
