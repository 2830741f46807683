"""Grading through another Docker engine, reached only by its own DOCKER_HOST.

A second, real `dockerd` is started for this module (its own socket, data
root, exec root and pidfile; no bridge, no iptables, like the machine's own
engine), also listening on a loopback TCP port with TLS that demands a
client certificate (a CA, server and client certificates made for the
test). The oracle image is copied into it through the engine API (`docker
save | docker load`), and the oracle CLI grades with DOCKER_HOST pointing at
it: its Unix socket, or tcp:// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH. Nothing of the host engine is used by that grade, so a
delivery reaching the container through a bind mount of a host folder would
not work here in general; the copy does. At the end the engine is stopped,
its folders removed, and the test proves no process of it is left running.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import docker
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from docker.errors import DockerException

from oracle.sandbox import LABEL_PID
from tests.needs import needs

STARTUP_S = 60.0


def _processes_mentioning(text: str) -> list[int]:
    """Pids whose command line mentions `text` (the private folder every process of the second engine names)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _unmount_below(folder: Path) -> None:
    """Unmount whatever a stopped engine left mounted below its folder (deepest first), so the folder can go."""
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(str(folder))), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], capture_output=True)


def _stop(process: subprocess.Popen[bytes], folder: Path) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    deadline = time.monotonic() + 15  # its supervised containerd exits just after it
    while (left := _processes_mentioning(str(folder))) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)  # only processes naming our own private folder, i.e. started by this fixture
        except ProcessLookupError:
            pass
    _unmount_below(folder)
    shutil.rmtree(folder, ignore_errors=True)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _issue(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    issuer_key: ec.EllipticCurvePrivateKey,
    usage: x509.ObjectIdentifier | None = None,
) -> x509.Certificate:
    """A certificate valid for a day: a CA when no `usage` is given, else a leaf for that usage (the server's names 127.0.0.1)."""
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=usage is None, path_length=None), critical=True)
    )
    if usage is not None:
        builder = builder.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    if usage == ExtendedKeyUsageOID.SERVER_AUTH:
        san = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
        builder = builder.add_extension(san, critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _write_pair(folder: Path, prefix: str, certificate: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / f"{prefix}key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def _certificates(folder: Path) -> tuple[Path, Path]:
    """A test CA with a server certificate (for 127.0.0.1) and a client certificate: (the engine's folder, DOCKER_CERT_PATH)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _issue("everyday-evals test CA", ca_key, _name("everyday-evals test CA"), ca_key)
    server_key, client_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    server, client = folder / "server", folder / "client"
    _write_pair(
        server, "", _issue("127.0.0.1", server_key, ca.subject, ca_key, ExtendedKeyUsageOID.SERVER_AUTH), server_key
    )
    _write_pair(
        client, "", _issue("oracle", client_key, ca.subject, ca_key, ExtendedKeyUsageOID.CLIENT_AUTH), client_key
    )
    for place in (server, client):
        (place / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return server, client


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SecondEngine(NamedTuple):
    """How to reach the second engine: its Unix socket, or TCP with TLS (DOCKER_HOST and DOCKER_CERT_PATH)."""

    unix: str
    tcp: str
    certs: Path


@pytest.fixture(scope="module")
@needs("docker")
def second_engine(oracle_image) -> Iterator[SecondEngine]:
    """A second dockerd that holds a copy of the oracle image; torn down completely afterwards."""
    dockerd = shutil.which("dockerd")
    if dockerd is None:
        pytest.fail("this test starts a second Docker engine and needs `dockerd` on PATH")
    folder = Path(
        tempfile.mkdtemp(prefix="ee-dockerd-", dir="/tmp")
    )  # short: unix socket paths are limited to 108 bytes
    host = f"unix://{folder}/docker.sock"
    tcp = f"tcp://127.0.0.1:{_free_port()}"
    server_tls, client_tls = _certificates(folder / "tls")
    # containerd namespaces allow no "_" or doubled separators, which mkdtemp's names may hold
    namespace = f"ee-test-{uuid.uuid4().hex[:12]}"
    log = (folder / "dockerd.log").open("wb")
    process = subprocess.Popen(
        [
            dockerd,
            "--host",
            host,
            "--host",
            tcp,
            "--tlsverify",
            "--tlscacert",
            str(server_tls / "ca.pem"),
            "--tlscert",
            str(server_tls / "cert.pem"),
            "--tlskey",
            str(server_tls / "key.pem"),
            "--data-root",
            str(folder / "data"),
            "--exec-root",
            str(folder / "exec"),
            "--pidfile",
            str(folder / "docker.pid"),
            "--iptables=false",
            "--ip-masq=false",
            "--bridge=none",
            "--containerd-namespace",
            namespace,
            "--containerd-plugins-namespace",
            f"{namespace}-plugins",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                remote = docker.DockerClient(base_url=host, timeout=120)
                remote.ping()
                break
            except DockerException:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the second dockerd did not start: {(folder / 'dockerd.log').read_text()[-600:]}")
                time.sleep(0.2)
        local = docker.from_env()
        remote.images.load(local.images.get(oracle_image.id).save(named=True))
        local.close()
        yield SecondEngine(unix=host, tcp=tcp, certs=client_tls)
        remote.close()
    finally:
        log.close()
        _stop(process, folder)
        assert process.poll() is not None and not _processes_mentioning(str(folder)), (
            "the second engine left processes running"
        )
        assert not folder.exists()


def _starts_by(client: docker.DockerClient, pid: int, since: int) -> int:
    """How many oracle containers the grading process `pid` started on this engine since `since` (from the engine's events)."""
    until = int(time.time()) + 1
    events = client.api.events(
        since=since,
        until=until,
        decode=True,
        filters={"type": "container", "event": "start", "label": f"{LABEL_PID}={pid}"},
    )
    return sum(1 for _ in events)


def _graded(env: dict[str, str], mode: str, zip_path: Path) -> tuple[int, dict]:
    """`python -m oracle grade` in `env`: its pid (the label of its containers) and its result; it must exit 0."""
    grading = subprocess.Popen(
        [sys.executable, "-m", "oracle", "grade", "--mode", mode, str(zip_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    stdout, stderr = grading.communicate(timeout=180)
    assert grading.returncode == 0, stderr
    return grading.pid, json.loads(stdout)


def test_a_grade_runs_on_the_engine_docker_host_names(
    second_engine: SecondEngine, oracle_image, witness: docker.DockerClient, good_zip: Path
) -> None:
    env = {**os.environ, "DOCKER_HOST": second_engine.unix}
    env.pop("EVERYDAY_ORACLE_IMAGE", None)
    since = int(time.time()) - 1
    pid, result = _graded(env, "separator+max-length", good_zip)
    assert result["passed"] is True and result["image"] == oracle_image.id
    remote = docker.DockerClient(base_url=second_engine.unix)
    try:
        assert _starts_by(remote, pid, since) == 1, "the grade's container did not run on the engine DOCKER_HOST names"
        assert remote.api.containers(all=True) == [], "the grade left a container on the engine it used"
        assert not remote.api.volumes().get("Volumes"), "the grade left its /oracle volume behind"
    finally:
        remote.close()
    assert _starts_by(witness, pid, since) == 0, "the grade must not have run on the host's own engine"


def test_the_second_engine_cannot_pull_so_a_missing_image_is_exit_2(
    second_engine: SecondEngine, good_zip: Path
) -> None:
    env = {**os.environ, "DOCKER_HOST": second_engine.unix, "EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"}
    done = subprocess.run(
        [sys.executable, "-m", "oracle", "grade", "--mode", "base", str(good_zip)],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1


def _tls_env(host: str, certs: Path) -> dict[str, str]:
    env = {**os.environ, "DOCKER_HOST": host, "DOCKER_TLS_VERIFY": "1", "DOCKER_CERT_PATH": str(certs)}
    env.pop("EVERYDAY_ORACLE_IMAGE", None)
    return env


def test_a_grade_reaches_an_engine_over_tcp_with_tls(second_engine: SecondEngine, oracle_image, good_zip: Path) -> None:
    """tcp:// with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH: the engine's certificate checked, the client's presented."""
    since = int(time.time()) - 1
    pid, result = _graded(_tls_env(second_engine.tcp, second_engine.certs), "base", good_zip)
    assert result["passed"] is True
    remote = docker.DockerClient(base_url=second_engine.unix)
    try:
        assert _starts_by(remote, pid, since) == 1, "the grade's container did not run on the TLS engine"
        assert remote.api.containers(all=True) == [], "the grade left a container on the engine it used"
    finally:
        remote.close()


def test_tls_the_engine_refuses_is_one_line_and_exit_2(second_engine: SecondEngine, tmp_path: Path) -> None:
    """Without a client certificate (only the CA), or trusting another CA, the engine cannot be reached: exit 2, one line."""
    shutil.copy(second_engine.certs / "ca.pem", tmp_path / "ca.pem")  # no cert.pem, key.pem
    stranger = _certificates(tmp_path / "stranger")[1]  # a client of another CA, which also distrusts the engine
    for certs in (tmp_path, stranger):
        done = subprocess.run(
            [sys.executable, "-m", "oracle", "preflight"],
            capture_output=True,
            text=True,
            timeout=60,
            env=_tls_env(second_engine.tcp, certs),
        )
        assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "no Docker engine answers" in done.stderr
