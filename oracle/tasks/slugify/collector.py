"""In-container collector: run every planned invocation of the delivery and print raw observations.

This file is never imported by the oracle; its source is passed to
``python3 -c`` inside the sandbox, so it must stay standalone (stdlib only,
Python 3.11). It judges nothing: it records the exit status and bounded
stdout of each CLI call and what ``slugify(text)`` returned. The host
compares those observations with the contract, so a delivery that tampers
with this process can at worst spoil its own grade.

Speed: a grade's wall time is dominated by interpreter start-ups (~25 ms
each, ~30 calls per grade). So this process stays single-threaded, warms
the interpreter once, and runs each call in a *forked* child that executes
slugify.py as ``__main__`` with the same argv, cwd, sys.path[0], stdout and
exit-status semantics as ``python3 slugify.py ...``. Jobs marked ``fresh``
exec a brand-new ``python3 slugify.py`` instead, so the real entry path is
always exercised too and must agree. A forked child pays for every page
it writes (CPython's reference counts write to each object it touches, so
the kernel copies the page), and those copies are most of a child's cost:
whatever every child would do alike (compiling slugify.py, see
``_compiled``; setting the environment) is done once, before the first
fork. Modules only a rare path needs (runpy for a script not compiled here,
traceback for a call that raised) are imported by the child that needs
them: this process's start is on every grade's path. Every child gets its
own session (the whole group is killed afterwards), an address-space
limit, a timeout and a stdout cap; a call
that times out is run once more before its timeout counts. Running as
PID 1, the loop also reaps orphans so zombies cannot eat the container's
pid budget.
"""

import argparse  # noqa: F401  pre-warmed for forked children: typical CLI imports
import atexit
import importlib.util
import io
import json
import os
import re  # noqa: F401
import resource
import select
import selectors
import signal
import sys
import time
import types
import warnings

TYPE_CHECKING = False  # typing is for the type checker only: importing it is on every grade's path
if TYPE_CHECKING:
    from typing import Any

FUNCTION_MARK = "@@everyday-oracle-function@@"
PRECOMPILE_LIMIT = 64 * 1024
"""Largest script compiled once for every call (bytes); an honest slugify.py is a few KiB."""


def _warm_stdlib():
    """Exercise argparse once so forked children inherit its lazy imports and compiled regexes.

    Only standard-library code runs here, never the delivery's.
    """
    parser = argparse.ArgumentParser(prog="warm")
    parser.add_argument("text")
    parser.add_argument("--choice", choices=("a", "b"), default="a")
    parser.add_argument("--number", type=int, default=None)
    parser.format_help()
    parser.parse_args(["x", "--number", "1"])
    re.sub(r"[^a-z0-9]+", "-", "warm up")


def _exit_status(code):
    """The status `python3` itself would exit with for SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _finish(status):
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        status = 120  # what python3 exits with when flushing stdout fails
    os._exit(status)


def _compiled(path, memory):
    """The script at `path` compiled once for every forked call, or None to leave compiling to each call.

    Compiling is the first thing ``python3 slugify.py`` (and runpy.run_path)
    does with a script, and in a forked child it is most of the call's cost:
    the compiler's memory is fresh pages, faulted in by every call. Only
    the standard library's compiler runs here, never the delivery's code. What a call would not compile the same way is left to
    each call, which then fails (or runs) exactly as it always did: a
    script that does not compile, a compiled file (runpy runs those by their
    magic number), a script larger than PRECOMPILE_LIMIT (so this process's
    work stays far below a call's time limit), or one whose compiling needs
    more memory than a call may use (the calls' own address-space limit
    holds here while compiling). Compiler warnings go nowhere, as they did
    from each call (a call's stderr is discarded).
    """
    try:
        with open(path, "rb") as script:
            source = script.read(PRECOMPILE_LIMIT + 1)
    except OSError:
        return None
    if len(source) > PRECOMPILE_LIMIT or source[:4] == importlib.util.MAGIC_NUMBER:
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, limit[1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compile(source, path, "exec", dont_inherit=True)
    except BaseException:  # noqa: BLE001  SyntaxError, MemoryError, ValueError (a NUL byte)...: each call says it
        return None
    finally:
        resource.setrlimit(resource.RLIMIT_AS, limit)


def _run_compiled(code, path):
    """Run `code` as runpy.run_path(path, run_name="__main__") runs the script it compiles, in a fresh __main__."""
    module = types.ModuleType("__main__")
    module.__dict__.update(__file__=path, __cached__=None, __loader__=None, __package__="", __spec__=None)
    saved_main, saved_argv0 = sys.modules["__main__"], sys.argv[0]
    sys.modules["__main__"], sys.argv[0] = module, path
    try:
        exec(code, module.__dict__)
    finally:
        sys.modules["__main__"], sys.argv[0] = saved_main, saved_argv0


def _run_script(plan, job):
    sys.argv = [plan["source_file"]] + list(job["args"])
    sys.path[0] = plan["project"]
    path = os.path.join(plan["project"], plan["source_file"])
    try:
        if job.get("code") is None:
            import runpy

            runpy.run_path(path, run_name="__main__")
        else:
            _run_compiled(job["code"], path)
        status = 0
    except SystemExit as stop:
        status = _exit_status(stop.code)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    _finish(status)


def _run_function(plan):
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything the delivery prints goes where stderr goes (ignored)
    sys.argv = [""]
    sys.path[0] = plan["project"]

    def report(payload):
        out.write(FUNCTION_MARK + json.dumps(payload) + "\n")
        out.flush()
        os._exit(0)

    try:
        import slugify

        function = slugify.slugify
    except BaseException as error:
        report({"error": "import failed: %s: %s" % (type(error).__name__, error)})
    results = []
    for text in plan["function_texts"]:
        try:
            value = function(text)
            results.append(
                {"value": value} if isinstance(value, str) else {"error": "returned %s, not str" % type(value).__name__}
            )
        except BaseException as error:
            results.append({"error": "%s: %s" % (type(error).__name__, error)})
    report({"results": results})


def _child(plan, job, write_fd, env):
    """Runs in the forked child: isolate, limit, then run the job. Never returns."""
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(write_fd, 1)
        os.dup2(write_fd if job.get("stderr") else devnull, 2)
        os.closerange(3, 1024)
        memory = plan["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.chdir(plan["project"])
        if job.get("exec"):
            os.execvpe(job["exec"][0], job["exec"], env)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
        if job["kind"] == "function":
            _run_function(plan)
        _run_script(plan, job)
    except BaseException:
        os._exit(127)
    os._exit(127)


class Running:
    def __init__(self, job, pid, fd, started):
        self.job, self.pid, self.fd, self.started = job, pid, fd, started
        self.buffer = bytearray()
        self.status = None
        self.eof = False
        self.registered = True
        self.timed_out = False
        self.flooded = False


def _decode_status(raw):
    return os.waitstatus_to_exitcode(raw)


def run_all(plan, jobs, env):
    """Run jobs with bounded concurrency; returns one observation per job, in order."""
    pending = list(enumerate(jobs))
    running: dict[int, Any] = {}
    results: list[dict[str, Any] | None] = [None] * len(jobs)
    selector = selectors.DefaultSelector()
    wake_read, wake_write = os.pipe()  # SIGCHLD wakes the loop at once instead of polling
    for fd in (wake_read, wake_write):
        os.set_blocking(fd, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    selector.register(wake_read, selectors.EVENT_READ, None)
    limit_for = lambda job: plan["stdout_limit"] if job["kind"] == "cli" else plan["report_stdout_limit"]  # noqa: E731

    def close(index, item):
        try:
            os.killpg(item.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if item.status is None and not (item.timed_out or item.flooded):
            item.timed_out = True
        if item.registered:
            selector.unregister(item.fd)
        os.close(item.fd)
        stdout = bytes(item.buffer[: limit_for(item.job)]).decode("utf-8", "surrogateescape")
        exit_status = None if (item.timed_out or item.flooded) else item.status
        results[index] = dict(
            args=item.job.get("args", []),
            fresh=bool(item.job.get("fresh")),
            exit=exit_status,
            stdout=stdout,
            timed_out=item.timed_out,
            flooded=item.flooded,
            seconds=round(time.monotonic() - item.started, 3),
        )
        del running[index]

    while pending or running:
        while pending and len(running) < plan["workers"]:
            index, job = pending.pop(0)
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError as error:  # e.g. the delivery's processes hold every pid: its own fault
                os.close(read_fd)
                os.close(write_fd)
                results[index] = dict(
                    args=job.get("args", []),
                    fresh=bool(job.get("fresh")),
                    stdout="",
                    error="could not start: %s" % error,
                )
                continue
            if pid == 0:
                os.close(read_fd)
                _child(plan, job, write_fd, env)
            os.close(write_fd)
            os.set_blocking(read_fd, False)
            running[index] = Running(job, pid, read_fd, time.monotonic())
            selector.register(read_fd, selectors.EVENT_READ, index)
        for key, _ in selector.select(timeout=0.05):
            if key.data is None:
                _drain(wake_read)
                continue
            item = running[key.data]
            try:
                chunk = os.read(item.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                item.eof = True
                item.registered = False
                selector.unregister(item.fd)
                continue
            item.buffer += chunk
            if len(item.buffer) > limit_for(item.job):
                item.flooded = True
        while True:  # reap our children and any orphans re-parented to us (PID 1)
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            for item in running.values():
                if item.pid == pid:
                    item.status = _decode_status(raw)
        now = time.monotonic()
        for index, item in list(running.items()):
            if now - item.started > plan["command_timeout_s"]:
                item.timed_out = True
            exited_and_drained = item.status is not None and (item.eof or not _readable(item.fd))
            if item.flooded or item.timed_out or exited_and_drained:
                close(index, item)
    signal.set_wakeup_fd(-1)
    selector.close()
    os.close(wake_read)
    os.close(wake_write)
    return results


def run_all_confirming_hangs(plan, jobs, env):
    """``run_all``, then each job that did not finish in time is run once more, alone, before that counts.

    Returns the observations and what was run again (the grade records it).

    A machine stalled by other work (a host busy with browsers and other
    grades, a virtual machine's CPU taken away) once froze an honest
    ``python3 slugify.py 'Hello World'`` past its limit. A delivery that
    hangs does so again; one confirmed hang ends the re-runs, so a delivery
    that hangs on every call costs one limit more, not one per call.
    """
    results = run_all(plan, jobs, env)
    reran = []
    for index, result in enumerate(results):
        if result.get("timed_out"):
            results[index] = run_all(plan, [jobs[index]], env)[0]
            finished = not results[index].get("timed_out")
            reran.append({"what": _described(jobs[index]), "finished": finished})
            if not finished:
                break
    return results, reran


def _described(job):
    """A job as the grade's reader knows it: the command line a user would type, or what the job does."""
    import shlex  # only after a time-out: not on every grade's path

    if job["kind"] == "cli":
        return " ".join(shlex.quote(part) for part in ["python3", "slugify.py", *job["args"]])
    return "importing slugify and calling slugify(text)" if job["kind"] == "function" else "the delivery's own tests"


def _readable(fd):
    return bool(select.select([fd], [], [], 0)[0])


def _drain(fd):
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def main():
    plan = json.loads(sys.argv[1])
    _warm_stdlib()
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": "/tmp",
    }
    python, source = plan["python"], plan["source_file"]
    code = _compiled(os.path.join(plan["project"], source), plan["memory_bytes"])
    jobs: list[dict[str, Any]] = [{"kind": "function"}]
    for entry in plan["cli"]:
        job = {"kind": "cli", "args": entry["args"], "fresh": entry["fresh"]}
        jobs.append(dict(job, exec=[python, source] + entry["args"]) if entry["fresh"] else dict(job, code=code))
    if plan["agent_tests"]:
        jobs.append(
            {
                "kind": "agent-tests",
                "exec": [python, "-m", "unittest", "discover", "-s", plan["agent_tests"]],
                "stderr": True,
            }
        )
    os.environ.clear()  # once here, inherited by every forked child (exec'd ones get env explicitly)
    os.environ.update(env)
    observed, reran = run_all_confirming_hangs(plan, jobs, env)
    agent_tests = observed.pop() if plan["agent_tests"] else None
    function = observed[0]
    lines = [line for line in function.pop("stdout").splitlines() if line.startswith(FUNCTION_MARK)]
    try:
        function["report"] = json.loads(lines[-1][len(FUNCTION_MARK) :]) if lines else None
    except ValueError:
        function["report"] = None
    observations = {"cli": observed[1:], "function": function, "agent_tests": agent_tests, "reran": reran}
    sys.stdout.write(json.dumps(observations) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
