"""What a runner loads before its agent starts: it is a fresh interpreter for every run, so its imports are paid
at every run of every cell."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("httpx._main", "rich", "click", "pygments", "uvicorn", "fastapi", "mcp", "playwright")
"""Never in a runner: a command line or a server (a CLI's run in a sandbox loads uvicorn for its relay later)."""
NOT_SCRIPTED = ("httpx", "httpcore", "ssl", "http.client", "email.parser", "urllib.request", "pydantic")
"""Not in a scripted run: its agent API client speaks HTTP over the standard library's sockets (oracle.wire)."""


def test_a_fresh_scripted_runner_loads_no_http_library_nor_a_server_and_httpx_still_works() -> None:
    code = (
        "import json, sys; import harness.testbed.runner;"
        "from harness.agents.adapters import adapter_for; from harness.agents.client import AgentClient;"
        "adapter_for('scripted'); AgentClient('http://127.0.0.1:9', 1, 'token');"
        f"loaded = sorted(m for m in {list(HEAVY + NOT_SCRIPTED)!r} if sys.modules.get(m) is not None);"
        "import httpx;"
        "client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(204)));"
        "status = client.get('http://runner.test/').status_code;"
        f"heavy = sorted(m for m in {list(HEAVY)!r} if sys.modules.get(m) is not None);"
        "print(json.dumps([loaded, status, heavy]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded, status, heavy = json.loads(done.stdout)
    assert loaded == [] and status == 204 and heavy == [], done.stdout + done.stderr
