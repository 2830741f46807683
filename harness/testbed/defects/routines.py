"""Defects in routines: a webhook delivery that fires twice or starts nothing, a record that forgets its runs."""

from __future__ import annotations

import uuid
from typing import Any

from ..routines import RoutineFire
from .registry import declarer

defect = declarer("routines")


@defect(
    "routine-fires-twice",
    at="routine.delivery-key",
    summary="a webhook delivery sent again with the same Idempotency-Key fires the routine again",
)
def key_ignored(idempotency_key: str, **_: Any) -> str:
    """Each delivery is told apart by a key of the product's own, so a sender's retry looks new."""
    return f"{idempotency_key}-{uuid.uuid4().hex[:8]}"


@defect(
    "routine-task-asleep",
    at="routine.task-wakes",
    summary="a fired routine creates its task for the agent, but no run ever starts on it",
)
def asleep(wakes: bool, **_: Any) -> bool:
    return False


@defect(
    "routine-record-empty",
    at="routine.fires",
    summary="a routine's record lists none of the times it fired",
)
def forgets_fires(fires: list[RoutineFire], **_: Any) -> list[RoutineFire]:
    return []


@defect(
    "routine-page-stale-status",
    at="routine-page.fires",
    summary="the routine's page shows each run's task as it was when the routine fired (To do), never its outcome",
)
def stale_status(fires: list[RoutineFire], **_: Any) -> list[RoutineFire]:
    return [fire.model_copy(update={"task_status": "todo"}) for fire in fires]
