"""What an attempt did, told from its timeline: a sentence or two, then the journey step by step.

A reviewer opening an attempt wants the story before the evidence: who was
hired, what was asked, what was sent, what came back and how it was graded,
with the screenshot of each moment under its caption, in the order it
happened. Checks that passed are counted, not listed here (the table below
holds them); a check that failed is shown where it failed.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from harness.core.records import AttemptRecord

SCREENSHOT = "screenshot "
CHECK = "check "
DOWNLOAD = "download "


class JourneyStep(BaseModel):
    """One moment of the journey: a step with its detail, a captioned screenshot, or a failed check."""

    at: str
    kind: str  # "step", "screenshot" or "failed-check"
    caption: str
    detail: str = ""
    image: str = ""  # link to the screenshot (relative to the page)
    checks_passed_before: int = 0  # checks that passed since the previous step shown


def journey(record: AttemptRecord, link: Callable[[str], str]) -> list[JourneyStep]:
    """The timeline in order, screenshots as images (``link`` makes a package path a link), passed checks counted."""
    steps: list[JourneyStep] = []
    passed = 0
    for event in record.timeline:
        at = event.at.strftime("%H:%M:%S")
        if event.step.startswith(CHECK):
            if event.detail == "passed":
                passed += 1
                continue
            kind, caption = "failed-check", event.step.removeprefix(CHECK)
            if event.detail.startswith("not observable"):
                kind = "step"
            steps.append(JourneyStep(at=at, kind=kind, caption=caption, detail=event.detail))
        elif event.step.startswith(SCREENSHOT):
            caption = event.step.removeprefix(SCREENSHOT)
            steps.append(JourneyStep(at=at, kind="screenshot", caption=caption, image=link(event.detail)))
        else:
            steps.append(JourneyStep(at=at, kind="step", caption=event.step, detail=event.detail))
        steps[-1].checks_passed_before, passed = passed, 0
    if passed:
        steps.append(JourneyStep(at="", kind="step", caption="", checks_passed_before=passed))
    return steps


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


def sentence(record: AttemptRecord) -> str:
    """A sentence or two of what the story did and how it ended, from its timeline and checks."""
    steps = record.timeline
    hired = [event.detail.split(" (", 1)[0] for event in steps if event.step == "hire"]
    tasks = [event for event in steps if event.step == "create task"]
    messages = sum(1 for event in steps if event.step == "send message")
    downloads = [event.step.removeprefix(DOWNLOAD) for event in steps if event.step.startswith(DOWNLOAD)]
    others = [
        event.step
        for event in steps
        if event.step not in ("hire", "create task", "send message", "finished", "product started")
        and not event.step.startswith((CHECK, SCREENSHOT, DOWNLOAD))
    ]
    did = []
    if hired:
        did.append(f"hired {_listed(hired)}")
    if tasks:
        did.append(f"created {len(tasks)} task(s) ({_listed([event.detail.split(' for ')[0] for event in tasks])})")
    if messages:
        did.append(f"sent {messages} message(s) while the work went on")
    if others:
        did.append(_listed(list(dict.fromkeys(others))))
    if downloads:
        did.append(f"downloaded {len(downloads)} deliver{'y' if len(downloads) == 1 else 'ies'} ({_listed(downloads)})")
    story = f"The story {_listed(did)}." if did else "The story recorded no step."
    failed = [check.id for check in record.checks if check.failed]
    unobservable = sum(1 for check in record.checks if check.unobservable)
    judged = f"{sum(1 for check in record.checks if check.passed)} of {len(record.checks)} checks passed"
    if unobservable:
        judged += f", {unobservable} not observable on this product"
    if failed:
        judged += f"; failed: {_listed(failed)}"
    wall = f" in {record.timing.wall_s:.0f} s" if record.timing.wall_s is not None else ""
    return f"{story} It ended {record.verdict.value}{wall}: {judged}."
