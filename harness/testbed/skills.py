"""The company skill library: what an agent writes down once so every later task can reuse it.

A skill keeps its id and slug for life (links, cards and sidebars point at
them); its name is only a heading and may repeat. Each save is a new
version, so the library never loses an edit and a reader always sees the
newest body. An agent creates a skill through :func:`create_skill` (one
event, applied once); the task it worked on gets a card in its thread that
links to exactly that skill, and the skill is listed in the task's sidebar.
People edit a skill in Skill Studio, which saves through :func:`save_version`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any, Literal

from fastapi import HTTPException
from pydantic import BaseModel, Field, field_validator

from . import records
from .agent_ops import once
from .db import Database, now, record_activity
from .failpoints import failpoint
from .models import Ack, AgentEvent, Comment, Strict

SkillRelation = Literal["created", "used"]


# ---- boundary models ----------------------------------------------------------------


class SkillCreate(AgentEvent):
    """An agent's request to add a skill to the library (the body is markdown)."""

    name: str = Field(min_length=1, max_length=120)
    body: str = Field(min_length=1, max_length=50_000)


class SkillVersionCreate(Strict):
    """A person's edit in Skill Studio: the whole new body."""

    body: str = Field(min_length=1, max_length=50_000)

    @field_validator("body")
    @classmethod
    def _unix_newlines(cls, body: str) -> str:
        """A browser submits a textarea with CRLF line breaks; the library keeps markdown with LF."""
        return body.replace("\r\n", "\n")


class SkillVersion(BaseModel):
    version: int
    body: str
    author_kind: Literal["user", "agent"]
    created_at: str


class SkillSummary(BaseModel):
    id: int
    slug: str
    name: str
    version: int
    created_by_task_id: int | None
    created_at: str
    url: str


class Skill(SkillSummary):
    body: str
    versions: list[SkillVersion]


class SkillCard(BaseModel):
    """A card in a task's thread: "skill created", linking to the skill it names."""

    id: int
    task_id: int
    skill_id: int
    name: str
    slug: str
    run_id: int | None
    created_at: str


class TaskSkill(BaseModel):
    skill: SkillSummary
    relation: SkillRelation
    link_id: int | None = None  # the skill the sidebar's link opens: None, the skill itself


# ---- reads ---------------------------------------------------------------------------


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug[:60].strip("-") or "skill"


def _summary(db: Database, row: sqlite3.Row) -> SkillSummary:
    latest = db.one("SELECT MAX(version) AS v FROM skill_versions WHERE skill_id = ?", row["id"])
    task = (
        db.one("SELECT task_id FROM runs WHERE id = ?", row["created_by_run_id"]) if row["created_by_run_id"] else None
    )
    return SkillSummary(
        id=row["id"],
        slug=row["slug"],
        name=row["name"],
        version=latest["v"] if latest and latest["v"] else 0,
        created_by_task_id=task["task_id"] if task else None,
        created_at=row["created_at"],
        url=f"/skills/{row['id']}",
    )


def library(db: Database) -> list[SkillSummary]:
    """Every skill in the library (archived ones excluded), oldest first."""
    return [_summary(db, row) for row in db.all("SELECT * FROM skills WHERE archived = 0 ORDER BY id")]


def skill(db: Database, skill_id: int) -> Skill:
    row = records.row_or_404(db, "SELECT * FROM skills WHERE id = ?", "skill", skill_id)
    versions = [
        SkillVersion(version=v["version"], body=v["body"], author_kind=v["author_kind"], created_at=v["created_at"])
        for v in db.all("SELECT * FROM skill_versions WHERE skill_id = ? ORDER BY version", skill_id)
    ]
    summary = _summary(db, row)
    return Skill(**summary.model_dump(), body=versions[-1].body if versions else "", versions=versions)


def cards(db: Database, task_id: int) -> list[SkillCard]:
    rows = db.all(
        "SELECT c.*, s.name, s.slug FROM skill_cards c JOIN skills s ON s.id = c.skill_id WHERE c.task_id = ? ORDER BY c.id",
        task_id,
    )
    return [
        SkillCard(
            id=r["id"],
            task_id=r["task_id"],
            skill_id=r["skill_id"],
            name=r["name"],
            slug=r["slug"],
            run_id=r["run_id"],
            created_at=r["created_at"],
        )
        for r in rows
    ]


def task_skills(db: Database, task_id: int) -> list[TaskSkill]:
    """The skills a task created or used, for its sidebar."""
    rows = db.all("SELECT * FROM task_skills WHERE task_id = ? ORDER BY rowid", task_id)
    found = {r["id"]: r for r in db.all("SELECT * FROM skills")}
    entries = [TaskSkill(skill=_summary(db, found[r["skill_id"]]), relation=r["relation"]) for r in rows]
    return failpoint("task.skills", entries, db=db, insert_skill=_insert_skill)


def page_context(db: Database, task_id: int, comments: Sequence[Comment]) -> dict[str, Any]:
    """What the task page shows of skills: the cards, placed in the thread in time order, and the sidebar.

    ``cards_before`` maps a comment id to the cards created before it (and after the comment before
    it); ``cards_last`` holds the cards newer than every comment.
    """
    shown = cards(db, task_id)
    before: dict[int, list[SkillCard]] = {}
    rest = list(shown)
    for comment in comments:
        before[comment.id] = [card for card in rest if card.created_at < comment.created_at]
        rest = [card for card in rest if card.created_at >= comment.created_at]
    return {
        "skill_cards": shown,
        "cards_before": before,
        "cards_last": rest,
        "task_skills": task_skills(db, task_id),
    }


# ---- writes --------------------------------------------------------------------------


def _insert_skill(conn: sqlite3.Connection, name: str, body: str, run_id: int | None, archived: bool = False) -> int:
    base = slugify(name)
    slug, n = base, 1
    while conn.execute("SELECT 1 FROM skills WHERE slug = ?", (slug,)).fetchone():
        n += 1
        slug = f"{base}-{n}"
    cursor = conn.execute(
        "INSERT INTO skills (slug, name, archived, created_by_run_id, created_at) VALUES (?, ?, ?, ?, ?)",
        (slug, name, int(archived), run_id, now()),
    )
    skill_id = int(cursor.lastrowid or 0)
    conn.execute(
        "INSERT INTO skill_versions (skill_id, version, body, author_kind, created_at) VALUES (?, 1, ?, ?, ?)",
        (skill_id, body, "agent" if run_id else "user", now()),
    )
    return skill_id


def _add_card(conn: sqlite3.Connection, run: sqlite3.Row, skill_id: int) -> None:
    """The thread card of a skill the run added."""
    conn.execute(
        "INSERT INTO skill_cards (task_id, skill_id, run_id, created_at) VALUES (?, ?, ?, ?)",
        (run["task_id"], skill_id, run["id"], now()),
    )


def _store_version(conn: sqlite3.Connection, skill_id: int, version: int, body: str) -> None:
    conn.execute(
        "INSERT INTO skill_versions (skill_id, version, body, author_kind, created_at) VALUES (?, ?, ?, 'user', ?)",
        (skill_id, version, body, now()),
    )
    record_activity(conn, "skill_version", f"Skill {skill_id} saved as version {version}")


def create_skill(db: Database, run: sqlite3.Row, payload: SkillCreate) -> Ack:
    """An agent adds a skill: one library entry, one card on its task, one sidebar row; applied once per event."""

    def insert() -> dict[str, Any]:
        skill_id = failpoint("skill.insert", _insert_skill)(conn, payload.name, payload.body, run["id"])
        conn.execute(
            "INSERT OR IGNORE INTO task_skills (task_id, skill_id, relation) VALUES (?, ?, 'created')",
            (run["task_id"], skill_id),
        )
        card_target = failpoint("skill.card-target", skill_id, conn=conn, name=payload.name, insert_skill=_insert_skill)
        failpoint("skill.card", _add_card)(conn, run, card_target)
        record_activity(conn, "skill_created", f"Skill {skill_id} {payload.name!r}", run["task_id"], run["id"])
        return {"id": skill_id}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "skill", insert))


def use_skill(db: Database, run: sqlite3.Row, event_id: str, skill_id: int) -> Skill:
    """An agent reads a skill to follow it: the skill joins its task's sidebar as "used" (once per event)."""

    def mark() -> dict[str, Any]:
        if conn.execute("SELECT 1 FROM skills WHERE id = ? AND archived = 0", (skill_id,)).fetchone() is None:
            raise HTTPException(status_code=404, detail=f"skill {skill_id} not found")
        conn.execute(
            "INSERT OR IGNORE INTO task_skills (task_id, skill_id, relation) VALUES (?, ?, 'used')",
            (run["task_id"], skill_id),
        )
        return {"id": skill_id}

    with db.transaction() as conn:
        once(conn, run["id"], event_id, "skill_use", mark)
    return skill(db, skill_id)


def save_version(db: Database, skill_id: int, payload: SkillVersionCreate) -> Skill:
    """A person's edit becomes the skill's next version (the id and slug never change)."""
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM skills WHERE id = ?", (skill_id,)).fetchone() is None:
            raise records.not_found("skill", skill_id)
        latest = conn.execute("SELECT MAX(version) FROM skill_versions WHERE skill_id = ?", (skill_id,)).fetchone()[0]
        failpoint("skill.save-version", _store_version)(conn, skill_id, (latest or 0) + 1, payload.body)
    return skill(db, skill_id)


def require_skill(db: Database, skill_id: int) -> None:
    if db.one("SELECT 1 FROM skills WHERE id = ?", skill_id) is None:
        raise HTTPException(status_code=404, detail=f"skill {skill_id} not found")
