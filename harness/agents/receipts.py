"""How a read's receipt names the user messages it handed to the agent.

One format, written by every reader (the scripted agent, the CLI runner, the product's
tool server) and read by the soak and the tests, so "message N reached the agent" can be
proven from receipts alone.
"""

from __future__ import annotations

from collections.abc import Iterable


def ids_of(message_ids: Iterable[int]) -> str:
    """``"ids 3,4"`` (``"ids -"`` for none)."""
    return "ids " + (",".join(str(i) for i in message_ids) or "-")


def read_detail(message_ids: list[int]) -> str:
    return f"{len(message_ids)} new message(s), {ids_of(message_ids)}"


def ids_in(detail: str) -> list[int]:
    """The message ids a ``read_task``/``read_inbox`` receipt's detail names (inverse of :func:`ids_of`)."""
    listed = detail.rpartition("ids ")[2]
    return [int(part) for part in listed.split(",") if part.isdigit()] if "ids " in detail else []
