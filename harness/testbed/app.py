"""Builds the controller's ASGI app: routes, static files, and the scheduler's lifetime."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles

from . import agent_api, api, costs_api, routines_api, services_api, skills_api, team_api, web
from . import defects as product_defects
from .body_deadline import BodyDeadline, configured_seconds
from .controller import Controller
from .drain import drain
from .failpoints import failpoint
from .mcp_mount import PATH as TOOLS_PATH
from .mcp_mount import ToolServerMount
from .sandbox.agent_socket import AgentRoutesOnly
from .sandbox.containers import ContainerRunners
from .scheduler import Scheduler
from .server_errors import server_error
from .unprocessable import unprocessable

STATIC_DIR = Path(__file__).parent / "static"
ROUTERS = (
    api.router,
    services_api.router,
    agent_api.router,
    web.router,
    *skills_api.ROUTERS,
    *team_api.ROUTERS,
    *routines_api.ROUTERS,
    *costs_api.ROUTERS,
)
"""Every router of the controller, in the order their routes are matched; each route carries its router's prefix and
dependencies from its definition."""


def configure_logging(data_dir: Path) -> None:
    """Controller logs go to DIR/logs/controller.log (and stderr), appended across restarts."""
    (data_dir / "logs").mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(data_dir / "logs" / "controller.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger("testbed")
    root.setLevel(logging.INFO)
    root.addHandler(handler)
    root.addHandler(logging.StreamHandler())


def create_app(
    data_dir: Path,
    url: str,
    pace: float,
    defects: Sequence[str] = (),
    model_upstream: str | None = None,
    agent_time_limit_s: float = 600.0,
    issued_secrets: Path | None = None,
    sandbox: ContainerRunners | None = None,
) -> FastAPI:
    """The controller's app; ``defects`` (calibration only) switches on named product defects;
    ``model_upstream`` is where live agents' metering proxies send model calls (a replay server);
    ``issued_secrets`` is the harness's ledger of the run tokens it mints (see agents.issued_secrets);
    ``sandbox`` starts each run's runner in a container instead of a local process (testbed/sandbox)."""
    switched_on = product_defects.configure(defects)
    controller = Controller(
        data_dir=data_dir,
        url=url,
        pace=pace,
        model_upstream=model_upstream,
        agent_time_limit_s=agent_time_limit_s,
        issued_secrets=issued_secrets,
        sandbox=sandbox,
    )
    scheduler = Scheduler(controller)
    tools = ToolServerMount(controller)
    controller.live_agent_present = tools.want
    controller.work_waiting = scheduler.wake

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logging.getLogger("testbed").info("controller %s starting on %s", controller.instance_id, url)
        tools.open()
        if controller.has_live_agents():  # a restart under live agents: their tools are wanted at once
            tools.want()
        scheduler.start()
        controller.live.start()
        yield
        controller.live.close()
        await tools.close()
        scheduler.stop()
        # Its runners keep going unless the operator asked for a drain (testbed/drain.py).
        retries = drain(controller) if controller.drain_requested else None
        failpoint("controller.shutdown", db=controller.db, supervisor=controller.supervisor)
        after = "runners keep going" if retries is None else f"drained; retries queued: {retries}"
        logging.getLogger("testbed").info("controller %s stopped; %s", controller.instance_id, after)

    app = FastAPI(title="testbed", version="1", lifespan=lifespan)
    app.state.controller = controller
    app.state.defects = switched_on
    app.add_middleware(BodyDeadline, seconds=configured_seconds())
    app.add_middleware(AgentRoutesOnly)
    app.add_exception_handler(RequestValidationError, unprocessable)
    app.add_exception_handler(Exception, server_error)
    # The routes themselves, not `include_router`: an included router's routes are built again for every app, at
    # its first request, on each controller's start; a route built at import is shared by all.
    app.router.routes.extend(route for router in ROUTERS for route in router.routes)
    app.mount(TOOLS_PATH, tools)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
