"""The metering proxy's added latency per call, against calling the replay server directly.

``python -m bench.proxy [--calls N]``. The replay server and the proxy each run
in their own process (as in a real run: the proxy inside the runner, the
"provider" elsewhere), and this process is the client, so no server shares
the client's interpreter. Each call is a streamed model call with a body the
size a CLI sends (its system prompt and tool schemas), timed to the last byte.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from bench.arguments import count
from bench.entry import run_benchmark
from harness.products.testbed.instance import free_port

KEY = "bench-throwaway"
CONTEXT = "x" * 40_000  # about 10k tokens of context, as a CLI's first request carries
CALLS = {
    "responses (codex)": (
        "openai",
        "/v1/responses",
        {
            "model": "gpt-5-codex",
            "stream": True,
            "tools": [{"type": "function", "name": "exec_command"}],
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": CONTEXT}]}],
        },
    ),
    "messages (claude)": (
        "anthropic",
        "/v1/messages?beta=true",
        {
            "model": "claude-sonnet-4-5",
            "stream": True,
            "max_tokens": 1000,
            "tools": [{"name": "Bash", "input_schema": {}}],
            "messages": [{"role": "user", "content": CONTEXT}],
        },
    ),
    "chat (opencode)": (
        "openai",
        "/v1/chat/completions",
        {
            "model": "gpt-5-mini",
            "stream": True,
            "tools": [{"type": "function", "function": {"name": "bash"}}],
            "messages": [{"role": "user", "content": CONTEXT}],
        },
    ),
}


@contextmanager
def serving(argv: list[str], port: int) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, *argv, "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{argv} did not start: {process.stderr.read().decode()[-2000:] if process.stderr else ''}"
                    ) from None
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def timed_calls(client: httpx.Client, url: str, body: dict, calls: int) -> list[float]:
    seconds = []
    for _ in range(calls):
        started = time.perf_counter()
        with client.stream("POST", url, json=body) as response:
            response.raise_for_status()
            for _ in response.iter_raw():
                pass
        seconds.append(time.perf_counter() - started)
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.proxy", description=__doc__)
    parser.add_argument("--calls", type=count, default=200, help="calls per protocol and path (after 10 warm-up calls)")
    args = parser.parse_args(argv)
    print(
        f"metering proxy added latency: {args.calls} streamed calls per row, ~{len(CONTEXT) // 1000} kB request, time to last byte"
    )
    print(
        f"{'protocol':<20} {'direct median':>14} {'via proxy median':>17} {'added median':>13} {'direct p90':>11} {'proxy p90':>10}"
    )
    with serving(["-m", "harness.replay"], free_port()) as replay:
        for label, (provider, path, body) in CALLS.items():
            proxy_argv = [
                "-m",
                "harness.agents.metering",
                "--upstream",
                replay,
                "--provider",
                provider,
                "--client-key",
                KEY,
                "--simulated",
            ]
            with (
                serving(proxy_argv, free_port()) as proxy,
                httpx.Client(headers={"authorization": f"Bearer {KEY}", "x-api-key": KEY}) as client,
            ):
                timed_calls(client, replay + path, body, 10)
                timed_calls(client, proxy + path, body, 10)
                direct = timed_calls(client, replay + path, body, args.calls)
                metered = timed_calls(client, proxy + path, body, args.calls)
            d, m = statistics.median(direct) * 1000, statistics.median(metered) * 1000
            d90, m90 = (statistics.quantiles(values, n=10)[-1] * 1000 for values in (direct, metered))
            print(f"{label:<20} {d:>11.2f} ms {m:>14.2f} ms {m - d:>10.2f} ms {d90:>8.2f} ms {m90:>7.2f} ms")


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
