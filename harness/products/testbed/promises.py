"""What the testbed documents it does, which the stories hold it to (its README and the code that does it)."""

from __future__ import annotations

from harness.core.catalog import Promise

DRAIN = Promise(
    id="drain-on-request",
    statement="a SIGTERM after the operator's drain request (POST /api/controller/drain) is a graceful drain: the"
    " controller ends each running run's runner, records the run failed, interrupted_by_shutdown, and queues a run of"
    " the same task and agent (cause recovery) before it exits; the next controller starts it, and the messages the"
    " interrupted run had not read are handed to it",
    source="harness/testbed/drain.py: drain, queue_retry; harness/testbed/api.py: request_drain;"
    " harness/testbed/app.py: the shutdown",
)

PROMISES = (DRAIN,)
