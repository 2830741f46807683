"""Helpers for the testbed's tests: agents, tasks and tokens on a real controller."""

from __future__ import annotations

import socket
import uuid
from pathlib import Path

from harness.core.product_records import Agent, Run, Task
from harness.products.testbed import ApiClient
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6]}"


def new_agent(api: ApiClient, model: str = "default", **fields: object) -> Agent:
    return api.create_agent(name=unique("Agent"), model=model, **fields)  # type: ignore[arg-type]


def start_build(api: ApiClient, model: str = "default") -> tuple[Task, Run]:
    """A build task whose run is active and has saved slugify.py: the moment stories inject faults."""
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api, model).id)
    return task, api.wait_until_file_saved(task.id, "slugify.py")


def runner_token(pid: int) -> str:
    """The run token a runner was started with (root can read its initial environment)."""
    for entry in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
        if entry.startswith(b"TESTBED_RUN_TOKEN="):
            return entry.split(b"=", 1)[1].decode()
    raise AssertionError(f"runner {pid} has no token in its environment")


def model_call_report(run_id: int, name: str, cents: float, **fields: object) -> dict[str, object]:
    """A model-call report as a runner's metering proxy sends it: ``in_flight=True`` admits, the same name completes."""
    return {
        "event_id": f"r{run_id}-call-{name}",
        "protocol": "messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "status": 200,
        "usage": {"input_tokens": 1000},
        "cost_cents": cents,
        "simulated": True,
        "price_table": "probe",
        **fields,
    }


def raw_exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` as is (a body cut short, a size that lies) and read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer
