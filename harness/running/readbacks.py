"""The attempt's read-back ledger: every value the person entered, and every step that must leave the settings alone.

The journey notes each place as the person fills it in and each step as it
happens; when the attempt concludes, the ledger reads every place again
(records, and each page opened afresh) and judges all of them by the rules
in :mod:`harness.checks.readback`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.checks.readback import (
    AFTER_RELOAD,
    AT_STEP,
    Entered,
    ReadBack,
    Settings,
    StepChanges,
    changed_settings,
    readback_checks,
    settings_of,
)
from harness.core.product_records import Agent, Task
from harness.judging.observations import Judgement, judge
from harness.products.base import ProductApi

Fields = Mapping[str, str | None]
Shown = Callable[[bool], Fields]
"""What a page shows of a place's fields: the page as it stands (False), or opened afresh (True)."""
Shows = tuple[Collection[str], Collection[str]]
"""The fields the page of each look declares it shows, before it is looked at: (at the step, after a reload)."""
NOTHING_SHOWN: Shows = ((), ())
"""A place set through the API: no page of the person's shows it."""


def shown_both(fields: Collection[str]) -> Shows:
    """The same page, with the same declared fields, at the step and after a reload."""
    return (fields, fields)


@dataclass(frozen=True)
class EnteredPlace:
    """A place where the person entered values, what was read back at the step, and how to read it again."""

    readback: ReadBack
    stored: Callable[[], Fields]
    shown: Shown


@dataclass
class ReadBacks:
    """The places and steps of one attempt; ``settings`` reads every setting the product has now."""

    settings: Callable[[], Settings]
    product: str
    places: list[EnteredPlace] = field(default_factory=list)
    steps: list[StepChanges] = field(default_factory=list)

    def entered(
        self, where: str, typed: Mapping[str, str], stored: Callable[[], Fields], shown: Shown, shows: Shows
    ) -> None:
        """Values the person just typed or chose at ``where``: read back now, and again by :meth:`judged`.

        ``stored`` reads them from the product's API; ``shown`` from its page,
        whose page object declares in ``shows`` which fields each look shows.
        """
        at_step, after_reload = shows
        readback = ReadBack(
            entered=Entered(where=where, typed=dict(typed)),
            shows={AT_STEP: sorted(at_step), AFTER_RELOAD: sorted(after_reload)},
        )
        readback.stored[AT_STEP] = dict(stored())
        readback.shown[AT_STEP] = _shown(readback, shown, reload=False)
        self.places.append(EnteredPlace(readback=readback, stored=stored, shown=shown))

    @contextmanager
    def leaving_settings(self, step: str, about: Collection[str] = ()) -> Iterator[None]:
        """A step of the person's that must change no setting but those it is ``about`` (keys of
        :func:`harness.checks.readback.settings_of`): read every setting before and after."""
        before = self.settings()
        yield
        self.steps.append(StepChanges(step=step, changes=changed_settings(before, self.settings(), about)))

    def ended(self, where: str) -> None:
        """The story itself removed the place (it terminated the agent): no page owes it a look after a reload."""
        for place in self.places:
            if place.readback.entered.where == where and place.readback.shows is not None:
                place.readback.shows[AFTER_RELOAD] = []

    def judged(self) -> tuple[Judgement, dict[str, Any]]:
        """Every place read again and every check over them, with what the evidence keeps (no check: nothing noted)."""
        for place in self.places:
            place.readback.stored[AFTER_RELOAD] = dict(place.stored())
            if (place.readback.shows or {}).get(AFTER_RELOAD):  # no page declares a field there: nothing to look at
                place.readback.shown[AFTER_RELOAD] = _shown(place.readback, place.shown, reload=True)
        readbacks = [place.readback for place in self.places]
        return judge(readback_checks, readbacks, list(self.steps), self.product), {
            "entered": readbacks,
            "steps": self.steps,
        }


def _shown(readback: ReadBack, shown: Shown, reload: bool) -> dict[str, str | None]:
    """What ``shown`` reads; a page that does not come shows, in each field, why."""
    try:
        return dict(shown(reload))
    except (PlaywrightTimeoutError, AssertionError, TimeoutError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return dict.fromkeys(readback.entered.typed, f"(the page did not come: {first})")


def settings_now(api: ProductApi) -> Settings:
    """Every setting the product's API shows: the company's, each agent's, each connection's where it has them."""
    connections = getattr(api, "connections", None)
    return settings_of(api.company(), api.agents(), connections() if connections else [])


def agent_fields(team: list[Agent], name: str) -> dict[str, str | None]:
    """What a hire set, as the product's records hold it for the one agent named ``name`` (None: not one)."""
    named = [agent for agent in team if agent.name == name]
    if len(named) != 1:
        return dict.fromkeys(("name", "role", "reports_to", "adapter", "model"))
    agent, names = named[0], {str(a.id): a.name for a in team}
    manager = names.get(str(agent.reports_to), str(agent.reports_to)) if agent.reports_to is not None else ""
    return {
        "name": agent.name,
        "role": agent.role,
        "reports_to": manager,
        "adapter": agent.adapter,
        "model": agent.model,
    }


def task_fields(task: Task) -> dict[str, str | None]:
    """What the person typed into the new-task form, as the product's records hold it."""
    return {"title": task.title, "body": task.body}
