"""Defects in the decisions a person makes on an agent's requests: Ask-first actions, cards, connection requests."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..db import Database, now
from ..models import Interaction
from .registry import declarer
from .sql import connect

defect = declarer("decisions")


@defect(
    "ask-first-not-enforced",
    at="action.asks-first",
    summary="an action on an Ask-first connection runs at once: nobody is asked",
)
def nobody_asked(protected: bool, **_: Any) -> bool:
    return False


@defect(
    "forwards-before-approval",
    at="action.asked",
    summary="an Ask-first action is forwarded to the service as soon as the agent asks, before its card is shown",
)
def forwards_at_once(_: None, *, forward: Callable[[], tuple[bool, str]], **__: Any) -> tuple[bool, str]:
    """The call reaches the service before the card exists, so no click can come first; its result is kept on the
    request, so Approve does not forward it again."""
    return forward()


@defect(
    "forwards-twice",
    at="decision.forward",
    summary="Approve forwards the action twice (a retry after a call that had succeeded)",
)
def retried(forward: Callable[..., None], **_: Any) -> Callable[..., None]:
    def twice(*args: Any, **kwargs: Any) -> None:
        forward(*args, **kwargs)
        forward(*args, **kwargs)

    return twice


@defect(
    "forwards-after-decline",
    at="decision.answered",
    summary="Decline is saved and told to the agent, but the action is forwarded to the service anyway",
)
def forwards_declined(_: None, *, saved: bool, status: str, kind: str, forward: Callable[..., None], **__: Any) -> None:
    if saved and status == "declined" and kind == "service_action":
        forward(keep_outcome=True)


@defect(
    "forwards-without-credential",
    at="action.credential",
    summary="Approve forwards the action without the connection's credential; the service refuses it",
)
def no_credential(credential: str, **_: Any) -> str | None:
    return None


@defect(
    "decision-not-saved",
    at="decision.saved",
    summary="Approve or Decline on a card is answered but never saved: the request stays pending",
)
def not_saved(saved: bool, *, conn: sqlite3.Connection, interaction: sqlite3.Row, **_: Any) -> bool:
    conn.execute(
        "UPDATE interactions SET status = 'pending', decided_by = NULL, decided_via = NULL, decided_at = NULL, "
        "outcome = ?, choice = NULL WHERE id = ?",
        (interaction["outcome"], interaction["id"]),
    )
    return False


@defect(
    "decision-resaved-on-second-click",
    at="decision.repeated",
    summary="a second click (or a resent request) on a decided card saves the same decision again, under a new time",
)
def resaved(_: None, *, conn: sqlite3.Connection, interaction_id: int, via: str, **__: Any) -> None:
    conn.execute("UPDATE interactions SET decided_via = ?, decided_at = ? WHERE id = ?", (via, now(), interaction_id))


@defect(
    "declined-still-approvable",
    at="decision.overturn",
    summary="a declined Ask-first action can still be approved later: the product reopens it and forwards the call",
)
def reopens_declined(row: sqlite3.Row, *, conn: sqlite3.Connection, status: str, **_: Any) -> sqlite3.Row:
    if row["kind"] != "service_action" or row["status"] != "declined" or status != "approved":
        return row
    conn.execute("UPDATE interactions SET status = 'pending', outcome = 'waiting' WHERE id = ?", (row["id"],))
    return conn.execute("SELECT * FROM interactions WHERE id = ?", (row["id"],)).fetchone()  # type: ignore[no-any-return]


@defect(
    "intent-shown-again",
    at="intent.earlier",
    summary="a connection request the person answered Not now opens a new card when the agent asks again",
)
def forgets_not_now(earlier: sqlite3.Row | None, **_: Any) -> sqlite3.Row | None:
    return None if earlier is not None and earlier["status"] == "declined" else earlier


@defect(
    "decision-allows-connection",
    at="decision.saved",
    summary="a decision on an Ask-first action also switches its connection to Allow (nobody is asked again)",
)
def allows_connection(saved: bool, *, conn: sqlite3.Connection, interaction: sqlite3.Row, **_: Any) -> bool:
    if saved and interaction["connection_id"] is not None:
        conn.execute("UPDATE connections SET policy = 'allow' WHERE id = ?", (interaction["connection_id"],))
    return saved


@defect(
    "not-now-connects",
    at="decision.saved",
    summary="Not now on a connection request is saved, and a connection to the provider is added anyway",
)
def connects_anyway(
    saved: bool,
    *,
    conn: sqlite3.Connection,
    interaction: sqlite3.Row,
    status: str,
    seal: Callable[[str], bytes],
    **_: Any,
) -> bool:
    if status == "declined" and interaction["kind"] == "connection_intent":
        made = connect(conn, interaction["provider"], seal(""))
        conn.execute(
            "INSERT INTO connection_agents (connection_id, agent_id) VALUES (?, ?)", (made, interaction["agent_id"])
        )
    return saved


SAMPLE_SERVICE = "Sample Drive"


@defect(
    "connection-seeded-at-start",
    at="controller.opened",
    summary="a new company starts with a sample connection the product adds by itself",
)
def sample_connection(_: None, *, db: Database, seal: Callable[[str], bytes], **__: Any) -> None:
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM services LIMIT 1").fetchone() is None:  # a new company
            connect(conn, SAMPLE_SERVICE, seal("sample"))


@defect(
    "card-hidden",
    at="task-page.interactions",
    summary="a pending decision is stored but the task page never shows its card",
)
def no_cards(found: list[Interaction], **_: Any) -> list[Interaction]:
    return []


@defect(
    "card-names-another-agent",
    at="task-page.interactions",
    summary="a decision card names another agent than the one that asked",
)
def another_agent(found: list[Interaction], **_: Any) -> list[Interaction]:
    return [i.model_copy(update={"agent_name": "Someone else"}) for i in found]


@defect(
    "card-shown-twice",
    at="task-page.interactions",
    summary="the task page shows each pending decision card twice (stored once)",
)
def pending_twice(found: list[Interaction], **_: Any) -> list[Interaction]:
    return [copy for i in found for copy in ([i, i] if i.status == "pending" else [i])]


@defect(
    "email-card-two-password-fields",
    at="task-page.email-card",
    summary="the email setup card asks for the API key in two password fields",
)
def two_password_fields(card: dict[str, object], **_: Any) -> dict[str, object]:
    return {**card, "password_fields": 2}


@defect(
    "email-card-no-key-link",
    at="task-page.email-card",
    summary="the email setup card has no link to where the API key is made",
)
def no_key_link(card: dict[str, object], **_: Any) -> dict[str, object]:
    return {**card, "key_page": None}


@defect(
    "email-card-shows-access-selector",
    at="task-page.email-card",
    summary="the email setup card asks which access the agent gets, in a selector next to the key field",
)
def access_selector(card: dict[str, object], **_: Any) -> dict[str, object]:
    return {**card, "access_options": ["Read only", "Read and send"]}


# Tasks whose email card was drawn, and those a later whole-page load redrew as a reminder: a render cache in
# the controller's memory (gone with the process, as such a cache would be).
_email_cards_drawn: set[int] = set()
_email_cards_redrawn: set[int] = set()


@defect(
    "email-card-changes-on-reload",
    at="task-page.email-card",
    summary="after a reload of the task page, the email setup card is redrawn as a shorter reminder",
)
def reminder_on_reload(
    card: dict[str, object], *, task_id: int, pending: bool, whole_page: bool, **_: Any
) -> dict[str, object]:
    if not pending:
        return card
    if whole_page and task_id in _email_cards_drawn:
        _email_cards_redrawn.add(task_id)
    _email_cards_drawn.add(task_id)
    if task_id in _email_cards_redrawn:
        return {**card, "reminder": "is still waiting for an AgentMail API key"}
    return card


@defect(
    "email-card-key-link-elsewhere",
    at="task-page.email-card",
    summary="the email setup card links to a look-alike https host, not AgentMail's page for API keys",
)
def look_alike_key_link(card: dict[str, object], **_: Any) -> dict[str, object]:
    return {**card, "key_page": "https://console.agentmail.to.keys-portal.example/"}


@defect(
    "decision-filed-under-agent",
    at="decision.decided-by",
    summary="a person's decision is stored as made by the agent that asked",
)
def filed_under_agent(person: str, **_: Any) -> str:
    return "agent"


@defect(
    "decision-wakes-nothing",
    at="decision.wakes-task",
    summary="a decision is saved, but its task is never woken: no run reads the answer, the task waits for ever",
)
def wakes_nothing(wakes: bool, **_: Any) -> bool:
    return False
