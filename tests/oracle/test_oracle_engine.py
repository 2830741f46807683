"""How a grade reaches the engine: which engine, in which API version, and what its answers mean.

A pinned API version (no `/version` request) and the container asked for
before pydantic is imported are start-up costs of every `python -m oracle
grade` (see `python -m bench.oracle`). The pure parts of the engine client
(reading DOCKER_HOST, log frames, refusals) are checked one function at a
time; the rest against the real engine, with the Docker SDK as a witness.
"""

from __future__ import annotations

import io
import socket
import subprocess
import sys
import threading
from pathlib import Path

import docker
import pytest

from oracle import image
from oracle.engine import (
    STDERR,
    STDOUT,
    Engine,
    EngineError,
    NotFound,
    TLSFiles,
    UnsupportedHost,
    endpoint_from_env,
    frames,
    refusal,
)
from oracle.sandbox import SandboxLimits, hardened_container, wait_bounded


def test_the_pinned_version_is_spoken_without_asking_the_engine(client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(image.API_VERSION_ENV, "1.40")  # older than the engine's own, which asking would have given
    assert image.engine().api_version == "1.40"
    monkeypatch.delenv(image.API_VERSION_ENV)
    assert image.engine().api_version == image.API_VERSION


def test_an_engine_that_refuses_the_pinned_version_is_asked_for_its_own(
    witness: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(image.API_VERSION_ENV, "9.99")  # newer than any engine speaks: it answers 400
    assert image.engine().api_version == witness.version()["ApiVersion"]
    monkeypatch.setenv(image.API_VERSION_ENV, "auto")  # the SDK's word for "ask the engine", honoured the same way
    assert image.engine().api_version == witness.version()["ApiVersion"]


def test_no_engine_is_one_cannot_grade(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(image.CannotGrade, match="make engine"):
        image.engine()


def test_the_command_line_asks_for_its_container_before_importing_pydantic_or_the_task(client, good_zip: Path) -> None:
    """The container's start runs on the engine while the host imports pydantic and the task, not after."""
    probe = (
        "import sys\n"
        "import oracle.cli, oracle.sandbox\n"
        "loaded = []\n"
        "start = oracle.sandbox.Standby.__init__\n"
        "def noting(self, *args, **kwargs):\n"
        "    loaded.extend(m for m in sys.modules if m.split('.')[0] == 'pydantic' or m.startswith('oracle.tasks.'))\n"
        "    start(self, *args, **kwargs)\n"
        "oracle.sandbox.Standby.__init__ = noting\n"
        f"code = oracle.cli.main(['grade', '--mode', 'base', {str(good_zip)!r}])\n"
        "print(code, ','.join(sorted(set(loaded))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1:] == ["0 "], done.stdout[-500:] + done.stderr[-500:]


def test_the_image_lookup_proves_the_engine_in_place_of_a_ping(
    witness: docker.DockerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, chosen = image.engine_and_image()
    assert client.api_version == image.API_VERSION and chosen.id.startswith("sha256:")
    monkeypatch.setenv(image.API_VERSION_ENV, "9.99")  # refused (400): the engine is asked for its own, then looked up
    client, again = image.engine_and_image()
    assert (client.api_version, again) == (witness.version()["ApiVersion"], chosen)
    monkeypatch.setenv(image.API_VERSION_ENV, "auto")
    assert image.engine_and_image()[0].api_version == witness.version()["ApiVersion"]
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(image.CannotGrade, match="make engine"):
        image.engine_and_image()


def test_before_its_container_request_a_grade_needs_no_installed_package_and_asks_the_engine_once(
    client, good_zip: Path
) -> None:
    """Run without site-packages (`-S`): the path to the request imports only the standard library's cheapest part,
    and looks the image up with no ping before it; the probe stops where the standby would be created."""
    probe = (
        "import os, sys\n"
        "import oracle.cli, oracle.engine, oracle.sandbox\n"
        "calls = []\n"
        "call = oracle.engine.Engine._call\n"
        "oracle.engine.Engine._call = lambda self, method, path, **o: calls.append(method + ' ' + path) or call(self, method, path, **o)\n"
        "def stop(self, *args, **kwargs):\n"
        "    heavy = ('pydantic', 'concurrent', 'logging', 'pathlib', 'urllib', 'shutil', 'pkgutil', 'typing_extensions')\n"
        "    print(';'.join(calls) + '|' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)), flush=True)\n"
        "    os._exit(0)\n"
        "oracle.sandbox.Standby.__init__ = stop\n"
        f"oracle.cli.main(['grade', '--mode', 'base', {str(good_zip)!r}])\n"
    )
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    calls, _, loaded = done.stdout.strip().partition("|")
    assert (calls, loaded) == (f"GET /images/{image.LOCAL_TAG}/json", ""), done.stdout[-500:]


# -- which engine DOCKER_HOST names (read as the docker command line and the SDK read it) --------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "unix:///var/run/docker.sock"),
        ({"DOCKER_HOST": "unix:///run/user/1000/docker.sock"}, "unix:///run/user/1000/docker.sock"),
        ({"DOCKER_HOST": "tcp://10.0.0.5:2375"}, "tcp://10.0.0.5:2375"),
        ({"DOCKER_HOST": "tcp://engine.example.invalid"}, "tcp://engine.example.invalid:2375"),
        ({"DOCKER_HOST": "http://10.0.0.5:4243"}, "tcp://10.0.0.5:4243"),
        ({"DOCKER_HOST": "tcp://[::1]:2375"}, "tcp://[::1]:2375"),
        ({"DOCKER_HOST": "tcp://10.0.0.5", "DOCKER_TLS_VERIFY": "1"}, "tcp://10.0.0.5:2376 (TLS)"),
        ({"DOCKER_HOST": "tcp://10.0.0.5:2375", "DOCKER_TLS_VERIFY": ""}, "tcp://10.0.0.5:2375"),
    ],
)
def test_docker_host_names_the_engine(environ: dict[str, str], expected: str) -> None:
    assert str(endpoint_from_env(environ)) == expected


def test_tls_files_come_from_the_cert_path_or_home_and_verify_only_when_asked() -> None:
    verified = endpoint_from_env({"DOCKER_HOST": "tcp://h:1", "DOCKER_TLS_VERIFY": "1", "HOME": "/home/u"}).tls
    assert verified == TLSFiles(
        ca=Path("/home/u/.docker/ca.pem"),
        cert=Path("/home/u/.docker/cert.pem"),
        key=Path("/home/u/.docker/key.pem"),
        verify=True,
    )
    unverified = endpoint_from_env({"DOCKER_HOST": "tcp://h:1", "DOCKER_CERT_PATH": "/certs"}).tls
    assert unverified is not None and unverified.cert == Path("/certs/cert.pem") and unverified.verify is False
    assert endpoint_from_env({"DOCKER_HOST": "unix:///s", "DOCKER_TLS_VERIFY": "1"}).tls is None


@pytest.mark.parametrize(
    ("host", "says"),
    [
        ("ssh://user@builder", "not an engine the oracle can reach"),
        ("npipe:////./pipe/docker_engine", "not an engine the oracle can reach"),
        ("unix://docker.sock", "names no socket"),
        ("tcp://:2375", "names no host"),
        ("tcp://engine:port", "not a number"),
    ],
)
def test_a_docker_host_the_oracle_cannot_use_is_one_line(host: str, says: str) -> None:
    with pytest.raises(UnsupportedHost, match=says):
        endpoint_from_env({"DOCKER_HOST": host})


def test_an_unusable_docker_host_is_cannot_grade_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "ssh://user@builder")
    with pytest.raises(image.CannotGrade, match="DOCKER_HOST 'ssh://user@builder'") as caught:
        image.engine()
    assert "\n" not in str(caught.value)


def test_a_missing_ca_is_cannot_grade(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
    monkeypatch.setenv("DOCKER_TLS_VERIFY", "1")
    monkeypatch.setenv("DOCKER_CERT_PATH", str(tmp_path))
    with pytest.raises(image.CannotGrade, match="ca.pem"):
        image.engine()


# -- what the engine answers ---------------------------------------------------------------------------------


def _frame(stream: int, payload: bytes) -> bytes:
    return bytes([stream, 0, 0, 0]) + len(payload).to_bytes(4, "big") + payload


def test_log_frames_are_demultiplexed_in_order() -> None:
    body = _frame(STDOUT, b"out 1\n") + _frame(STDERR, b"err\n") + _frame(STDOUT, b"") + _frame(STDOUT, b"out 2\n")
    assert list(frames(io.BytesIO(body).read)) == [(STDOUT, b"out 1\n"), (STDERR, b"err\n"), (STDOUT, b"out 2\n")]


def test_a_log_cut_short_keeps_what_arrived() -> None:
    whole = _frame(STDOUT, b"complete") + _frame(STDOUT, b"cut here")
    assert list(frames(io.BytesIO(whole[:-4]).read)) == [(STDOUT, b"complete"), (STDOUT, b"cut ")]
    assert list(frames(io.BytesIO(whole[:13]).read)) == [(STDOUT, b"complete"[:5])]
    assert list(frames(io.BytesIO(_frame(STDOUT, b"x") + b"\x01\x00").read)) == [(STDOUT, b"x")]  # a header cut short


@pytest.mark.parametrize(
    ("status", "body", "kind", "explanation"),
    [
        (404, b'{"message":"No such container: abc"}', NotFound, "No such container: abc"),
        (409, b'{"message":"removal of container abc is already in progress"}', EngineError, "removal of container"),
        (400, b'{"message":"client version 9.99 is too new"}\n', EngineError, "client version 9.99 is too new"),
        (500, b"plain text\nsecond line", EngineError, "plain text"),
        (502, b"", EngineError, "Bad Gateway"),
    ],
)
def test_a_refusal_keeps_the_status_and_the_engines_message(
    status: int, body: bytes, kind: type[EngineError], explanation: str
) -> None:
    error = refusal("DELETE", "/containers/abc", status, "Bad Gateway" if status == 502 else "Status", body)
    assert type(error) is kind and error.status == status and error.explanation.startswith(explanation)
    assert str(error).startswith(f"{status} ") and "\n" not in str(error)


def test_an_engine_that_went_away_is_an_engine_error_without_status(tmp_path: Path) -> None:
    client = Engine(endpoint_from_env({"DOCKER_HOST": f"unix://{tmp_path}/gone.sock"}), image.API_VERSION, 5)
    with pytest.raises(EngineError) as caught:
        client.ping()
    assert caught.value.status is None and "cannot reach the engine at unix://" in str(caught.value)


def test_something_that_is_no_engine_is_an_engine_error_not_a_crash(tmp_path: Path) -> None:
    """A socket that answers no HTTP (here: closes at once, or says something else) is one EngineError, no status."""
    path = tmp_path / "not-an-engine.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen()

    def answer() -> None:
        for reply in (b"", b"SSH-2.0-OpenSSH_9.2\r\n"):
            peer, _ = listener.accept()
            peer.recv(4096)
            peer.sendall(reply)
            peer.close()

    answering = threading.Thread(target=answer)
    answering.start()
    client = Engine(endpoint_from_env({"DOCKER_HOST": f"unix://{path}"}), image.API_VERSION, 5)
    try:
        for _ in range(2):
            with pytest.raises(EngineError, match="with no HTTP response") as caught:
                client.ping()
            assert caught.value.status is None
    finally:
        answering.join(timeout=10)
        listener.close()


def test_bounded_logs_keep_the_first_bytes_of_one_stream(client: Engine, oracle_image, witness) -> None:
    """A container writing both streams, more than the limit: the engine client gives each stream alone, cut at the limit."""
    writer = (
        "import sys\nfor i in range(2000):\n    print(f'out {i:05d}')\n    print(f'err {i:05d}', file=sys.stderr)\n"
    )
    limits = SandboxLimits()
    with hardened_container(client, oracle_image.id, ["python3", "-c", writer], limits) as container_id:
        assert wait_bounded(client, container_id, limits) == (0, False)
        stdout = client.logs(container_id, stdout=True, limit=1000)
        stderr = client.logs(container_id, stdout=False, limit=1 << 20)
        assert stdout == witness.api.logs(container_id, stdout=True, stderr=False)[:1000]
    assert stdout.startswith(b"out 00000\nout 00001\n") and len(stdout) == 1000
    assert stderr.splitlines() == [f"err {i:05d}".encode() for i in range(2000)]


def test_removing_what_is_gone_is_not_found(client: Engine) -> None:
    with pytest.raises(NotFound):
        client.remove("everyday-evals-no-such-container")


def test_a_grade_from_the_command_line_loads_no_http_library_nor_tls_nor_a_thread_pool(client, good_zip: Path) -> None:
    """The engine client is the standard library's sockets: no Docker SDK, requests, http.client or OpenSSL to load
    (80 to 130 ms of every grade when it was the SDK; ssl only for an engine reached with TLS). One ZIP's grade runs
    its side calls on threads of their own (oracle.background): no concurrent.futures, logging or traceback."""
    probe = (
        "import sys\n"
        "import oracle.cli\n"
        f"code = oracle.cli.main(['grade', '--mode', 'base', {str(good_zip)!r}])\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('docker', 'requests', 'urllib3', 'http', 'ssl', 'concurrent', 'logging', 'traceback'))\n"
        "print(code, ','.join(loaded))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1:] == ["0 "], done.stdout[-500:] + done.stderr[-500:]
