"""Rules over the skill library a story reads: plain ids, slugs and bodies, for any product.

A skill is identified by its id and slug, never by its heading: an agent
writes the heading, and two skills may share one. Each rule takes what the
API stored and what a page object read off the page, and names what differs.
Where the product tells the person of the new skill is its *notice* (the
testbed's card in the task's thread, Paperclip's activity-feed entry naming
the task's run). A body is compared by its words: an editor may store the
same text in its own markdown (list markers, escapes, blank lines).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from harness.core.product_records import SkillEntry
from harness.core.records import CheckRecord

CREATED_ONCE = "skill.created-once"
NOTICE_SHOWN = "skill.notice-shown"
NOTICE_OPENS_CREATED = "skill.notice-opens-created"
SIDEBAR_LISTS_CREATED = "skill.sidebar-lists-created"
SIDEBAR_OPENS_CREATED = "skill.sidebar-opens-created"
EDIT_SAVED = "skill.edit-saved"
EDIT_KEPT_AFTER_RELOAD = "skill.edit-kept-after-reload"


def created_once(before_ids: Collection[str], library: Sequence[SkillEntry]) -> CheckRecord:
    """Exactly one library entry is new since the request was made."""
    new = [s for s in library if str(s.id) not in before_ids]
    listed = ", ".join(f"{s.id} {s.slug!r}" for s in new)
    if len(new) == 1:
        return CheckRecord(id=CREATED_ONCE, passed=True, detail=f"one new skill: {listed}")
    return CheckRecord(id=CREATED_ONCE, passed=False, detail=f"{len(new)} new skills, expected 1: {listed or 'none'}")


def notice_shown(notice_skill_ids: Sequence[str], where: str) -> CheckRecord:
    """The product tells the person, exactly once, that the task's run created a skill."""
    ok = len(notice_skill_ids) == 1
    detail = f"{len(notice_skill_ids)} notice(s) of a skill created for the task in {where}, expected 1"
    return CheckRecord(id=NOTICE_SHOWN, passed=ok, detail=detail)


def is_same_skill(check_id: str, created: SkillEntry, shown_id: str, shown_slug: str, where: str) -> CheckRecord:
    """The skill a page shows is the one created: the same id and slug (the heading is not compared)."""
    ok = shown_id == str(created.id) and shown_slug == created.slug
    detail = f"{where} shows skill {shown_id} {shown_slug!r}; created: {created.id} {created.slug!r}"
    return CheckRecord(id=check_id, passed=ok, detail=detail)


def sidebar_lists(created: SkillEntry, sidebar_ids: Sequence[str]) -> CheckRecord:
    """The task's sidebar lists the created skill, once."""
    count = list(sidebar_ids).count(str(created.id))
    detail = f"the sidebar lists skill {created.id} {count} time(s) among {list(sidebar_ids)}"
    return CheckRecord(id=SIDEBAR_LISTS_CREATED, passed=count == 1, detail=detail)


def words(text: str) -> list[str]:
    """A body's words in order, whatever markdown an editor stored them in."""
    return re.findall(r"\w+", text)


def shows(shown: str, text: str) -> bool:
    """Whether a page's text holds ``text`` (white space as the page laid it out)."""
    return " ".join(text.split()) in " ".join(shown.split())


def edit_saved(
    edited: str, added: str, stored_body: str, stored_version: int, version_before: int, shown: str
) -> CheckRecord:
    """The edited body (the skill's, then the person's section) is the skill's newest stored version, and Studio,
    opened again, shows the person's text ``added``."""
    problems = []
    if words(stored_body) != words(edited):
        problems.append("the API's newest body is not the edited body")
    if stored_version <= version_before:
        problems.append(f"no new version (still {stored_version})")
    if not shows(shown, added):
        problems.append("Studio opened again does not show the edit")
    ok = f"version {stored_version} holds the edit and Studio shows it"
    return CheckRecord(id=EDIT_SAVED, passed=not problems, detail="; ".join(problems) if problems else ok)


def edit_kept(added: str, shown_after_reload: str) -> CheckRecord:
    """After a reload, Studio still shows the person's text."""
    ok = shows(shown_after_reload, added)
    detail = "Studio shows the edit after a reload" if ok else "after a reload Studio does not show the edit"
    return CheckRecord(id=EDIT_KEPT_AFTER_RELOAD, passed=ok, detail=detail)
