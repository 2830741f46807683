"""In-container collector: run the delivered test suite against each implementation and print raw observations.

This file is never imported by the oracle; its source runs as ``python3 -c``
inside the sandbox, so it must stay standalone (stdlib only, Python 3.11).
It judges nothing: for each implementation in the plan (the reference
first, then the faulty ones, told apart only by their order) it makes a
fresh folder with a random name, writes the implementation there as
slugify.py beside a copy of the delivered test module, and runs
``python3 -m unittest`` there in a child process with a timeout. It records
the exit status, the tail of unittest's output, and what the child's audit
hook reported. The host maps the order back to names and decides.

Why a fresh interpreter (fork, then exec) and not a forked copy of this
process: this process holds the plan, and with it every faulty source. The
child is `python3 -I -B -c BOOT`: BOOT installs an audit hook *before* the
suite is imported. The hook refuses, and records, every file access outside
the suite's folder and the standard library, every socket, every process
start, ctypes and the gc walks that could reach past it. Below the hook,
RLIMIT_NPROC lets the kernel refuse any new process or thread outright. Records go to an
inherited pipe this process reads as they are written, so the suite cannot
take them back; a refused attempt stays refused even if the suite spoils
the pipe.

One run at a time (so runs never contend for the container's CPU and a
run's time limit measures that run alone), each bounded by the plan's
per-run timeout. A run that times out is run once more (a machine stalled
by other work once froze an honest suite past its limit); if it times out
again the rest are not started, so a suite that never finishes costs two
timeouts, not two per implementation.
"""

import json
import os
import resource
import selectors
import shutil
import signal
import sys
import tempfile
import time

CHANNEL_FD = 3
"""The audit channel's number in the child (stdin, stdout and stderr come first)."""

BOOT = r"""
import json, os, sys
fd, folder, cap = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sys.argv[:] = ["python3 -m unittest"]
sys.path.insert(0, folder)
import unittest  # the runner is the oracle's, loaded before the hook
import _posixsubprocess  # loaded here so its fork_exec below is the only one the suite can find

def _refused(*args, **kwargs):
    sys.audit("subprocess.fork_exec")
    raise PermissionError("hands-off: starting a process is refused")

_posixsubprocess.fork_exec = _refused
system = tuple(
    os.path.realpath(p) + os.sep for p in sys.path[1:] if p and os.path.isdir(p) and os.path.realpath(p) != folder
)
inside = (folder + os.sep,) + system
# Which arguments of each event are paths. "import" carries one only when native code is loaded from a file
# (_imp.create_dynamic): a module the ZIP smuggled in elsewhere would run outside this hook.
PATHS = {"open": (0,), "os.listdir": (0,), "os.scandir": (0,), "os.mkdir": (0,), "os.remove": (0,),
         "os.rmdir": (0,), "os.rename": (0, 1), "os.symlink": (0, 1), "os.link": (0, 1), "os.chmod": (0,),
         "os.chown": (0,), "os.truncate": (0,), "os.utime": (0,), "os.chdir": (0,), "shutil.copyfile": (0, 1),
         "shutil.copytree": (0, 1), "shutil.rmtree": (0,), "shutil.move": (0, 1), "glob.glob": (0,), "import": (1,)}
FORBIDDEN = ("socket.", "subprocess.", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.system",
             "os.kill", "os.killpg", "os.forkpty", "pty.", "ctypes.", "gc.get_", "sys.remote_exec",
             "urllib.Request", "http.client.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.",
             "telnetlib.", "webbrowser.", "sqlite3.connect", "os.startfile", "_posixsubprocess.")
state = {"busy": False, "count": 0}

def _outside(path):
    if path is None or isinstance(path, int):
        return None
    try:
        text = os.fsdecode(path)
    except TypeError:
        return None
    real = os.path.realpath(os.path.join(os.getcwd(), text))
    if real == folder or real == os.devnull or (real + os.sep).startswith(inside):
        return None
    return text

def _record(event, detail):
    state["count"] += 1
    if state["count"] <= cap:
        os.write(fd, (json.dumps({"violation": event, "detail": detail[:200]}) + "\n").encode())
    raise PermissionError("hands-off: %s %s is refused" % (event, detail[:80]))

def _hook(event, args):
    if state["busy"]:
        return
    state["busy"] = True
    try:
        if event in PATHS:
            for index in PATHS[event]:
                seen = _outside(args[index]) if index < len(args) else None
                if seen is not None:
                    _record(event, seen)
        elif event.startswith(FORBIDDEN):
            _record(event, repr(args)[:200])
    finally:
        state["busy"] = False

sys.addaudithook(_hook)
program = unittest.main(module=None, exit=False)
result = program.result
summary = {"run": result.testsRun, "failures": len(result.failures), "errors": len(result.errors),
           "skipped": len(result.skipped), "unexpected_successes": len(result.unexpectedSuccesses),
           "ok": result.wasSuccessful(), "violations": state["count"]}
sys.stdout.flush()
sys.stderr.flush()
os.write(fd, (json.dumps({"result": summary}) + "\n").encode())
os._exit(0 if result.wasSuccessful() else 1)
"""
"""What the child runs: the audit hook, then exactly what `python3 -m unittest` does (discovery in its folder)."""


def _child(plan, folder, out_w, channel_w):
    """Runs in the forked child: isolate, limit, exec the bootstrap. Never returns."""
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(out_w, 2)
        os.dup2(channel_w, CHANNEL_FD)
        os.closerange(CHANNEL_FD + 1, 1024)
        os.set_inheritable(CHANNEL_FD, True)
        memory = plan["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # No new process or thread, whatever Python trick the suite finds past its audit hook (a fresh copy of
        # _posixsubprocess made with _imp raises no audit event): the kernel refuses, as the user already has more.
        resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))
        os.chdir(folder)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": folder, "TMPDIR": folder, "LC_ALL": "C.UTF-8"}
        argv = [plan["python"], "-I", "-B", "-c", BOOT, str(CHANNEL_FD), folder, str(plan["violation_limit"])]
        os.execvpe(plan["python"], argv, env)
    except BaseException:
        os._exit(127)
    os._exit(127)


def _channel(raw):
    """The audit channel's lines: violations, the runner's result, and whether anything else was written."""
    violations, result, tampered = [], None, False
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            tampered = True
            continue
        if isinstance(item, dict) and isinstance(item.get("violation"), str):
            violations.append("%s %s" % (item["violation"], item.get("detail", "")))
        elif isinstance(item, dict) and isinstance(item.get("result"), dict) and result is None:
            result = item["result"]
        else:
            tampered = True
    return violations, result, tampered


def run_suite(plan, suite, source):
    """One run of the suite against one implementation, in a fresh folder; returns its raw observation."""
    try:  # /tmp is small and shared with the suite: an earlier run may have filled it
        folder = os.path.realpath(tempfile.mkdtemp(prefix="suite-", dir="/tmp"))
        with open(os.path.join(folder, "slugify.py"), "w", encoding="utf-8") as handle:
            handle.write(source)
        with open(os.path.join(folder, plan["test_module"]), "wb") as handle:
            handle.write(suite)
    except OSError as error:
        return {"error": "could not prepare its folder: %s" % error}
    out_r, out_w = os.pipe()
    channel_r, channel_w = os.pipe()
    started = time.monotonic()
    try:
        pid = os.fork()
    except OSError as error:
        for fd in (out_r, out_w, channel_r, channel_w):
            os.close(fd)
        return {"error": "could not start: %s" % error}
    if pid == 0:
        _child(plan, folder, out_w, channel_w)
    os.close(out_w)
    os.close(channel_w)
    buffers = {out_r: bytearray(), channel_r: bytearray()}
    limits = {out_r: plan["output_limit"], channel_r: plan["channel_limit"]}
    flooded = {out_r: False, channel_r: False}
    selector = selectors.DefaultSelector()
    for fd in buffers:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    status, timed_out = None, False
    while True:
        for key, _ in selector.select(timeout=0.02):
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(key.fd)
                continue
            kept = buffers[key.fd]
            kept += chunk
            if len(kept) > limits[key.fd]:  # keep the tail: unittest's summary is at the end
                flooded[key.fd] = True
                del kept[: len(kept) - limits[key.fd]]
        if status is None:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
        if status is not None and not selector.get_map():
            break
        if time.monotonic() - started > plan["command_timeout_s"]:
            timed_out = status is None
            break
        if status is not None and time.monotonic() - started > plan["command_timeout_s"] / 2 + 0.5:
            break  # exited, but something it left behind holds the pipes open: stop reading
    try:
        os.killpg(pid, signal.SIGKILL)  # the suite's whole session, leftovers included
    except (ProcessLookupError, PermissionError):
        pass
    if status is None:
        try:
            _, raw = os.waitpid(pid, 0)
            status = None if timed_out else os.waitstatus_to_exitcode(raw)
        except ChildProcessError:
            pass
    _reap_orphans()
    selector.close()
    os.close(out_r)
    os.close(channel_r)
    shutil.rmtree(folder, ignore_errors=True)
    violations, result, tampered = _channel(bytes(buffers[channel_r]))
    return {
        "exit": None if timed_out else status,
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - started, 3),
        "output_tail": bytes(buffers[out_r][-2000:]).decode("utf-8", "replace"),
        "result": result,
        "violations": violations,
        "channel_tampered": tampered or flooded[channel_r],
    }


def _reap_orphans():
    """Running as PID 1, collect whatever the suite left behind so zombies cannot eat the pid budget."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    plan = json.loads(sys.argv[1])
    with open(os.path.join(plan["project"], plan["test_module"]), "rb") as handle:
        suite = handle.read()
    runs: list[dict] = []
    reran: list[dict] = []
    implementations = plan["implementations"]
    for number, source in enumerate(implementations, start=1):
        if any(run.get("timed_out") for run in runs):
            runs.append({"started": False})
            continue
        run = run_suite(plan, suite, source)
        if run.get("timed_out"):  # once more before it counts: a machine stalled by other work can freeze a run
            run = run_suite(plan, suite, source)
            what = "the suite's run %d of %d (the reference's is run 1)" % (number, len(implementations))
            reran.append({"what": what, "finished": not run.get("timed_out")})
        runs.append(run)
    sys.stdout.write(json.dumps({"runs": runs, "reran": reran}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
