"""An isolated Paperclip instance: own home, data folder, server port, Postgres port and temp folder.

The data folder is a copy of the prepared template (:mod:`.install`), so no
initdb or migration runs per cell. Every process the instance starts names
its folder on its command line (the server an extra argument it ignores,
Postgres its ``-D`` data folder, the scripted agent ``--instance``), which is
how teardown finds them even after the harness that started them was killed;
Postgres' own workers are found as the postmaster's children.
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import httpx
import psutil

from everyday_paperclip import install
from everyday_paperclip.api import PaperclipApi
from everyday_paperclip.promises import HOT_RESTART, SIGTERM_DRAIN
from harness.agents import issued_secrets
from harness.products.base import InstanceError
from harness.products.processes import free_port, kill_groups, marked_processes, process_group_alive, stop_process
from harness.products.processes import process_alive as _process_alive

__all__ = ["PaperclipInstance", "free_port", "paperclip_env"]

COMPANY_NAME = "Everyday Evals"
# Paperclip stamps a run's process start itself, a little after the spawn; a recycled pid is still minutes away.
START_TIME_TOLERANCE_S = 1.0
# Where Paperclip reads a hot-restart request and writes what its adoption pass did (services/hot-restart.js).
HOT_RESTART_INTENT = "hot-restart-intent.json"
HOT_RESTART_REPORT = "hot-restart-report.json"


def paperclip_env(root: Path, port: int, jwt_secret: str | None, signing_secret: str | None = None) -> dict[str, str]:
    """A cleared environment: nothing of the harness's (no keys) reaches Paperclip or its agents.

    ``signing_secret``: what Paperclip signs the stored arguments of an Ask-first tool call with (without it an
    approval answers 500, ``signing_secret_unconfigured``).
    """
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(root / "home"),
        "TMPDIR": str(root / "tmp"),
        "PAPERCLIP_HOME": str(root / "data"),
        "PAPERCLIP_INSTANCE_ID": install.INSTANCE_NAME,
        "PAPERCLIP_CONFIG": str(root / "data" / "instances" / install.INSTANCE_NAME / "config.json"),
        "PAPERCLIP_TELEMETRY_DISABLED": "1",
        "DO_NOT_TRACK": "1",
        "PAPERCLIP_UPDATE_CHECK": "0",
        "PAPERCLIP_NO_BROWSER": "1",
        "PORT": str(port),
        "HOST": "127.0.0.1",
    }
    if jwt_secret is not None:
        env["PAPERCLIP_AGENT_JWT_SECRET"] = jwt_secret
    if signing_secret is not None:
        env["PAPERCLIP_TOOL_ACTION_SIGNING_SECRET"] = signing_secret
    return env


# Start-up milestones, each observed where it happens rather than in the server's log: in its default (non-production)
# mode Paperclip logs through a pino-pretty worker thread, so a line reaches the file late (sometimes after
# /api/health answered: docs/measurements.md, "Paperclip start-up"). In order: the
# server has loaded its code and spawned its Postgres (a child process exists), Postgres marks itself ready in its
# postmaster.pid, /api/health answers, and the startup sweep's line is in the log (the one milestone only the log shows).
CODE_LOADED = "code loaded"
POSTGRES_READY = "postgres ready"
HTTP_UP = "http up"
SWEPT = "swept"
POSTMASTER_READY = "ready"  # the status Postgres writes on its postmaster.pid's last line once it accepts connections


class PaperclipInstance:
    __test__ = False

    def __init__(
        self,
        root: Path | None = None,
        pace: float = 0.05,
        model_upstream: str | None = None,
        fresh: bool = True,
        keep_data: bool = False,
        create_company: bool = True,
        startup_timeout: float = 90.0,
    ) -> None:
        self.root = (root or Path(tempfile.mkdtemp(prefix="paperclip-"))).resolve()
        self.root.chmod(0o755)  # the postgres user must reach its data folder inside
        self.data_dir = self.root
        self.pace = pace
        self.model_upstream = model_upstream
        self.fresh = fresh
        self.keep_data = keep_data
        self.create_company = create_company
        self.startup_timeout = startup_timeout
        self.port = free_port()
        self.postgres_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.jwt_secret = secrets.token_hex(32)
        self.signing_secret = secrets.token_hex(32)
        self.company_id: str | None = None
        self.database_dir = self.instance_dir / "db"  # where the config puts Postgres' data (set again by _prepare)
        self.process: subprocess.Popen[bytes] | None = None
        self.startup_s: float | None = None
        # Seconds from launch at which each start-up milestone was seen (CODE_LOADED .. SWEPT): what dominates start-up.
        self.startup_milestones: dict[str, float] = {}
        self._api: PaperclipApi | None = None
        self._prepared = False
        self._closed = False
        atexit.register(self.close)

    # ---- paths ------------------------------------------------------------------

    @property
    def instance_dir(self) -> Path:
        return self.root / "data" / "instances" / install.INSTANCE_NAME

    @property
    def config_path(self) -> Path:
        return self.instance_dir / "config.json"

    @property
    def workspaces(self) -> Path:
        """Where the scripted agent works, one folder per issue."""
        return self.root / "workspaces"

    @property
    def agent_workspaces(self) -> Path:
        return self.workspaces

    def issued_secrets(self) -> dict[str, str]:
        """The agent JWT and tool-action signing secrets this harness gave the instance, and each run token our
        agent-side programs received (Paperclip mints them; the scripted runner and the CLIs' tool server list
        them)."""
        tokens = issued_secrets.read(self.root / issued_secrets.LEDGER_NAME, proxy_keys=False)
        return {
            "Paperclip agent JWT secret issued to the instance": self.jwt_secret,
            "Paperclip tool action signing secret issued to the instance": self.signing_secret,
            **tokens,
        }

    @property
    def server_log(self) -> Path:
        return self.root / "logs" / "server.log"

    def log_paths(self) -> list[Path]:
        """The server's output and Paperclip's own log files."""
        own = sorted((self.instance_dir / "logs").glob("*.log")) if (self.instance_dir / "logs").exists() else []
        return [p for p in [self.server_log, *own] if p.is_file()]

    @property
    def api(self) -> PaperclipApi:
        if self._api is None:
            if self.company_id is None:
                raise InstanceError("the instance has no company yet: start it first")
            self._api = PaperclipApi(
                self.base_url, self.company_id, self.workspaces, agent_settings=self.agent_settings()
            )
        return self._api

    def agent_settings(self) -> dict[str, str]:
        """What the scripted agent's process needs besides Paperclip's own variables."""
        settings = {"instance": str(self.root), "pace": str(self.pace), "workspaces": str(self.workspaces)}
        if self.model_upstream:  # where CLI agents' model calls go: the harness's replay server
            settings["model_upstream"] = self.model_upstream
        return settings

    # ---- lifecycle --------------------------------------------------------------

    def prepare(self) -> None:
        """Copy the template now (``start`` does it on first use); the start-up benchmark times it apart."""
        if not self._prepared:
            self._prepare()

    def _prepare(self) -> None:
        """Copy the template, give this copy its own ports and secret, and hand the database to postgres."""
        for folder in ("home", "tmp", "logs", "workspaces"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        (self.root / "workspaces").chmod(0o755)
        if self.fresh:
            template = install.template()
            subprocess.run(["cp", "-a", str(template / "data"), str(self.root / "data")], check=True)
            text = self.config_path.read_text().replace(str(template), str(self.root))
        else:
            text = self.config_path.read_text()
        config = json.loads(text)
        config["server"]["port"] = self.port
        config["database"]["embeddedPostgresPort"] = self.postgres_port
        config["database"]["backup"]["enabled"] = False
        config["telemetry"]["enabled"] = False  # onboarding turns it on
        self.config_path.write_text(json.dumps(config, indent=2) + "\n")
        (self.instance_dir / ".env").write_text(f"PAPERCLIP_AGENT_JWT_SECRET={self.jwt_secret}\n")
        self.database_dir = database = Path(config["database"]["embeddedPostgresDataDir"])
        database.mkdir(mode=0o700, exist_ok=True)
        if self.fresh:
            # Postgres keeps its dynamic shared memory in /dev/shm by default, where a postmaster that is
            # killed (a SIGKILL restart, a killed harness) leaves its segments for ever; in the data folder
            # (`mmap`) they go with the instance's folder. Its Unix socket and that socket's lock file go in
            # /tmp, where a killed postmaster left them too: Paperclip connects over TCP (127.0.0.1), so there
            # is no socket.
            with open(database / "postgresql.conf", "a") as conf:
                conf.write("\ndynamic_shared_memory_type = mmap  # everyday-evals: segments stay in this folder\n")
                conf.write("unix_socket_directories = ''  # everyday-evals: TCP only, nothing left in /tmp\n")
        install.chown_tree(database, install.postgres_owner())
        self._prepared = True

    def start(self) -> PaperclipInstance:
        """Start (or start again, on the same data and ports) and return once runs can safely be created.

        The server entry runs directly under the machine's node with no flags: the
        ``paperclipai run`` wrapper is not needed once the config exists. Start-up
        is CPU-bound (loading its modules; no network, no sleep), and no launch
        option moved it beyond the noise between runs, so the server starts as the
        release ships it: the figures and the options tried are in
        docs/measurements.md ("Paperclip start-up"); ``python -m everyday_paperclip.bench``
        prints the split.
        """
        if self.process is not None and self.process.poll() is None:
            raise InstanceError("the Paperclip server is already running")
        install.require_installed()
        if not self._prepared:
            self._prepare()
        offset = self.server_log.stat().st_size if self.server_log.exists() else 0
        started = time.monotonic()
        command = ["node", str(install.SERVER_ENTRY), f"--everyday-evals-instance={self.root}"]
        with open(self.server_log, "ab") as out:
            self.process = subprocess.Popen(
                command,
                env=paperclip_env(self.root, self.port, self.jwt_secret, self.signing_secret),
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_ready(offset, started)
        self.startup_s = time.monotonic() - started
        if self.create_company and self.company_id is None:
            self.company_id = self._company()
        return self

    def _wait_ready(self, offset: int, started: float) -> None:
        """Healthy, and past the startup sweep that would reap a run created during it.

        Notes when each start-up milestone is first seen (within one poll), so the
        start-up benchmark can say which part dominates.
        """
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        self.startup_milestones = {}
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise InstanceError(f"the Paperclip server exited with {self.process.returncode}: {self._log_tail()}")
            for milestone in self._milestones_now(offset):
                self.startup_milestones.setdefault(milestone, round(time.monotonic() - started, 2))
            if HTTP_UP in self.startup_milestones and SWEPT in self.startup_milestones:
                return
            time.sleep(0.05)
        raise InstanceError(f"Paperclip not ready after {self.startup_timeout} s: {self._log_tail()}")

    def _milestones_now(self, offset: int) -> list[str]:
        """The milestones reached by now, checking only those not yet seen (cheap ones first)."""
        assert self.process is not None
        seen = self.startup_milestones
        reached = []
        if CODE_LOADED not in seen:
            try:
                if psutil.Process(self.process.pid).children():
                    reached.append(CODE_LOADED)
            except psutil.Error:
                pass
        if POSTGRES_READY not in seen and (CODE_LOADED in seen or reached) and self._postmaster_ready():
            reached.append(POSTGRES_READY)
        if HTTP_UP not in seen:
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=1).status_code == 200:
                    reached.append(HTTP_UP)
            except httpx.TransportError:
                pass
        if SWEPT not in seen and install.READY_LINE in self._log_since(offset):
            reached.append(SWEPT)
        return reached

    def _postmaster_ready(self) -> bool:
        try:
            lines = (self.database_dir / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False
        return bool(lines) and lines[-1].strip() == POSTMASTER_READY

    def _log_since(self, offset: int) -> str:
        with open(self.server_log, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")

    def _log_tail(self) -> str:
        return self.server_log.read_text(errors="replace")[-3000:] if self.server_log.exists() else "(no log)"

    def _company(self) -> str:
        """The one company every cell works in (the template has none)."""
        http = httpx.Client(base_url=self.base_url, timeout=15)
        try:
            existing = http.get("/api/companies").raise_for_status().json()
            if existing:
                return str(existing[0]["id"])
            created = http.post("/api/companies", json={"name": COMPANY_NAME}).raise_for_status().json()
            return str(created["id"])
        finally:
            http.close()

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 30.0) -> None:
        """Stop the server process only; runs it spawned (own sessions) keep going, Postgres goes on SIGTERM."""
        stop_process(self.process, sig, timeout, "the Paperclip server")

    # ---- Paperclip's own hot restart (promises.HOT_RESTART) ------------------------

    hot_restart_promise = HOT_RESTART.id
    drain_promise = SIGTERM_DRAIN.id  # a plain SIGTERM, without a restart request
    # A drained run whose own end was recorded first gets no retry from the drain; Paperclip's restart recovery
    # (reconcileStrandedAssignedIssues) takes its issue up again: once as the server starts, then every 30 s
    # (heartbeatSchedulerIntervalMs). Two passes.
    drain_recovery_s = 60.0
    hot_restart_mechanism = (
        "Paperclip's hot-restart intent written as `paperclipai service restart` writes it (restartManagedService,"
        " writeHotRestartIntent: <instance>/hot-restart-intent.json naming the running server's pid), then SIGTERM to"
        " that server as its service manager's restart sends it, then the server started again on the same data"
    )

    @property
    def hot_restart_intent_path(self) -> Path:
        return self.instance_dir / HOT_RESTART_INTENT

    def request_hot_restart(self) -> dict[str, object]:
        """Write Paperclip's hot-restart intent for the running server, exactly as its CLI does; returns it.

        ``paperclipai service restart`` needs a service manager (systemd or
        launchd) to send the signal and start the server again, and this
        machine has none: the caller sends the signal (``stop_controller``)
        and starts the server (``start``), the two steps the manager's restart
        is. The fields are the CLI's: version 1, when, the server's pid, its
        version from /api/health, no drain, no requesting run.
        """
        if self.process is None or self.process.poll() is not None:
            raise InstanceError("no running Paperclip server to hot-restart")
        health = httpx.get(f"{self.base_url}/api/health", timeout=5).raise_for_status().json()
        intent: dict[str, object] = {
            "version": 1,
            "requestedAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "previousServerPid": self.process.pid,
            "previousServerVersion": health.get("serverVersion") or health.get("version"),
            "drainRequired": False,
            "requestedByRunId": None,
        }
        (self.instance_dir / HOT_RESTART_REPORT).unlink(missing_ok=True)
        self.hot_restart_intent_path.write_text(json.dumps(intent, indent=2) + "\n")
        return intent

    def hot_restart_report(self) -> dict[str, object] | None:
        """The report the new server wrote on its adoption pass (adopted, skipped, lost runs), if any."""
        try:
            report: dict[str, object] = json.loads((self.instance_dir / HOT_RESTART_REPORT).read_text())
        except FileNotFoundError:
            return None
        return report

    def restart(self, sig: signal.Signals = signal.SIGTERM) -> None:
        self.stop_controller(sig)
        self.start()

    def processes(self) -> list[psutil.Process]:
        """Every live process of this instance: server, Postgres with its workers, agent runs, their helpers."""
        return marked_processes(str(self.root), with_children=True)

    @staticmethod
    def process_alive(pid: int, start_time: float) -> bool:
        return _process_alive(pid, start_time, tolerance=START_TIME_TOLERANCE_S)

    process_group_alive = staticmethod(process_group_alive)

    def close(self) -> None:
        """Stop the server (it stops its Postgres), then kill whatever is left; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        try:
            self.stop_controller(signal.SIGTERM)
        except InstanceError:
            pass
        kill_groups(self.processes())
        if self._api is not None:
            self._api.close()
        if not self.keep_data:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PaperclipInstance:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
