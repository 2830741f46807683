"""Defects in the skill library: entries an agent adds, their thread cards, Skill Studio's saves."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..db import Database
from ..skills import TaskSkill
from .registry import declarer

defect = declarer("skills")


@defect("skill-created-twice", at="skill.insert", summary="an agent's one skill request adds two library entries")
def inserted_twice(insert: Callable[..., int], **_: Any) -> Callable[..., int]:
    def twice(*args: Any, **kwargs: Any) -> int:
        made = insert(*args, **kwargs)
        insert(*args, **kwargs)
        return made

    return twice


@defect("skill-card-missing", at="skill.card", summary="a skill is created but its task's thread gets no card")
def no_card(add_card: Callable[..., None], **_: Any) -> Callable[..., None]:
    return lambda *_args, **_kwargs: None


@defect(
    "card-links-same-heading",
    at="skill.card-target",
    summary="the thread card links to another (archived) skill with the same heading",
)
def archived_namesake(
    skill_id: int, *, conn: sqlite3.Connection, name: str, insert_skill: Callable[..., int], **_: Any
) -> int:
    """The card's link is resolved by heading, and an archived skill of the same heading (an old import) wins."""
    return insert_skill(conn, name, f"# {name}\n\n(archived import)\n", None, archived=True)


@defect("skill-edit-not-saved", at="skill.save-version", summary="Skill Studio answers Saved but stores no new version")
def not_stored(store: Callable[..., None], **_: Any) -> Callable[..., None]:
    return lambda *_args, **_kwargs: None


@defect(
    "skill-edit-lost-on-reload",
    at="studio.body",
    summary="a reload of Skill Studio shows the skill's first version instead of its newest",
)
def first_on_reload(body: str, *, versions: list[str], revalidating: bool, **_: Any) -> str:
    """A reload (a revalidating request) is answered from the first version, as a stale cache would."""
    return versions[0] if revalidating else body


@defect(
    "sidebar-lists-skill-twice",
    at="task.skills",
    summary="a task's sidebar lists the skill it created twice (once as created, once as used)",
)
def listed_as_used_too(entries: list[TaskSkill], **_: Any) -> list[TaskSkill]:
    """A read of the skill just created lists it again, as used."""
    return [*entries, *(e.model_copy(update={"relation": "used"}) for e in entries if e.relation == "created")]


@defect(
    "sidebar-links-same-heading",
    at="task.skills",
    summary="the sidebar's link resolves its skill by heading, and an archived import of the same heading wins",
)
def links_archived_namesake(
    entries: list[TaskSkill], *, db: Database, insert_skill: Callable[..., int], **_: Any
) -> list[TaskSkill]:
    def namesake(name: str) -> int:  # the archived import of that heading, stored on first need
        with db.transaction() as conn:
            row = conn.execute("SELECT id FROM skills WHERE name = ? AND archived = 1", (name,)).fetchone()
            if row is not None:
                return int(row["id"])
            return insert_skill(conn, name, f"# {name}\n\n(archived import)\n", None, archived=True)

    return [e.model_copy(update={"link_id": namesake(e.skill.name)}) for e in entries]
