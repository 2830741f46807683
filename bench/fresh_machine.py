"""`python -m bench.fresh_machine`: the first verdict on a fresh Debian 12 machine, each set-up step timed.

A fresh machine is made here, not borrowed: mmdebstrap writes a clean Debian
12 root (minbase: no engine, no browser, no Python, empty caches), the local
engine imports it and runs it as a container that runs its own dockerd
(every capability this machine grants, an anonymous volume for
/var/lib/docker, `--network host` because an engine without a bridge gives a
container no other network). The machine's package-source configuration for apt, pip and
npm is copied in as configured here (files and variables, never a host named
in this code), so the container fetches what a fresh machine of this
workplace would. Then, inside, exactly what README's set-up section says:
its apt-get line, then `git clone` of the branch (from a bundle copied in)
and `make story ID=build-revise`, timed together as bash's `time` sees them.

Printed: README's apt-get line with its time, every set-up line the story's
make prints (each with its own time), the clone-to-verdict wall time and the
CPU-s of the command's processes, the container's CPU-s from its cgroup where
the engine exposes it (the inner engine's own containers are outside it), and
the 1-minute load average before and after. Everything made is removed: the
container with its volume, the image, the root's tar.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import NamedTuple

from oracle import build, pinned

REPO = Path(__file__).resolve().parents[1]
README_PACKAGES = ("make", "git", "python3-venv", "ca-certificates")
"""README's set-up section: what a fresh Debian machine needs before `git clone` (keep the two the same)."""
PACKAGE_SOURCES = (
    "etc/apt",
    "etc/pip.conf",
    "etc/xdg/pip",
    "root/.config/pip",
    "root/.pip",
    "etc/npmrc",
    "usr/etc/npmrc",
    "root/.npmrc",
    "etc/ssl/certs/ca-certificates.crt",
    "usr/local/share/ca-certificates",
)
"""Where apt, pip and npm read their sources here, and the CA bundle those files name: copied as they are."""
SOURCE_VARIABLES = re.compile(r"^(PIP_|NPM_CONFIG_|npm_config_)|^(https?_proxy|no_proxy|HTTPS?_PROXY|NO_PROXY)$")
"""The variables that configure the same clients, passed into the container by name."""
CAPABILITIES = (
    "CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP LINUX_IMMUTABLE NET_BIND_SERVICE "
    "NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN "
    "SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE "
    "MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE"
).split()
"""Linux's capabilities by bit number (capability.h), as the engine names them."""
CELL = "build-revise"
DEADLINE_S = 3600.0
MARK = "fresh-machine:"


class Figures(NamedTuple):
    """What one fresh-machine run measured (seconds; CPU-s where named)."""

    readme_packages_s: float
    to_verdict_s: float
    command_cpu_s: float | None
    container_cpu_s: float | None
    load_before: float
    load_after: float


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """A command that must succeed; its last output line in the error when it does not."""
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"`{shlex.join(command[:4])} ...` failed: {tail[0]}")
    return done  # type: ignore[no-any-return]


def make_root(target: Path) -> None:
    """A clean Debian 12 minbase root as a tar, with the same mmdebstrap and archive the oracle's root uses."""
    mirror = build.debian_mirror()
    command = [
        "mmdebstrap",
        "--quiet",
        "--variant=minbase",
        f"--hook-dir={build.MMDEBSTRAP_MERGED_USR}",
        pinned.pinned_root().suite,
        str(target),
        *([mirror] if mirror else []),
    ]
    run(command)


def container_cpu_s(container_id: str) -> float | None:
    """CPU-s the container's cgroup has used so far (cgroup v1 or v2, cgroupfs or systemd driver); None if unseen."""
    for path, scale in (
        (f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/cpu,cpuacct/docker/{container_id}/cpuacct.usage", 1e-9),
        (f"/sys/fs/cgroup/system.slice/docker-{container_id}.scope/cpu.stat", 1e-6),
        (f"/sys/fs/cgroup/docker/{container_id}/cpu.stat", 1e-6),
    ):
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        match = re.search(r"usage_usec (\d+)", text) if path.endswith("cpu.stat") else re.match(r"(\d+)", text)
        if match:
            return int(match.group(1)) * scale
    return None


def privileges(status: Path = Path("/proc/self/status")) -> list[str]:
    """What lets the container run its own dockerd: every capability this machine can grant, no confinement.

    Why not `--privileged`: it asks for every capability the kernel knows,
    and where the engine itself runs without one (a sandbox that drops
    CAP_SYS_RESOURCE, as here) runc refuses to start the container. So the
    capabilities are this process's bounding set, the engine's own here,
    and the host's cgroup hierarchy is mounted writable, as `--privileged`
    would, for the inner engine's containers.
    """
    bounding = int(re.search(r"^CapBnd:\s*([0-9a-f]+)", status.read_text(), re.MULTILINE).group(1), 16)  # type: ignore[union-attr]
    missing = [name for bit, name in enumerate(CAPABILITIES) if not bounding >> bit & 1]
    return [
        "--cap-add=ALL",
        *(f"--cap-drop={name}" for name in missing),
        "--security-opt=seccomp=unconfined",
        "--security-opt=apparmor=unconfined",
        "--volume=/sys/fs/cgroup:/sys/fs/cgroup",
    ]


def inside_script(branch: str) -> str:
    """What the fresh machine runs: README's apt-get line, then clone and `make story`, each timed."""
    packages = " ".join(README_PACKAGES)
    return f"""set -eo pipefail
export DEBIAN_FRONTEND=noninteractive
started=$(date +%s.%N)
apt-get update -q >/dev/null && apt-get install -y -q {packages} >/dev/null
echo "{MARK} readme-packages $(awk -v s=$started -v e=$(date +%s.%N) 'BEGIN {{ printf "%.1f", e - s }}')"
cd /root
TIMEFORMAT='{MARK} to-verdict %R %U %S'
time {{ git clone -q -b {shlex.quote(branch)} /root/branch.bundle everyday-evals && cd everyday-evals \\
  && make story ID={CELL}; }}
"""


def copy_sources(container: str) -> None:
    """The machine's package-source files, copied to the same paths in the container (those that exist here).

    The root's own apt sources (mmdebstrap writes the archive it built from)
    go first: this machine's replace them, and the same archive named twice
    makes apt warn on every call.
    """
    present = [part for part in PACKAGE_SOURCES if Path("/", part).exists()]
    packed = subprocess.run(["tar", "-C", "/", "-cf", "-", *present], capture_output=True, check=True).stdout
    unpack = "rm -rf /etc/apt/sources.list /etc/apt/sources.list.d && tar -C / -xf -"
    unpacked = subprocess.run(["docker", "exec", "-i", container, "sh", "-c", unpack], input=packed)
    if unpacked.returncode != 0:
        raise SystemExit(f"copying the package sources into the container failed (exit {unpacked.returncode})")


def measure(branch: str, workdir: Path) -> Figures:
    """One fresh machine made, used and removed; the figures it gave."""
    name = f"everyday-fresh-{uuid.uuid4().hex[:8]}"
    image = f"{name}:root"
    tar = workdir / "root.tar"
    started = time.monotonic()
    make_root(tar)
    print(f"(made the clean Debian root in {time.monotonic() - started:.1f} s)", flush=True)
    run(["docker", "import", str(tar), image])
    tar.unlink()
    bundle = workdir / "branch.bundle"
    run(["git", "-C", str(REPO), "bundle", "create", str(bundle), branch])
    try:
        variables = [f"--env={key}" for key in sorted(os.environ) if SOURCE_VARIABLES.search(key)]
        container_id = run(
            ["docker", "run", "-d", *privileges(), "--network", "host", "-v", "/var/lib/docker", "--name", name]
            + ["--env=LANG=C.UTF-8", *variables, image, "sleep", "infinity"]
        ).stdout.strip()
        copy_sources(name)
        run(["docker", "cp", str(bundle), f"{name}:/root/branch.bundle"])
        return _play(name, container_id, branch)
    finally:
        # The inner engine's containers first: their cgroups sit beside the outer container's, in the host's hierarchy.
        subprocess.run(
            ["docker", "exec", name, "sh", "-c", "docker ps -aq | xargs -r docker rm -f"], capture_output=True
        )
        subprocess.run(["docker", "rm", "-f", "-v", name], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", image], capture_output=True)


def _play(name: str, container_id: str, branch: str) -> Figures:
    """Run the fresh machine's script, echoing each line with the seconds since the clone began."""
    load_before = os.getloadavg()[0]
    cpu_before = container_cpu_s(container_id)
    process = subprocess.Popen(
        ["docker", "exec", name, "bash", "-c", inside_script(branch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    readme_s = 0.0
    clone_started: float | None = None
    to_verdict: list[str] = []
    for line in process.stdout:
        if line.startswith(f"{MARK} readme-packages"):
            readme_s = float(line.split()[-1])
            clone_started = time.monotonic()
            print(f"{MARK} README's apt-get line done in {readme_s:.1f} s", flush=True)
        elif line.startswith(f"{MARK} to-verdict"):
            to_verdict = line.split()[2:]
        else:
            since = f"[{time.monotonic() - clone_started:6.1f} s] " if clone_started else ""
            print(f"{since}{line.rstrip()}", flush=True)
    status = process.wait(timeout=DEADLINE_S)
    cpu_after = container_cpu_s(container_id)
    if status != 0 or len(to_verdict) != 3:
        raise SystemExit(f"the fresh machine's run failed (exit {status})")
    wall, user, system = (float(value) for value in to_verdict)
    container_cpu = cpu_after - cpu_before if cpu_after is not None and cpu_before is not None else None
    return Figures(readme_s, wall, user + system, container_cpu, load_before, os.getloadavg()[0])


def report(figures: Figures) -> str:
    """The closing lines: the time to the verdict, its CPU-s, and the load the machine was under."""
    container = f"{figures.container_cpu_s:.1f}" if figures.container_cpu_s is not None else "not exposed"
    return "\n".join(
        [
            f"README's apt-get line (before the clone): {figures.readme_packages_s:.1f} s",
            f"git clone to the printed verdict: {figures.to_verdict_s:.1f} s wall, "
            f"{figures.command_cpu_s:.1f} CPU-s of the command's processes, {container} CPU-s of the container",
            f"load average (1 min) before / after: {figures.load_before:.1f} / {figures.load_after:.1f} "
            "(other work skews every wall time)",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.fresh_machine", description=__doc__.splitlines()[0])
    parser.add_argument("--branch", default=None, help="the branch cloned (default: this checkout's)")
    args = parser.parse_args(argv)
    branch = args.branch or run(["git", "-C", str(REPO), "rev-parse", "--abbrev-ref", "HEAD"]).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="everyday-fresh-machine-", dir="/var/tmp") as workdir:
        figures = measure(branch, Path(workdir))
    print(report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
