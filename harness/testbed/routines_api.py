"""The routines' doors: the JSON API, the webhook an outside system posts to, and the routines pages.

Kept apart from :mod:`api` and :mod:`web` so routines read as one feature;
every route goes through :mod:`routines`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Header, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from . import records, routines
from .api import PathId, controller_of
from .failpoints import failpoint
from .origin import same_origin_if_browser, same_origin_required
from .routines import FireResult, Routine, RoutineCreate
from .web import templates

public = APIRouter(prefix="/api", tags=["routines"], dependencies=[Depends(same_origin_if_browser)])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(same_origin_required)])
ROUTERS = (public, pages)


@public.get("/routines")
def list_routines(request: Request) -> list[Routine]:
    return routines.routines(controller_of(request).db)


@public.post("/routines", status_code=201)
def create_routine(payload: RoutineCreate, request: Request) -> Routine:
    return routines.create(controller_of(request).db, payload)


@public.get("/routines/{routine_id}")
def get_routine(routine_id: PathId, request: Request) -> Routine:
    """A routine with every time it fired and the task each fire started."""
    return routines.routine(controller_of(request).db, routine_id)


@public.post("/routine-webhooks/{key}")
def fire_webhook(
    key: str,
    request: Request,
    idempotency_key: Annotated[str, Header(min_length=1, max_length=200)],
) -> FireResult:
    """An outside system's delivery: fires the routine once per ``Idempotency-Key``."""
    return routines.fire_webhook(controller_of(request).db, key, idempotency_key)


def render_routines(request: Request, error: str | None = None) -> HTMLResponse:
    db = controller_of(request).db
    context = {"routines": routines.routines(db), "agents": records.agents(db), "error": error}
    return templates.TemplateResponse(request, "routines.html", context, status_code=422 if error else 200)


@pages.get("/routines", response_class=HTMLResponse)
def routines_page(request: Request) -> HTMLResponse:
    """Every routine, and the form for a new one."""
    return render_routines(request)


@pages.post("/routines", response_model=None)
def create_routine_form(
    request: Request,
    title: Annotated[str, Form()] = "",
    body: Annotated[str, Form()] = "",
    assignee_id: Annotated[str, Form()] = "",
) -> HTMLResponse | RedirectResponse:
    try:
        payload = RoutineCreate.model_validate({"title": title, "body": body, "assignee_id": assignee_id or None})
    except ValidationError as error:
        return render_routines(request, "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors()))
    made = routines.create(controller_of(request).db, payload)
    return RedirectResponse(f"/routines/{made.id}", status_code=303)


@pages.get("/routines/{routine_id}", response_class=HTMLResponse)
def routine_page(routine_id: PathId, request: Request) -> HTMLResponse:
    """One routine: its trigger and its record of runs (each fire, its task and that task's status)."""
    shown = routines.routine(controller_of(request).db, routine_id)
    fires = failpoint("routine-page.fires", shown.fires)
    return templates.TemplateResponse(request, "routine.html", {"routine": shown, "fires": fires})
