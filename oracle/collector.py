"""In-container collector: run every planned invocation of the delivery and print raw observations.

This file is never imported by the oracle; its source is passed to
``python3 -c`` inside the sandbox, so it must stay standalone (stdlib only,
Python 3.11). It judges nothing: it records exit status and bounded stdout of
each CLI call, and what ``slugify(text)`` returned in a separate process.
The host compares those observations with the contract, so a delivery that
tampers with this process can at worst spoil its own grade.

CLI calls run concurrently (a thread pool of subprocesses) because a grade's
wall time is dominated by interpreter start-ups. Each child gets its own
session (so its whole process group can be killed), an address-space limit
(a memory hog fails with MemoryError instead of starving its siblings), a
timeout, and a stdout cap (a flood is cut off and killed).
"""

import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

FUNCTION_MARK = "@@everyday-oracle-function@@"

FUNCTION_SCRIPT = r"""
import json, os, sys
texts = json.loads(sys.argv[1])
out = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
def report(payload):
    out.write(MARK + json.dumps(payload) + "\n")
    out.flush()
    os._exit(0)
try:
    import slugify
    function = slugify.slugify
except BaseException as error:
    report({"error": "import failed: %s: %s" % (type(error).__name__, error)})
results = []
for text in texts:
    try:
        value = function(text)
        results.append({"value": value} if isinstance(value, str) else {"error": "returned %s, not str" % type(value).__name__})
    except BaseException as error:
        results.append({"error": "%s: %s" % (type(error).__name__, error)})
report({"results": results})
""".replace("MARK", repr(FUNCTION_MARK))


def _limit_child(memory_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def _kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_bounded(argv, cwd, env, timeout_s, stdout_limit, memory_bytes):
    """Run one command; return exit status and at most stdout_limit bytes of stdout."""
    started = time.monotonic()
    observation = {"exit": None, "stdout": "", "timed_out": False, "flooded": False, "error": None}
    try:
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=_limit_child(memory_bytes),
        )
    except OSError as error:
        observation["error"] = "could not start: %s" % error
        return observation
    buffer = bytearray()
    fd = process.stdout.fileno()
    os.set_blocking(fd, False)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            remaining = started + timeout_s - time.monotonic()
            if remaining <= 0:
                observation["timed_out"] = True
                break
            exited = process.poll() is not None
            events = selector.select(timeout=0 if exited else min(remaining, 0.05))
            chunk = b""
            if events:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    chunk = None
                if chunk == b"":
                    break  # end of stream: every writer closed it
                buffer += chunk or b""
                if len(buffer) > stdout_limit:
                    observation["flooded"] = True
                    break
            elif exited:
                break  # main process gone and nothing left to read; stray children may hold the pipe
    if not (observation["timed_out"] or observation["flooded"]):
        try:
            observation["exit"] = process.wait(timeout=max(started + timeout_s - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            observation["timed_out"] = True
    _kill_group(process)  # also ends any children it left behind
    process.wait()
    process.stdout.close()
    observation["stdout"] = bytes(buffer[:stdout_limit]).decode("utf-8", "surrogateescape")
    observation["seconds"] = round(time.monotonic() - started, 3)
    return observation


def main():
    plan = json.loads(sys.argv[1])
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": "/tmp"}
    python = plan["python"]
    project = plan["project"]

    def run(argv, limit):
        return run_bounded(argv, project, env, plan["command_timeout_s"], limit, plan["memory_bytes"])

    def cli(args):
        return dict(run([python, plan["source_file"]] + list(args), plan["stdout_limit"]), args=args)

    def function():
        observed = run([python, "-c", FUNCTION_SCRIPT, json.dumps(plan["function_texts"])], plan["function_stdout_limit"])
        lines = [line for line in observed.pop("stdout").splitlines() if line.startswith(FUNCTION_MARK)]
        try:
            observed["report"] = json.loads(lines[-1][len(FUNCTION_MARK):]) if lines else None
        except ValueError:
            observed["report"] = None
        return observed

    with ThreadPoolExecutor(max_workers=plan["workers"]) as pool:
        function_future = pool.submit(function)
        cli_futures = [pool.submit(cli, args) for args in plan["cli"]]
        observations = {"cli": [f.result() for f in cli_futures], "function": function_future.result()}
    sys.stdout.write(json.dumps(observations) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
