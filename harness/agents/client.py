"""The runner's side of the agent API: ordered, retried, deduplicated events.

Writes go into an outbox that one sender thread delivers in order, retrying
with backoff while the controller is down, so the agent keeps working through
a controller restart. Every event carries an id made here; the controller
stores it with the first application, so a retry after a lost response is
answered instead of applied twice. The inbox read reuses its id until it gets
an answer and a failed read is retried, never taken for "no messages": the
controller may have committed "consumed by this run" and died before its
answer arrived, and only the retry with the same id gets those messages.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from .api_wire import Answer, ApiWire, Body, Unreachable, form_body, json_body

log = logging.getLogger("agents.client")

# The runner's wall-clock limit for waiting on an unreachable controller.
RETRY_FOR_SECONDS = 15 * 60
MAX_BACKOFF = 2.0


class RunEnded(Exception):
    """The controller says this run can no longer act (stopped, lost or finished)."""


class AgentApiError(Exception):
    """The controller rejected a request for a reason retrying cannot fix."""


@dataclass(frozen=True)
class Outgoing:
    path: str
    json: dict[str, Any] | None = None
    file: bytes | None = None
    event_id: str = ""


class AgentClient:
    def __init__(
        self, base_url: str, run_id: int, token: str, timeout: float = 5.0, socket_path: str | None = None
    ) -> None:
        """``base_url``: the controller (plain ``http://``); ``socket_path``: reach it through its agent socket
        instead (a sandboxed runner has no network)."""
        self.run_id = run_id
        self._http = ApiWire(
            f"{base_url}/api/agent/runs/{run_id}",
            {"Authorization": f"Bearer {token}"},
            timeout,
            socket_path=socket_path,
        )
        self._outbox: queue.Queue[Outgoing] = queue.Queue()
        self._failure: Exception | None = None
        self._seq = 0
        self._pending_inbox_id: str | None = None
        threading.Thread(target=self._sender, name="outbox", daemon=True).start()

    def new_event_id(self) -> str:
        return f"r{self.run_id}-{uuid.uuid4().hex}"

    # ---- transport ----------------------------------------------------------

    def _request(self, method: str, path: str, body: Body | None = None) -> Answer:
        """Send until the controller answers; connection errors and 5xx are retried with backoff."""
        deadline = time.monotonic() + RETRY_FOR_SECONDS
        backoff = 0.1
        while True:
            try:
                response = self._http.request(method, path, body)
                if response.status_code < 500:
                    return self._checked(response)
                log.warning("%s %s -> %s; retrying", method, path, response.status_code)
            except Unreachable as error:
                log.warning("%s %s failed (%s); controller unreachable, retrying", method, path, error)
            if time.monotonic() > deadline:
                raise AgentApiError(f"controller unreachable for {RETRY_FOR_SECONDS} s")
            time.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    @staticmethod
    def _checked(response: Answer) -> Answer:
        if response.status_code == 409 and "can no longer act" in response.text:
            raise RunEnded(response.json().get("detail", "run ended"))
        if response.status_code >= 400:
            raise AgentApiError(f"{response.method} {response.path} -> {response.status_code}: {response.text}")
        return response

    def _sender(self) -> None:
        while True:
            item = self._outbox.get()
            try:
                if self._failure is None:
                    self._deliver(item)
            except Exception as error:  # surfaced to the agent at its next flush
                self._failure = error
            finally:
                self._outbox.task_done()

    def _deliver(self, item: Outgoing) -> Answer:
        if item.file is not None:
            form = form_body({"event_id": item.event_id}, "file", "delivery.zip", item.file, "application/zip")
            return self._request("POST", item.path, form)
        return self._request("POST", item.path, json_body(item.json))

    def send(self, path: str, payload: dict[str, Any]) -> str:
        """Queue a write; returns its event id."""
        event_id = self.new_event_id()
        self._outbox.put(Outgoing(path=path, json={"event_id": event_id, **payload}))
        return event_id

    def flush(self) -> None:
        """Wait until every queued write is acknowledged; re-raise what stopped the sender."""
        self._outbox.join()
        if self._failure is not None:
            raise self._failure

    def call(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A write whose answer the agent needs: sent after everything queued before it."""
        self.flush()
        return self._request("POST", path, json_body({"event_id": self.new_event_id(), **payload})).json()  # type: ignore[no-any-return]

    # ---- what an agent can do --------------------------------------------------

    def context(self) -> dict[str, Any]:
        return self._request("GET", "/context").json()  # type: ignore[no-any-return]

    def read_task(self, task_id: int) -> dict[str, Any]:
        return self._request("GET", f"/tasks/{task_id}").json()  # type: ignore[no-any-return]

    def inbox(self) -> list[dict[str, Any]]:
        """New user messages, each handed to this run exactly once.

        The read keeps its id until it is answered, and waits for the controller
        like every other request (bounded by ``RETRY_FOR_SECONDS``): an empty
        answer must mean "no new messages", never "the controller was down",
        because the controller may already have recorded them as consumed.
        """
        self.flush()  # the previous read's receipt lands first: the controller re-hands reads it never saw acknowledged
        if self._pending_inbox_id is None:
            self._pending_inbox_id = self.new_event_id()
        response = self._request("POST", "/inbox", json_body({"event_id": self._pending_inbox_id}))
        self._pending_inbox_id = None
        return response.json()["messages"]  # type: ignore[no-any-return]

    def comment(self, body: str) -> None:
        self.send("/comments", {"body": body})

    def receipt(self, tool: str, target: str = "", ok: bool = True, detail: str = "") -> str:
        seq, self._seq = self._seq, self._seq + 1
        return self.send("/receipts", {"seq": seq, "tool": tool, "target": target, "ok": ok, "detail": detail})

    def admit_call(self, report: dict[str, Any]) -> None:
        """A model call about to be forwarded (the proxy's admission), on record when this returns.

        Sent at once, not through the outbox, and waited for like a read: the
        proxy forwards the call only after the controller has recorded it, so
        a runner killed mid-call (Stop) leaves no answered call unmetered.
        Raises :class:`RunEnded` when the run can no longer act: the call is
        refused then. Retries reuse the event id, so the call is recorded once.
        """
        self._request("POST", "/model-calls", json_body(self._call_event(report)))

    def report_call(self, report: dict[str, Any]) -> None:
        """A metered model call (the proxy's CallReport), queued in order with the agent's other writes.

        The completion of an admitted call carries its admission's event id.
        """
        self._outbox.put(Outgoing(path="/model-calls", json=self._call_event(report)))

    def bill_model_call(self, cents: float, model: str) -> None:
        """A simulated model call of the scripted agent, metered as the proxy meters a real one: admitted first
        (refused with :class:`RunEnded` once the run can no longer act, a budget pause included), then completed."""
        report = {
            "call_id": uuid.uuid4().hex,
            "protocol": "scripted",
            "provider": "scripted",
            "model": model,
            "status": 200,
            "usage": {"input_tokens": 1000, "output_tokens": 200},
            "cost_cents": cents,
            "simulated": True,
            "price_table": "scripted",
            "in_flight": True,
        }
        self.admit_call(report)
        self.report_call({**report, "in_flight": False})

    def _call_event(self, report: dict[str, Any]) -> dict[str, Any]:
        """The report as the controller takes it: the proxy's call id becomes the event id both reports share."""
        fields = {name: value for name, value in report.items() if name != "call_id"}
        call_id = report.get("call_id")
        return {"event_id": f"r{self.run_id}-call-{call_id}" if call_id else self.new_event_id(), **fields}

    def set_status(self, status: str) -> None:
        self.send("/status", {"status": status})

    def create_child(self, title: str, body: str, assignee_name: str) -> int:
        return int(self.call("/children", {"title": title, "body": body, "assignee_name": assignee_name})["id"])

    def create_skill(self, name: str, body: str) -> int:
        """Add a skill to the company library; the answer is its id."""
        return int(self.call("/skills", {"name": name, "body": body})["id"])

    def assign(self, assignee_name: str) -> None:
        self.send("/assign", {"assignee_name": assignee_name})

    def deliver(self, data: bytes) -> None:
        self._outbox.put(Outgoing(path="/deliveries", file=data, event_id=self.new_event_id()))

    def connections(self) -> list[dict[str, Any]]:
        """The service connections bound to this agent (never a credential)."""
        return self._request("GET", "/connections").json()  # type: ignore[no-any-return]

    def service_call(self, connection_id: int, action: str, arguments: dict[str, str]) -> dict[str, Any]:
        """Ask the product to run a service action: ``{status: completed|pending|failed, interaction_id, result}``."""
        return self.call("/service-calls", {"connection_id": connection_id, "action": action, "arguments": arguments})

    def connection_request(self, provider: str, reason: str = "") -> dict[str, Any]:
        """Ask the person to connect ``provider`` (or, without a native connector, which aggregator may reach it):
        ``{status: pending|declined|completed, interaction_id}``."""
        return self.call("/connection-requests", {"provider": provider, "reason": reason})

    def providers(self) -> list[dict[str, Any]]:
        """The provider catalog: ``{name, native, aggregators}`` for each outside provider the product knows."""
        return self._request("GET", "/providers").json()  # type: ignore[no-any-return]

    def email_setup_request(self, reason: str = "") -> dict[str, Any]:
        """Ask the person for an email address: ``{status, interaction_id}``; refused while chat connectors are off."""
        return self.call("/email-setup-requests", {"reason": reason})

    def interactions(self) -> list[dict[str, Any]]:
        """Every request on this run's task, with its decision."""
        return self._request("GET", "/interactions").json()  # type: ignore[no-any-return]

    def interaction(self, interaction_id: int) -> dict[str, Any]:
        """A decision on this run's task (status, outcome, result)."""
        return self._request("GET", f"/interactions/{interaction_id}").json()  # type: ignore[no-any-return]

    def finish(
        self,
        outcome: str,
        summary: str = "",
        error_code: str | None = None,
        cost_cents: int = 0,
        agent_reported_cost_usd: float | None = None,
    ) -> None:
        self.send(
            "/finish",
            {
                "outcome": outcome,
                "summary": summary,
                "error_code": error_code,
                "cost_cents": cost_cents,
                "agent_reported_cost_usd": agent_reported_cost_usd,
            },
        )
        self.flush()
