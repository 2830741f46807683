"""Public API for services, connections and the decisions a person makes on agents' requests.

A connection's credential goes in once (``POST``) and never comes out: every
answer is a :class:`~testbed.models.Connection`, which has no field for it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from . import interactions, providers, records, services
from .api import PathId, controller_of
from .db import record_activity
from .failpoints import failpoint
from .models import (
    SQLITE_INT_MAX,
    Company,
    Connection,
    ConnectionCreate,
    DecisionCreate,
    Interaction,
    ProviderEntry,
    Service,
    ServiceCreate,
    SettingsUpdate,
)
from .origin import same_origin_if_browser

router = APIRouter(prefix="/api", tags=["services"], dependencies=[Depends(same_origin_if_browser)])


@router.get("/services")
def list_services(request: Request) -> list[Service]:
    return services.services(controller_of(request).db)


@router.post("/services", status_code=201)
def install_service(payload: ServiceCreate, request: Request) -> Service:
    """Install a service (an MCP server on loopback); its actions are learnt when a connection is added."""
    return services.install_service(controller_of(request).db, payload)


@router.post("/services/{service_id}/connections", status_code=201)
def add_connection(service_id: PathId, payload: ConnectionCreate, request: Request) -> Connection:
    """Add a connection: the service must accept the credential, which is then kept sealed and never shown."""
    controller = controller_of(request)
    return services.add_connection(controller.db, controller.credentials, service_id, payload)


@router.get("/connections", response_model=list[Connection])
def list_connections(request: Request) -> Any:
    controller = controller_of(request)
    return failpoint(
        "connections.listed",
        services.connections(controller.db),
        open_credential=lambda ident: services.open_credential(controller.db, controller.credentials, ident),
    )


@router.get("/connections/{connection_id}")
def get_connection(connection_id: PathId, request: Request) -> Connection:
    return services.connection(controller_of(request).db, connection_id)


@router.get("/interactions")
def list_interactions(
    request: Request, task_id: Annotated[int | None, Query(ge=1, le=SQLITE_INT_MAX)] = None
) -> list[Interaction]:
    return interactions.interactions(controller_of(request).db, task_id)


@router.get("/interactions/{interaction_id}")
def get_interaction(interaction_id: PathId, request: Request) -> Interaction:
    return interactions.interaction(controller_of(request).db, interaction_id)


@router.post("/interactions/{interaction_id}/decision")
def decide(interaction_id: PathId, payload: DecisionCreate, request: Request) -> Interaction:
    """Approve (forward the call once) or decline; repeating the saved decision changes nothing, the other is 409.

    A provider question is answered with ``choice``: one of its options (an aggregator approves, None declines).
    """
    via = "web" if request.headers.get("origin") else "api"  # the page's buttons post here from the browser
    return interactions.decide(
        controller_of(request),
        interaction_id,
        payload.decision,
        via=via,
        api_key=payload.api_key,
        choice=payload.choice,
    )


@router.get("/providers")
def list_providers() -> list[ProviderEntry]:
    """The provider catalog: which outside providers have a native connector, and which aggregators reach each."""
    return list(providers.CATALOG)


@router.put("/company/settings")
def company_settings(payload: SettingsUpdate, request: Request) -> Company:
    """Company settings: ``chat_connectors`` lets agents ask for an email address (AgentMail)."""
    db = controller_of(request).db
    with db.transaction() as conn:
        conn.execute("UPDATE company SET chat_connectors = ? WHERE id = 1", (int(payload.chat_connectors),))
        record_activity(conn, "settings", f"Chat connectors {'on' if payload.chat_connectors else 'off'}")
    return records.company(db)
