"""A throw-away Paperclip server for one reproduction: the standard library and httpx only, no harness code.

A reproduction runs against an ``npm install paperclipai@<PINNED_VERSION>``
folder: ``PAPERCLIP_INSTALL``, else the folder ``make paperclip`` fills
(``/var/cache/everyday-evals/paperclip`` as root, ``<repo>/.cache/paperclip``
otherwise). Each instance has its own folder (home, data, temp), its own
server and embedded-Postgres ports and its own agent JWT secret, so nothing
touches a Paperclip the maintainer already runs. Its data folder is a copy
of a prepared one (config written by ``paperclipai onboard``, database
initialised and migrated): the install folder's ``template-<version>`` if
``make paperclip`` made it, else one made here once by onboarding.

The board API is used unauthenticated, as Paperclip's ``local_trusted``
mode (what ``onboard --yes`` configures) serves it on loopback. Agents are
``process`` agents running ``sh -c <script>``; the script's ``$0`` is the
instance folder, which is how teardown finds every process the instance
started (the server names it in an argument it ignores, Postgres in its data
folder).

Exit status of a reproduction (see :func:`main`): 1 while the defect
reproduces, 0 once it does not, 2 when it could not run at all.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import httpx

PINNED_VERSION = "2026.824.1"
REPRODUCED, NOT_REPRODUCED, CANNOT_RUN = 1, 0, 2
# The server logs this once its start-up sweep of "running" runs is over (heartbeat.reapOrphanedRuns).
READY_LINE = "startup reap of orphaned heartbeat runs complete"
POSTGRES_USER = "postgres"  # as root, Paperclip's embedded Postgres runs as this user, which must own its data
TERMINAL = {"succeeded", "failed", "cancelled", "timed_out", "interrupted"}
# An agent's ten minutes of work: the shell becomes the working process (so the run's pid is what a kill ends), and
# "$0", the instance folder, stays on its command line for teardown.
LONG_WORK = "exec python3 -c 'import time; time.sleep(600)' \"$0\""


class CannotRun(Exception):
    """The reproduction could not be carried out (Paperclip missing, a server that does not start): exit 2."""


def install_dir() -> Path:
    if folder := os.environ.get("PAPERCLIP_INSTALL"):
        return Path(folder)
    if os.geteuid() == 0:
        return Path("/var/cache/everyday-evals/paperclip")
    return Path(__file__).resolve().parents[4] / ".cache" / "paperclip"


def server_entry(install: Path) -> Path:
    """The installed server's entry point, after checking it is the pinned version."""
    manifest = install / "node_modules" / "paperclipai" / "package.json"
    entry = install / "node_modules" / "@paperclipai" / "server" / "dist" / "index.js"
    version = json.loads(manifest.read_text())["version"] if manifest.is_file() else None
    if version != PINNED_VERSION or not entry.is_file():
        found = f"version {version} is installed" if version else "it is not installed"
        raise CannotRun(
            f"needs paperclipai {PINNED_VERSION} in {install} (set PAPERCLIP_INSTALL, or run `make paperclip`), but {found}"
        )
    return entry.resolve()  # the server starts only when its own (real) path is argv[1] (its isMainModule)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def chown_to_postgres(path: Path) -> None:
    """Postgres refuses to run as root; as root the embedded one switches to ``postgres``, which must own its folder."""
    if os.geteuid() != 0:
        return
    try:
        user = pwd.getpwnam(POSTGRES_USER)
    except KeyError:
        raise CannotRun("running as root needs a 'postgres' user for the embedded Postgres") from None
    for folder, _, files in os.walk(path):
        os.chown(folder, user.pw_uid, user.pw_gid)
        for name in files:
            os.chown(os.path.join(folder, name), user.pw_uid, user.pw_gid)


def our_processes(marker: str) -> list[tuple[int, int]]:
    """(pid, process group) of every process whose command line names ``marker``."""
    listing = subprocess.run(["ps", "-eo", "pid=,pgid=,args="], capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        pid, pgid, args = line.split(None, 2)
        if marker in args and int(pid) != os.getpid():
            found.append((int(pid), int(pgid)))
    return found


def pid_alive(pid: int) -> bool:
    """Plain OS fact: the process exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")


class Paperclip:
    """One isolated server; ``with Paperclip() as pc:`` starts it and removes everything it started afterwards."""

    def __init__(self) -> None:
        self.install = install_dir()
        self.entry = server_entry(self.install)
        self.root = Path(tempfile.mkdtemp(prefix="paperclip-repro-")).resolve()
        self.root.chmod(0o755)  # the postgres user must reach its data folder inside
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.base_url, timeout=20)
        self.server: subprocess.Popen[bytes] | None = None
        self.company_id = ""
        self.signing_secret = os.urandom(32).hex()  # without it Paperclip answers 500 to a tool action's approval

    @property
    def config_path(self) -> Path:
        return self.root / "data" / "instances" / "default" / "config.json"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.root / "home"),
            "TMPDIR": str(self.root / "tmp"),
            "PAPERCLIP_HOME": str(self.root / "data"),
            "PAPERCLIP_INSTANCE_ID": "default",
            "PAPERCLIP_CONFIG": str(self.config_path),
            "PAPERCLIP_TELEMETRY_DISABLED": "1",
            "DO_NOT_TRACK": "1",
            "PAPERCLIP_UPDATE_CHECK": "0",
            "PAPERCLIP_NO_BROWSER": "1",
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "PAPERCLIP_TOOL_ACTION_SIGNING_SECRET": self.signing_secret,
        }

    # ---- set-up -------------------------------------------------------------------

    def _prepared_data(self) -> Path:
        """A data folder with config and a migrated database: ``make paperclip``'s template, else one onboarded here."""
        template = self.install / f"template-{PINNED_VERSION}"
        if (template / "ready").is_file():
            return template
        return self._onboard()

    def _onboard(self) -> Path:
        """``paperclipai onboard --yes`` writes the config; the database is made by the first server start."""
        made = self.root / "onboarded"
        for folder in ("home", "tmp", "data"):
            (made / folder).mkdir(parents=True, exist_ok=True)
        env = self.env() | {
            "HOME": str(made / "home"),
            "TMPDIR": str(made / "tmp"),
            "PAPERCLIP_HOME": str(made / "data"),
        }
        env["PAPERCLIP_CONFIG"] = str(made / "data" / "instances" / "default" / "config.json")
        env["PORT"] = str(free_port())  # the server onboarding starts must not hold the port this instance will use
        cli = self.install / "node_modules" / ".bin" / "paperclipai"
        with open(self.root / "onboard.log", "wb") as out:
            onboard = subprocess.Popen(
                [str(cli), "onboard", "--yes", "--no-install-service", "-d", str(made / "data")],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        config = Path(env["PAPERCLIP_CONFIG"])
        deadline = time.monotonic() + 120
        while onboard.poll() is None and not config.is_file() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)  # onboarding goes on to start a server; only the config it wrote is kept
        if onboard.poll() is None:
            os.killpg(onboard.pid, signal.SIGTERM)
            onboard.wait(60)
        if not config.is_file():
            raise CannotRun(f"`paperclipai onboard` wrote no config: {(self.root / 'onboard.log').read_text()[-2000:]}")
        shutil.rmtree(config.parent / "db", ignore_errors=True)  # a half-made cluster; the first start makes it
        return made

    def _prepare(self) -> None:
        source = self._prepared_data()
        for folder in ("home", "tmp", "work"):
            (self.root / folder).mkdir(exist_ok=True)
        if source != self.root / "onboarded":
            subprocess.run(["cp", "-a", str(source / "data"), str(self.root / "data")], check=True)
        else:
            shutil.move(str(source / "data"), str(self.root / "data"))
        config = json.loads(self.config_path.read_text().replace(str(source), str(self.root)))
        config["server"]["port"] = self.port
        config["database"]["embeddedPostgresPort"] = free_port()
        config["database"]["backup"]["enabled"] = False
        config["telemetry"]["enabled"] = False
        self.config_path.write_text(json.dumps(config, indent=2))
        secret = os.urandom(32).hex()
        (self.config_path.parent / ".env").write_text(f"PAPERCLIP_AGENT_JWT_SECRET={secret}\n")
        database = Path(config["database"]["embeddedPostgresDataDir"])
        database.mkdir(mode=0o700, exist_ok=True)
        if (database / "postgresql.conf").is_file():  # nothing left in /dev/shm or /tmp by a killed postmaster
            with open(database / "postgresql.conf", "a") as conf:
                conf.write("\ndynamic_shared_memory_type = mmap\nunix_socket_directories = ''\n")
        chown_to_postgres(database)

    # ---- the server ---------------------------------------------------------------

    def start(self, timeout: float = 180) -> None:
        """Start (or start again on the same data) and return once the start-up reap of orphaned runs is over."""
        if not self.config_path.is_file():
            self._prepare()
        offset = self.log.stat().st_size if self.log.exists() else 0
        with open(self.log, "ab") as out:
            self.server = subprocess.Popen(
                ["node", str(self.entry), f"--repro-instance={self.root}"],
                env=self.env() | {"PAPERCLIP_AGENT_JWT_SECRET": self._secret()},
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                raise CannotRun(f"the Paperclip server exited with {self.server.returncode}: {self._log_tail()}")
            if READY_LINE in self.log.read_text(errors="replace")[offset:] and self._healthy():
                break
            time.sleep(0.1)
        else:
            raise CannotRun(f"the Paperclip server was not ready after {timeout} s: {self._log_tail()}")
        if not self.company_id:
            self.company_id = self.post("/api/companies", {"name": "Reproduction"})["id"]

    def _log_tail(self) -> str:
        """The end of the server's output (the instance folder, with its log, is removed on the way out)."""
        return "\n" + self.log.read_text(errors="replace")[-2000:] if self.log.exists() else "(no output)"

    def _secret(self) -> str:
        return (self.config_path.parent / ".env").read_text().split("=", 1)[1].strip()

    def _healthy(self) -> bool:
        try:
            return self.http.get("/api/health").status_code == 200
        except httpx.TransportError:
            return False

    def stop(self, sig: signal.Signals) -> None:
        """Send the server one signal, as an operator (or the kernel) would, and wait until it is gone."""
        assert self.server is not None
        self.server.send_signal(sig)
        self.server.wait(60)

    def close(self) -> None:
        """Stop the server, end every process of this instance, remove its folder (the log is kept on failure)."""
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(30)
            except subprocess.TimeoutExpired:
                self.server.kill()
        marker = str(self.root)
        for pid, _ in our_processes(marker):  # a Postgres left by a killed server: a fast shutdown
            os.kill(pid, signal.SIGINT)
        deadline = time.monotonic() + 15
        while our_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid, pgid in our_processes(marker):
            for ending in (functools.partial(os.killpg, pgid), functools.partial(os.kill, pid)):
                try:
                    ending(signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.http.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Paperclip:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the public API -----------------------------------------------------------

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self.http.request(method, path, json=body)
        if response.status_code >= 400:
            raise CannotRun(f"{method} {path} -> {response.status_code}: {response.text[:300]}")
        return response.json() if response.content else None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.request("POST", path, body)

    def process_agent(self, name: str, script: str, grace_sec: int = 2) -> str:
        """A ``process`` agent running ``sh -c <script>`` (its ``$0`` names this instance's folder)."""
        config: dict[str, Any] = {
            "command": "sh",
            "args": ["-c", script, str(self.root)],
            "cwd": str(self.root / "work"),
        }
        config["graceSec"] = grace_sec
        payload = {"name": name, "role": "engineer", "adapterType": "process", "adapterConfig": config}
        return str(self.post(f"/api/companies/{self.company_id}/agents", payload)["id"])

    def assign_issue(self, title: str, agent_id: str) -> str:
        """A new issue assigned to the agent: Paperclip wakes the agent for it."""
        payload = {"title": title, "description": title, "assigneeAgentId": agent_id, "status": "todo"}
        return str(self.post(f"/api/companies/{self.company_id}/issues", payload)["id"])

    def runs(self, issue_id: str) -> list[dict[str, Any]]:
        """The issue's runs, oldest first, each as ``GET /api/heartbeat-runs/:id`` answers it."""
        listed = sorted(self.get(f"/api/issues/{issue_id}/runs"), key=lambda r: r["createdAt"])
        return [self.run(r["runId"]) for r in listed]

    def run(self, run_id: str) -> dict[str, Any]:
        return self.get(f"/api/heartbeat-runs/{run_id}")  # type: ignore[no-any-return]

    def started_run(self, issue_id: str, run_id: str | None = None) -> dict[str, Any]:
        """Wait until the issue's first run (or run ``run_id``) has a process, and return it."""

        def probe() -> dict[str, Any] | None:
            return next((r for r in self.runs(issue_id) if r["processPid"] and run_id in (None, r["id"])), None)

        return wait_for(f"a run of issue {issue_id} with a process", probe)  # type: ignore[no-any-return]

    def ended_run(self, run_id: str) -> dict[str, Any]:
        """Wait until the run is in a terminal status, and return it."""

        def probe() -> dict[str, Any] | None:
            run = self.run(run_id)
            return run if run["status"] in TERMINAL else None

        return wait_for(f"run {run_id} to end", probe)  # type: ignore[no-any-return]

    def events(self, run_id: str) -> list[dict[str, Any]]:
        return self.get(f"/api/heartbeat-runs/{run_id}/events")  # type: ignore[no-any-return]

    def activity(self) -> list[dict[str, Any]]:
        return self.get(f"/api/companies/{self.company_id}/activity")  # type: ignore[no-any-return]


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 120) -> Any:
    """Poll until ``probe`` returns something truthy; a timeout means the reproduction could not be carried out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.1)
    raise CannotRun(f"timed out after {timeout} s waiting for {what}")


def quoted(path: Path) -> str:
    return shlex.quote(str(path))


def summary(run: dict[str, Any]) -> str:
    keys = ("status", "errorCode", "exitCode", "signal", "processPid")
    return ", ".join(f"{k}={run.get(k)!r}" for k in keys)


def main(title: str, reproduce: Callable[[Paperclip], tuple[bool, str]]) -> NoReturn:
    """Run one reproduction and exit 1 (defect shown), 0 (not shown) or 2 (could not run)."""
    print(f"{title}\nPaperclip {PINNED_VERSION}")
    try:
        with Paperclip() as paperclip:
            print(f"server {paperclip.base_url} (instance folder {paperclip.root})")
            shown, verdict = reproduce(paperclip)
    except CannotRun as error:
        print(f"COULD NOT RUN: {error}")
        sys.exit(CANNOT_RUN)
    except Exception:
        traceback.print_exc()
        print("COULD NOT RUN: the reproduction itself failed (above)")
        sys.exit(CANNOT_RUN)
    print(("REPRODUCED: " if shown else "NOT REPRODUCED: ") + verdict)
    sys.exit(REPRODUCED if shown else NOT_REPRODUCED)
