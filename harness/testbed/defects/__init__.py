"""Product defects on purpose: realistic bugs a product team could ship, off unless calibration switches them on.

The harness is trusted only if it fails a broken product, each time under the
check that names the breakage; so calibration runs the stories against the
testbed with one of these defects switched on (``python -m harness.testbed serve
--defect NAME``, repeatable, or ``TESTBED_DEFECTS=a,b`` in the controller's
environment). Normal runs never switch any on.

Each area module here declares its defects beside their code, each acting at
one named failpoint of the product (:mod:`harness.testbed.failpoints`); switching a
defect on arms its action there. The product imports none of this package, so
its code reads the same with or without it. Runners never see the switch:
they get a minimal environment.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable

from .. import failpoints
from . import (  # noqa: F401  (each area module registers its defects on import)
    api,
    bookkeeping,
    budgets,
    credentials,
    decisions,
    delegation,
    downloads,
    drain,
    forms,
    messages,
    providers,
    restart,
    routines,
    runs,
    sandbox,
    skills,
    stop,
    task_status,
    team,
    ui,
)
from .registry import REGISTRY, Area, Defect

__all__ = ["ENV", "REGISTRY", "Area", "Defect", "UnknownDefect", "configure"]

ENV = "TESTBED_DEFECTS"

log = logging.getLogger("testbed.defects")


class UnknownDefect(ValueError):
    """A defect name that is not in the registry: refused at start, never ignored."""


def configure(names: Iterable[str]) -> list[str]:
    """Switch on exactly ``names`` (plus any named in ``TESTBED_DEFECTS``) for this controller process; their names.

    Every failpoint is disarmed first, then each defect's action is armed at its point, in registry order.
    """
    from_env = [name.strip() for name in os.environ.get(ENV, "").split(",") if name.strip()]
    wanted = {*names, *from_env}
    unknown = sorted(wanted - REGISTRY.keys())
    if unknown:
        raise UnknownDefect(f"unknown defect(s) {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
    failpoints.disarm_all()
    for defect in REGISTRY.values():
        if defect.name in wanted:
            failpoints.arm(defect.point, defect.action)
    if wanted:
        log.warning("PRODUCT DEFECTS ON (calibration only): %s", ", ".join(sorted(wanted)))
    return sorted(wanted)
