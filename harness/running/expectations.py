"""Every expectation a story can leave unmet, by name, in one place.

A wait or a page step that never reaches its state fails the attempt under
``expect.<name>`` (see :meth:`harness.running.journey.Journey.wait`). The
names are a closed set so the type checker refuses a new one that is not
listed here, and calibration can prove, name by name, that each can fail
(``tests/harness/running/test_expectations.py``).
"""

from __future__ import annotations

from typing import Literal, get_args

Expectation = Literal[
    "task-page-shown",
    "child-task-created",
    "child-task-page-shown",
    "source-saved",
    "task-settled",
    "task-finished",
    "page-shows-status",
    "message-shown",
    "message-stored",
    "delivery-downloadable",
    "run-ended-after-stop",
    "stop-result-shown",
    "decision-requested",
    "decision-card-shown",
    "decision-saved",
    "hire-form-shown",
    "agent-hired",
    "approval-shown",
    "agent-controlled",
    "routine-run-started",
]

EXPECTATIONS: tuple[Expectation, ...] = get_args(Expectation)


def check_id(expectation: Expectation) -> str:
    """The check an unmet expectation fails under."""
    return f"expect.{expectation}"
