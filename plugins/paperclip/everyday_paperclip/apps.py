"""Paperclip's Apps (remote MCP connections with Ask-first actions) and their approval cards, in harness records.

How a person installs an outside service on Paperclip, through its public
API, in the order its Apps page takes them: switch the experimental Apps on
(off by default in the pinned release), add the application, keep the
connection's credential as a company secret, add a remote MCP connection
whose Bearer header comes from that secret, refresh its catalog, and finish
the app: every action enabled, the ones Paperclip classes as writes marked
Ask first (Paperclip then keeps a ``require_approval`` policy for each), for
the agents named.

What stands in for the harness's records:

- a *service* is a Paperclip application; its URL lives on the connection,
  so it is kept here until the connection is added;
- a connection's *policy* is ``ask_first`` when Paperclip keeps a
  ``require_approval`` policy for one of its actions; its *agents* are the
  agents its access profile is bound to;
- an *interaction* of kind ``service_action`` is a tool-action confirmation
  card (``request_confirmation`` with a ``toolAction``); its action is the
  tool's catalog name, its run the run whose gateway call asked for it (from
  Paperclip's ``tool_gateway.approval_requested`` activity), its result the
  text the service answered once Paperclip ran the approved call.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from harness.core.product_records import Connection, Interaction, RecordId, Service
from harness.products.http import product_json

TOOL_ACTION_KIND = "service_action"
INTERACTION_STATUSES = {"pending": "pending", "accepted": "approved", "rejected": "declined"}
# A card that expired or was withdrawn was never approved: for the stories it is a decision against the action.
CLOSED_STATUS = "declined"
TOOL_ACTION_OUTCOMES = {"executed": "completed", "failed": "failed"}


class PaperclipApps:
    """The ServicesApi part of :class:`~everyday_paperclip.api.PaperclipApi` (mixed into it)."""

    http: httpx.Client
    company_id: str
    _service_urls: dict[str, str]
    _interaction_issues: dict[str, str]

    def _apps_json(self, method: str, path: str, **kwargs: Any) -> Any:
        return product_json(self.http.request, method, path, **kwargs)

    # ---- installing -----------------------------------------------------------------

    def install_service(self, name: str, url: str) -> Service:
        """Apps switched on, then the application; the URL is the connection's, kept until it is added."""
        self._apps_json("PATCH", "/api/instance/settings/experimental", json={"enableApps": True})
        raw = self._apps_json(
            "POST", f"/api/companies/{self.company_id}/tools/applications", json={"name": name, "type": "mcp_http"}
        )
        self._service_urls[str(raw["id"])] = url
        return Service(id=raw["id"], name=raw["name"])

    def add_connection(
        self, service_id: RecordId, name: str, credential: str, policy: str, agent_ids: list[RecordId]
    ) -> Connection:
        """The credential as a company secret, the connection, its catalog, and the app finished for ``agent_ids``.

        Ask first is set on the actions Paperclip itself classes as writes
        (``isWrite`` or ``isDestructive`` in its catalog): the person marks
        those, as the finish step offers them.
        """
        company = f"/api/companies/{self.company_id}"
        secret = self._apps_json("POST", f"{company}/secrets", json={"name": f"{name} credential", "value": credential})
        header = {"name": "authorization", "secretId": secret["id"], "placement": "header", "key": "Authorization"}
        connection = self._apps_json(
            "POST",
            f"{company}/tools/connections",
            json={
                "applicationId": str(service_id),
                "name": name,
                "transport": "mcp_remote",
                "authKind": "api_key",
                "transportConfig": {"url": self._service_urls[str(service_id)]},
                "credentialRefs": [{**header, "prefix": "Bearer "}],
            },
        )
        catalog = self._apps_json("POST", f"/api/tool-connections/{connection['id']}/catalog/refresh")["catalog"]
        writes = [e["id"] for e in catalog if e.get("isWrite") or e.get("isDestructive")]
        self._apps_json(
            "POST",
            f"{company}/tools/apps/{connection['id']}/finish",
            json={
                "enabledCatalogEntryIds": [e["id"] for e in catalog],
                "askFirstCatalogEntryIds": writes if policy == "ask_first" else [],
                "access": {"agentIds": [str(a) for a in agent_ids]},
            },
        )
        return next(c for c in self.connections() if str(c.id) == str(connection["id"]))

    def bind_agent(self, agent_id: RecordId, connection_ids: list[RecordId]) -> None:
        """Let the agent use each connection: bind it to the connection's access profile, as the app's Access tab
        does (``POST .../tools/profiles/{id}/bind``). A new agent's effective tool profile is empty until then."""
        company = f"/api/companies/{self.company_id}"
        wanted = {str(c) for c in connection_ids}
        for profile in self._apps_json("GET", f"{company}/tools/profiles")["profiles"]:
            if str((profile.get("metadata") or {}).get("connectionId")) in wanted:
                binding = {"targetType": "agent", "targetId": str(agent_id)}
                self._apps_json("POST", f"{company}/tools/profiles/{profile['id']}/bind", json=binding)

    def set_chat_connectors(self, enabled: bool) -> Any:
        raise NotImplementedError("Paperclip's pinned release has no chat connectors")

    # ---- reading ---------------------------------------------------------------------

    def connections(self) -> list[Connection]:
        company = f"/api/companies/{self.company_id}"
        raw = self._apps_json("GET", f"{company}/tools/connections")["connections"]
        services = {a["id"]: a["name"] for a in self._apps_json("GET", f"{company}/tools/applications")["applications"]}
        policies = self._apps_json("GET", f"{company}/tools/policies")["policies"]
        asking = {
            (p.get("config") or {}).get("connectionId")
            for p in policies
            if p["policyType"] == "require_approval" and p["enabled"]
        }
        profiles = self._apps_json("GET", f"{company}/tools/profiles")["profiles"]
        return [
            Connection(
                id=c["id"],
                service_id=c["applicationId"],
                service_name=services.get(c["applicationId"], ""),
                name=c["name"],
                policy="ask_first" if c["id"] in asking else "allow",
                agent_ids=[
                    b["targetId"]
                    for p in profiles
                    if (p.get("metadata") or {}).get("connectionId") == c["id"]
                    for b in p.get("bindings", [])
                    if b["targetType"] == "agent"
                ],
            )
            for c in raw
        ]

    def interactions(self, task_id: RecordId | None = None) -> list[Interaction]:
        """The cards on one issue's thread (or on every issue), oldest first."""
        company = f"/api/companies/{self.company_id}"
        issues = (
            [str(task_id)] if task_id is not None else [i["id"] for i in self._apps_json("GET", f"{company}/issues")]
        )
        raw = [i for issue in issues for i in self._apps_json("GET", f"/api/issues/{issue}/interactions")]
        self._interaction_issues.update({str(i["id"]): str(i["issueId"]) for i in raw})
        names = {a["id"]: a["name"] for a in self._apps_json("GET", f"{company}/agents")}
        asked_by = {
            str((a.get("details") or {}).get("interactionId")): str(a.get("runId") or "")
            for a in self._apps_json("GET", f"{company}/activity")
            if a["action"] == "tool_gateway.approval_requested"
        }
        return [_interaction(i, names, asked_by) for i in sorted(raw, key=lambda i: i["createdAt"])]

    def decide(self, interaction_id: RecordId, decision: str) -> httpx.Response:
        """What the card's buttons send (accept or reject), sent again: the raw answer, which may be a refusal."""
        issue = self._interaction_issues.get(str(interaction_id))
        if issue is None:
            self.interactions()
            issue = self._interaction_issues[str(interaction_id)]
        verb = "accept" if decision == "approve" else "reject"
        return self.http.post(f"/api/issues/{issue}/interactions/{interaction_id}/{verb}", json={})

    def approve_anywhere(self, interaction_id: RecordId) -> dict[str, int]:
        """The card's Approve action, then the Apps review queue's approve of the action request the card carries
        (``POST /api/tool-gateway/action-requests/{id}/approve``), where Paperclip lists a parked call as long as
        the request is pending."""
        answers = {"card": self.decide(interaction_id, "approve").status_code}
        issue = self._interaction_issues[str(interaction_id)]
        raw = next(
            i
            for i in self._apps_json("GET", f"/api/issues/{issue}/interactions")
            if str(i["id"]) == str(interaction_id)
        )
        action = ((raw.get("payload") or {}).get("toolAction") or {}).get("actionRequestId")
        if action:
            answer = self.http.post(
                f"/api/tool-gateway/action-requests/{action}/approve", json={"companyId": self.company_id}
            )
            answers["review queue"] = answer.status_code
        return answers

    def raw_reads(self) -> dict[str, bytes]:
        """Every public read that could carry a connection's credential: secrets, apps, connections and their
        catalogs, policies, the review queue, the audit, activity, agents, and each issue with its thread."""
        company = f"/api/companies/{self.company_id}"
        paths = [
            f"{company}/secrets",
            f"{company}/tools/applications",
            f"{company}/tools/connections",
            f"{company}/tools/policies",
            f"{company}/tools/profiles",
            f"{company}/tools/action-requests",
            f"/api/tool-gateway/audit?companyId={self.company_id}",
            f"{company}/activity",
            f"{company}/agents",
        ]
        for connection in self._apps_json("GET", f"{company}/tools/connections")["connections"]:
            paths += [f"/api/tool-connections/{connection['id']}", f"/api/tool-connections/{connection['id']}/catalog"]
        for issue in self._apps_json("GET", f"{company}/issues"):
            paths += [f"/api/issues/{issue['id']}{part}" for part in ("", "/comments", "/interactions")]
        return {path: self.http.get(path).content for path in paths}


def _interaction(raw: dict[str, Any], names: dict[str, str], asked_by: dict[str, str]) -> Interaction:
    tool = (raw.get("payload") or {}).get("toolAction")
    result = raw.get("result") or {}
    ran = result.get("toolAction") or {}
    status = INTERACTION_STATUSES.get(raw["status"], CLOSED_STATUS)
    if status == "pending":
        outcome = "waiting"
    elif status == "declined":
        outcome = "declined" if raw["status"] == "rejected" else raw["status"]
    else:
        outcome = TOOL_ACTION_OUTCOMES.get(str(ran.get("status")), "waiting") if tool else "completed"
    agent = raw.get("createdByAgentId") or ""
    return Interaction(
        id=raw["id"],
        kind=TOOL_ACTION_KIND if tool else raw["kind"],
        task_id=raw["issueId"],
        run_id=asked_by.get(str(raw["id"])) or raw.get("sourceRunId") or "",
        agent_id=agent,
        agent_name=names.get(agent, ""),
        addressed_to=names.get(raw.get("addresseeAgentId") or "", "user"),
        service_name=tool.get("appDisplayName") if tool else None,
        connection_id=tool.get("connectionId") if tool else None,
        action=tool["toolDisplayName"] if tool else raw.get("title") or raw["kind"],
        status=status,  # type: ignore[arg-type]
        decided_by=_decider(raw, names),
        decided_at=raw.get("resolvedAt"),
        outcome=outcome,
        result=service_text(ran.get("resultSummary") or ran.get("errorMessage")),
        created_at=raw["createdAt"],
    )


def _decider(raw: dict[str, Any], names: dict[str, str]) -> str | None:
    """Who decided, in the words ``addressed_to`` uses: ``user`` for a person (a board user, whatever its id, such
    as ``local-board`` in ``local_trusted`` mode), an agent by its name."""
    if raw.get("resolvedByUserId"):
        return "user"
    agent = raw.get("resolvedByAgentId")
    return names.get(agent, agent) if agent else None


def service_text(summary: str | None) -> str | None:
    """What the service answered, out of Paperclip's result summary (``{"content": <the service's text>, ...}``)."""
    if summary is None:
        return None
    try:
        parsed = json.loads(summary)
    except json.JSONDecodeError:
        return summary
    content = parsed.get("content") if isinstance(parsed, dict) else None
    return content if isinstance(content, str) else summary
