"""What a runner loads before its agent starts: it is a fresh interpreter for every run, so its imports are paid
at every run of every cell."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("httpx._main", "rich", "click", "pygments", "uvicorn", "fastapi", "mcp", "playwright")


def test_a_fresh_runner_loads_no_command_line_of_httpx_nor_a_server_and_its_client_still_works() -> None:
    code = (
        "import json, sys; import harness.testbed.runner; import httpx;"
        "client = httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(204)));"
        "status = client.get('http://runner.test/').status_code;"
        f"print(json.dumps([status, sorted(m for m in {list(HEAVY)!r} if sys.modules.get(m) is not None)]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    status, loaded = json.loads(done.stdout)
    assert status == 204 and loaded == [], done.stdout + done.stderr
