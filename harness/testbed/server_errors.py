"""The controller's answer to a request that broke inside it, and its note of it in the activity feed.

A runner whose request the controller could not serve retries it (see
:mod:`harness.testbed.agent_client`), for minutes if need be. Such a run looks busy
from outside; so every server error answered to a run's request is also an
activity entry (``run_request_failed``) naming the run, which is how a person,
or the harness, can see a run retrying instead of working.
"""

from __future__ import annotations

import logging
import re

from fastapi import Request
from fastapi.responses import JSONResponse

from .db import record_activity

RUN_REQUEST_FAILED = "run_request_failed"
RUN_PATH = re.compile(r"^/api/agent/runs/(?P<run_id>\d+)/")

log = logging.getLogger("testbed.controller")


async def server_error(request: Request, error: Exception) -> JSONResponse:
    """A 500 with the error's type; for an agent API request, the run's failed request noted in the feed."""
    log.error("%s %s failed: %s", request.method, request.url.path, error, exc_info=error)
    found = RUN_PATH.match(request.url.path)
    if found is not None:
        run_id = int(found["run_id"])
        try:
            with request.app.state.controller.db.transaction() as conn:
                row = conn.execute("SELECT task_id FROM runs WHERE id = ?", (run_id,)).fetchone()
                message = f"{request.method} {request.url.path} answered 500 ({type(error).__name__})"
                record_activity(conn, RUN_REQUEST_FAILED, message, row["task_id"] if row else None, run_id)
        except Exception:  # noqa: BLE001  the note is best effort: the answer must still go out
            log.exception("could not note the failed request of run %s", run_id)
    return JSONResponse({"detail": f"internal error: {type(error).__name__}"}, status_code=500)
