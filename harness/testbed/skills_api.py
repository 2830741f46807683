"""The skill library's doors: public JSON reads and Studio saves, the agent's create route, and Skill Studio's page.

Kept apart from :mod:`api`, :mod:`agent_api` and :mod:`web` so the library
reads as one feature; each route goes through :mod:`skills` like the rest of
the product goes through :mod:`records`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from . import records, skills
from .agent_api import ActiveRunRow, RunRow
from .api import PathId, controller_of
from .failpoints import failpoint
from .models import Ack, AgentEvent
from .origin import same_origin_if_browser, same_origin_required
from .skills import Skill, SkillCreate, SkillSummary, SkillVersionCreate, TaskSkill
from .web import templates

public = APIRouter(prefix="/api", tags=["skills"], dependencies=[Depends(same_origin_if_browser)])
agent = APIRouter(prefix="/api/agent/runs/{run_id}", tags=["agent"])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(same_origin_required)])
ROUTERS = (public, agent, pages)


@public.get("/skills")
def list_skills(request: Request) -> list[SkillSummary]:
    """The company's skill library, oldest first."""
    return skills.library(controller_of(request).db)


@public.get("/skills/{skill_id}")
def get_skill(skill_id: PathId, request: Request) -> Skill:
    """One skill with its newest body and every version."""
    return skills.skill(controller_of(request).db, skill_id)


@public.post("/skills/{skill_id}/versions", status_code=201)
def save_skill(skill_id: PathId, payload: SkillVersionCreate, request: Request) -> Skill:
    """Save an edited body as the skill's next version (what Skill Studio's Save does)."""
    return skills.save_version(controller_of(request).db, skill_id, payload)


@public.get("/tasks/{task_id}/skills")
def task_skills(task_id: PathId, request: Request) -> list[TaskSkill]:
    """The skills a task created or used (its sidebar)."""
    db = controller_of(request).db
    records.row_or_404(db, "SELECT id FROM tasks WHERE id = ?", "task", task_id)
    return skills.task_skills(db, task_id)


@agent.post("/skills", status_code=201)
def create_skill(payload: SkillCreate, run: RunRow, request: Request) -> Ack:
    """An agent adds a skill to the library; its task gets a card and a sidebar entry."""
    return skills.create_skill(controller_of(request).db, run, payload)


@agent.get("/skills")
def agent_library(run: ActiveRunRow, request: Request) -> list[SkillSummary]:
    """The company's skills, for an agent looking for one to follow."""
    return skills.library(controller_of(request).db)


@agent.post("/skills/{skill_id}/use")
def use_skill(skill_id: PathId, payload: AgentEvent, run: RunRow, request: Request) -> Skill:
    """An agent reads a skill to follow it; its task's sidebar lists it as used."""
    return skills.use_skill(controller_of(request).db, run, payload.event_id, skill_id)


def render_studio(request: Request, skill_id: int, error: str | None = None, saved: bool = False) -> HTMLResponse:
    db = controller_of(request).db
    skill = skills.skill(db, skill_id)
    revalidating = "max-age=0" in request.headers.get("cache-control", "")
    versions = [v.body for v in skill.versions]
    body = failpoint("studio.body", versions[-1], versions=versions, revalidating=revalidating) if versions else ""
    context = {"skill": skill, "body": body, "error": error, "saved": saved}
    return templates.TemplateResponse(request, "studio.html", context, status_code=422 if error else 200)


@pages.get("/skills/{skill_id}", response_class=HTMLResponse)
def studio(skill_id: PathId, request: Request, saved: bool = False) -> HTMLResponse:
    """Skill Studio: the skill's id, slug and newest body, editable."""
    return render_studio(request, skill_id, saved=saved)


@pages.post("/skills/{skill_id}", response_model=None)
def studio_save(
    skill_id: PathId, request: Request, body: Annotated[str, Form()] = ""
) -> HTMLResponse | RedirectResponse:
    """Studio's Save: a new version, then back to the skill (Post/Redirect/Get)."""
    try:
        payload = SkillVersionCreate.model_validate({"body": body})
    except ValidationError as error:
        return render_studio(request, skill_id, error="; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors()))
    skills.save_version(controller_of(request).db, skill_id, payload)
    return RedirectResponse(f"/skills/{skill_id}?saved=true", status_code=303)
