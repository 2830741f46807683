"""Paperclip's routines in harness records: a routine, its record of fires, and a delivery to its webhook.

What stands in for the harness's records:

- a routine's *fires* are Paperclip's routine runs (``GET /api/routines/{id}/runs``), oldest first, each naming the
  execution issue it created (``linkedIssueId``); a run that created none (coalesced into a live issue, or skipped)
  names no task, so a second record of one delivery shows as a fire of no task;
- the *webhook* is the routine's webhook trigger, whose public fire URL
  (``POST /api/routine-triggers/public/{publicId}/fire``) takes the sender's ``Idempotency-Key``: with signing mode
  ``none`` (the URL's public id is the shared secret) a repeated key answers the run it already created
  (services/routines.js ``dispatchRoutineRun``), with HMAC signing a 409 "Webhook replay detected"; either is the
  delivery already taken, not an error.
"""

from __future__ import annotations

from typing import Any

import httpx

from harness.core.product_records import RecordId, Routine, RoutineFire
from harness.products.http import ProductApiError, product_json

WEBHOOK = "webhook"
REPLAY_STATUS = 409  # a repeated Idempotency-Key on a signed webhook


class PaperclipRoutines:
    """The RoutinesApi part of :class:`~everyday_paperclip.api.PaperclipApi` (mixed into it)."""

    http: httpx.Client
    company_id: str

    def _routines_json(self, method: str, path: str, **kwargs: Any) -> Any:
        return product_json(self.http.request, method, path, **kwargs)

    def routines(self) -> list[Routine]:
        listed = self._routines_json("GET", f"/api/companies/{self.company_id}/routines")
        return [self.routine(raw["id"]) for raw in listed]

    def routine(self, routine_id: RecordId) -> Routine:
        raw = self._routines_json("GET", f"/api/routines/{routine_id}")
        runs = sorted(self._routines_json("GET", f"/api/routines/{routine_id}/runs"), key=lambda r: r["createdAt"])
        return Routine(
            id=raw["id"],
            title=raw["title"],
            assignee_id=raw.get("assigneeAgentId") or "",
            fires=[
                RoutineFire(task_id=run.get("linkedIssueId") or "", source=run["source"], created_at=run["createdAt"])
                for run in runs
            ],
        )

    def deliver_webhook(self, routine_id: RecordId, delivery_id: str) -> None:
        """Post one delivery to the routine's webhook fire URL with ``delivery_id`` as its Idempotency-Key."""
        triggers = self._routines_json("GET", f"/api/routines/{routine_id}")["triggers"]
        [public_id] = [t["publicId"] for t in triggers if t["kind"] == WEBHOOK and t["enabled"]]
        try:
            self._routines_json(
                "POST",
                f"/api/routine-triggers/public/{public_id}/fire",
                json={},
                headers={"Idempotency-Key": delivery_id},
            )
        except ProductApiError as error:
            if error.status_code != REPLAY_STATUS:
                raise


def add_webhook(base_url: str, routine_id: RecordId) -> None:
    """A webhook trigger on the routine, signing mode ``none``, through the route the routine's trigger form calls."""
    payload = {"kind": WEBHOOK, "signingMode": "none", "label": "outside system"}
    product_json(httpx.request, "POST", f"{base_url}/api/routines/{routine_id}/triggers", json=payload, timeout=15)
