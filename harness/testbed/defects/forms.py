"""Defects in what a person's forms store and show: the value typed is not the value kept, or not the one listed."""

from __future__ import annotations

from typing import Any

from ..models import Agent
from .registry import declarer

defect = declarer("forms")

TITLE_COLUMN = 24
"""The width of the column a title is cut to, as a schema that was too narrow for it would."""


@defect(
    "task-title-cut-short",
    at="task.title",
    summary="a new task's title is stored cut to its first 24 characters (the form took the whole title)",
)
def cut_short(title: str, **_: Any) -> str:
    return title[:TITLE_COLUMN]


@defect(
    "team-list-shows-default-role",
    at="team-list.agents",
    summary="the team list shows every agent with the hire form's default role, engineer (the API has the role typed)",
)
def default_role(agents: list[Agent], **_: Any) -> list[Agent]:
    return [agent.model_copy(update={"role": "engineer"}) for agent in agents]
