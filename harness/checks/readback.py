"""Read everything back: what a person typed or chose, against what the product stored and shows; and the
settings a step must leave alone, before and after it.

A product can store a title cut short, list a hire with another role than
the one typed, or flip a setting nobody touched while it saves a decision;
every other check passes, because none compares the product's records with
what the person did. These rules do, over plain text, for any product:

- ``readback.stored``: each value, as the product's API returns it, is the
  value typed or chosen;
- ``readback.shown``: each value, as the product's page shows it (at the
  step, and after a reload), is the value typed or chosen. Which fields a
  page shows is its page object's declaration (``shows``), fixed before it
  is looked at: a field it does not declare is not compared there, one it
  declares yet left out of a look fails (a declared fact gone missing);
  where no page declares any, the check is not observable;
- ``readback.untouched``: every setting (the company's, each agent's, each
  connection's) reads the same after a person's step as before it. What the
  step adds (a new agent, a new connection) is not compared, and neither are
  references to it (a connection the new hire may use now lists the hire),
  nor the settings the step names as its own purpose.

What counts as the same, and why: stored text is compared exactly, except
the line endings and the whitespace around it (a browser submits a text
area's lines with CRLF, and a form trims what it stores); shown text is
compared word for word (a page lays text out: line breaks and runs of spaces
are layout, not content).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from pydantic import BaseModel, Field

from harness.core.product_records import Agent, Company, Connection
from harness.core.records import CheckRecord

STORED = "readback.stored"
SHOWN = "readback.shown"
UNTOUCHED = "readback.untouched"

AT_STEP = "at the step"
AFTER_RELOAD = "after a reload"


class Entered(BaseModel):
    """What a person entered in one place (a task's form, the hire form, a decision card), field by field."""

    where: str  # "task 3", "agent Morgan", "interaction 7": names the place in a failure's detail
    typed: dict[str, str]


Looks = dict[str, dict[str, str | None]]
"""Each look at a place ("at the step", "after a reload") -> field -> the value read (None: nothing there)."""


class ReadBack(BaseModel):
    """One place's values as entered, and as each look read them from the product's records and its page."""

    entered: Entered
    stored: Looks = {}
    shown: Looks = {}
    shows: dict[str, list[str]] | None = Field(
        None,
        description="each look -> the fields its page declares it shows, before it is looked at (None: a package"
        " from before pages declared them, which is no evidence of what was shown)",
    )


def stored_text(value: str | None) -> str | None:
    return None if value is None else value.replace("\r\n", "\n").strip()


QUOTE_MARKER = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)


def shown_text(value: str | None) -> str | None:
    """Text as a page shows it: its whitespace run together, and a quote's ``>`` at a line's start dropped (markup,
    which a product that renders markdown shows as a quote, not as text)."""
    return None if value is None else " ".join(QUOTE_MARKER.sub("", value).split())


def _short(value: str | None) -> str:
    if value is None:
        return "nothing"
    return repr(value if len(value) <= 60 else value[:57] + "...")


def _compare(
    readbacks: Sequence[ReadBack], source: str, same: Callable[[str | None], str | None]
) -> tuple[list[str], int]:
    """What differs from the entered values in each look at ``source`` ("stored" or "shown"), and how many compared."""
    problems, compared = [], 0
    for item in readbacks:
        for look, fields in getattr(item, source).items():
            for field, typed in item.entered.typed.items():
                if field not in fields:
                    continue
                compared += 1
                if same(fields[field]) != same(typed):
                    where = f"{item.entered.where} {field} {look}"
                    problems.append(f"{where}: entered {_short(typed)}, {source} {_short(fields[field])}")
    return problems, compared


def stored_check(readbacks: Sequence[ReadBack]) -> CheckRecord:
    """Each value the person entered is what the product's API returns, at the step and at the end, exactly
    (see the module's docstring). A place whose records the API does not return fails: it was not stored."""
    problems, compared = _compare(readbacks, "stored", stored_text)
    problems += [f"{item.entered.where}: no record read back" for item in readbacks if not item.stored]
    detail = "; ".join(problems) if problems else f"{compared} read(s) of entered values, each as entered"
    return CheckRecord(id=STORED, passed=not problems, detail=detail)


def shown_check(readbacks: Sequence[ReadBack], product: str) -> CheckRecord:
    """Each value the person entered is what the page shows, at the step and after a reload, word for word.

    A field the page does not declare it shows is not compared; one it
    declares and left out of a look fails. With no page declaring any field,
    the check is not observable on ``product`` (decided by the declarations,
    not by what a look happened to return).
    """
    undeclared = [item.entered.where for item in readbacks if item.shows is None]
    if undeclared:
        detail = f"no evidence of which fields the pages show for {', '.join(undeclared)} (no declaration kept)"
        return CheckRecord(id=SHOWN, passed=False, detail=detail)
    problems, compared = [], 0
    for item in readbacks:
        for look, declared in (item.shows or {}).items():
            fields = item.shown.get(look, {})
            for field in (f for f in item.entered.typed if f in declared):
                compared += 1
                typed, seen = item.entered.typed[field], fields.get(field)
                if field not in fields:
                    problems.append(
                        f"{item.entered.where} {field} {look}: the page declares it shows it, the look read none"
                    )
                elif shown_text(seen) != shown_text(typed):
                    problems.append(
                        f"{item.entered.where} {field} {look}: entered {_short(typed)}, shown {_short(seen)}"
                    )
    if not compared:
        entered = sum(len(item.entered.typed) for item in readbacks)
        return CheckRecord.not_observable(SHOWN, f"{product}'s pages show none of the {entered} value(s) entered")
    detail = "; ".join(problems) if problems else f"{compared} look(s) at entered values, each as entered"
    return CheckRecord(id=SHOWN, passed=not problems, detail=detail)


Settings = dict[str, str]
"""Every setting, flattened: ``"agent 3 model" -> "default"``; ids of agents a setting refers to kept as text."""


def settings_of(company: Company, agents: Iterable[Agent], connections: Iterable[Connection]) -> Settings:
    """What a person or an administrator configures, without what changes by use (spend, statuses)."""
    found: Settings = {
        "company name": company.name,
        "company budget_cents": str(company.budget_cents),
        "company chat_connectors": str(company.chat_connectors),
    }
    for agent in agents:
        for field in ("name", "role", "reports_to", "adapter", "model", "budget_cents"):
            found[f"agent {agent.id} {field}"] = str(getattr(agent, field))
    for connection in connections:
        for field in ("service_id", "name", "policy"):
            found[f"connection {connection.id} {field}"] = str(getattr(connection, field))
        found[f"connection {connection.id} agent_ids"] = ",".join(sorted(str(a) for a in connection.agent_ids))
    return found


def _agent_ids(settings: Mapping[str, str]) -> set[str]:
    return {key.split(" ")[1] for key in settings if key.startswith("agent ")}


def changed_settings(before: Mapping[str, str], after: Mapping[str, str], about: Collection[str] = ()) -> list[str]:
    """Each setting that reads otherwise after the step than before it (a removed one included).

    A setting new since before belongs to a record the step added, and is
    not compared; an agent list loses the agents added since before. The
    settings the step is ``about`` (a provider chosen for an agent grants it
    that provider's connection) are not compared either.
    """
    new_agents = _agent_ids(after) - _agent_ids(before)
    changes = []
    for key, was in before.items():
        if key in about:
            continue
        now = after.get(key)
        if now is not None and key.endswith(" agent_ids"):
            now = ",".join(a for a in now.split(",") if a and a not in new_agents)
        if now != was:
            changes.append(f"{key} {was!r} -> {'(gone)' if now is None else repr(now)}")
    return changes


class StepChanges(BaseModel):
    """The settings one step of the person's changed (empty: none)."""

    step: str
    changes: list[str]


def untouched_check(steps: Sequence[StepChanges]) -> CheckRecord:
    """No step of the person's changed a setting it was not about (see ``changed_settings``)."""
    changed = [f"{step.step}: {', '.join(step.changes)}" for step in steps if step.changes]
    detail = "; ".join(changed) if changed else f"{len(steps)} step(s), each left every other setting as it was"
    return CheckRecord(id=UNTOUCHED, passed=not changed, detail=detail)


def readback_checks(readbacks: list[ReadBack], steps: list[StepChanges], product: str) -> list[CheckRecord]:
    """Every read-back check of an attempt: stored and shown where something was entered, untouched settings where
    steps were watched; none when nothing was."""
    checks = [stored_check(readbacks), shown_check(readbacks, product)] if readbacks else []
    if steps:
        checks.append(untouched_check(steps))
    return checks
