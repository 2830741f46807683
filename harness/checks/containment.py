"""Containment of a runner's sandbox, read from the whole of the engine's record of its container.

A sandbox contains an agent only if every door is shut: a network or a
mount is one way out, but so is a host variable visible inside (a key the
agent may spend), the root user, an added capability or privileged mode, the
host's PID or IPC namespace, a device, or a security option switched off.
The rule reads a plain model of that record, built by whoever inspected the
container, so it judges a saved package as it judged the run.
"""

from __future__ import annotations

from harness.core.records import CheckRecord
from harness.core.sandbox_config import ContainerConfig

CONTAINED = "sandbox.contained"

SHARED_NAMESPACES = ("host",)
UNCONFINED = ("seccomp=unconfined", "seccomp:unconfined", "apparmor=unconfined", "apparmor:unconfined")


def beyond_the_sandbox(config: ContainerConfig) -> list[str]:
    """Every way out of the sandbox its configuration leaves open; empty when it is contained."""
    found = []
    if config.network_mode != "none":
        found.append(f"network {config.network_mode}")
    for mount in config.mounts:
        if mount.type == "volume" or (mount.destination in config.read_only_mounts and not mount.writable):
            continue
        found.append(f"{mount.type} mount at {mount.destination}")
    if config.user.split(":")[0] in ("", "0", "root"):
        found.append(f"runs as root (user {config.user or 'unset'})")
    if config.privileged:
        found.append("privileged")
    if config.cap_add:
        found.append(f"capabilities added: {', '.join(config.cap_add)}")
    if "ALL" not in config.cap_drop:
        found.append("capabilities not all dropped")
    for name, mode in (("PID", config.pid_mode), ("IPC", config.ipc_mode)):
        if mode in SHARED_NAMESPACES or mode.startswith("container:"):
            found.append(f"{name} namespace shared ({mode})")
    if config.devices:
        found.append(f"devices: {', '.join(config.devices)}")
    if "no-new-privileges" not in config.security_opt and "no-new-privileges:true" not in config.security_opt:
        found.append("new privileges allowed")
    found += [f"security option {opt}" for opt in config.security_opt if opt in UNCONFINED]
    leaked = sorted(set(config.env_names) - set(config.given_env))
    if leaked:
        found.append(f"variables visible inside that the runner was not given: {', '.join(leaked)}")
    return found


def contained(reach: dict[str, list[str]]) -> CheckRecord:
    """Every sandbox seen running left no way out (``reach``: lease digest -> :func:`beyond_the_sandbox`)."""
    if not reach:
        return CheckRecord(
            id=CONTAINED,
            passed=False,
            detail="no sandbox was seen running",
            unobservable="every run ended before a wait could inspect its sandbox",
        )
    beyond = {digest[:12]: found for digest, found in reach.items() if found}
    detail = (
        f"{len(reach)} sandbox(es) reach only the controller's agent socket, as an unprivileged user with every"
        " capability dropped, no shared namespace, device or host variable"
        if not beyond
        else f"sandboxes reach beyond the controller's agent API: {beyond}"
    )
    return CheckRecord(id=CONTAINED, passed=not beyond, detail=detail)
