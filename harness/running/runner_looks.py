"""Where the harness looks at a run's runner itself: the instance's own way where it has one, else the process table.

A product names a run's runner (a pid, a lease); the harness looks at what
runs there and keeps the look (:class:`harness.core.runner_look.RunnerLook`)
for the rules to judge. A testbed instance looks on the engine for a
sandboxed runner; every other product's runners are local processes.
"""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

from harness.core.product_records import RunIdentity
from harness.core.runner_look import GroupLook, RunnerLook
from harness.core.waiting import WaitTimeout, wait_for
from harness.products.base import ProductInstance
from harness.products.processes import group_members_left, look_at_runner_process

LOOK_INTERVAL_S = 0.2


@runtime_checkable
class LooksAtRunners(Protocol):
    """A product instance that looks at its runners wherever they run (a sandbox on an engine, a process)."""

    def look_at_runner(self, identity: RunIdentity) -> RunnerLook: ...

    def members_left(self, identity: RunIdentity, before: RunnerLook) -> list[int]: ...


def look_at_runner(instance: ProductInstance, identity: RunIdentity) -> RunnerLook:
    """The harness's look at the runner ``identity`` names, now."""
    if isinstance(instance, LooksAtRunners):
        return instance.look_at_runner(identity)
    return look_at_runner_process(identity)


def members_left(instance: ProductInstance, identity: RunIdentity, before: RunnerLook) -> list[int]:
    """What still runs, now, of the runner the harness saw in ``before``."""
    if isinstance(instance, LooksAtRunners):
        return instance.members_left(identity, before)
    return group_members_left(before)


def watch_group(
    instance: ProductInstance, identity: RunIdentity, before: RunnerLook, window_s: float
) -> list[GroupLook]:
    """Look at the stopped runner's group at once and, while anything of it runs, again until ``window_s`` passed.

    The first look is the moment the product said the run stopped; the later
    ones (only when something was left) say whether it went within the
    product's declared tick or kept running, for the detail of the failure.
    """
    began = time.monotonic()
    looks: list[GroupLook] = []

    def gone() -> bool:
        at = round(time.monotonic() - began, 3)
        looks.append(GroupLook(source=before.source, at_s=at, members=members_left(instance, identity, before)))
        return not looks[-1].members

    try:
        wait_for(gone, timeout=window_s, interval=LOOK_INTERVAL_S, what="the stopped runner's group to go")
    except WaitTimeout:
        pass  # still running past the product's tick: the looks say so
    return looks
