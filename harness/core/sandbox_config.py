"""The engine's record of a runner's sandbox, reduced to what containment is judged on.

An observation, made by whoever can inspect the container (a product
driver's instance, on the engine it uses), and judged by
:mod:`harness.checks.containment`. Variables are kept by name only: their
values may be secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field


class SandboxMount(BaseModel):
    type: str
    destination: str
    writable: bool


class ContainerConfig(BaseModel):
    """What the engine says a sandbox's container was allowed, by name (no variable's value is kept)."""

    network_mode: str
    mounts: list[SandboxMount] = Field(default_factory=list)
    user: str = ""
    privileged: bool = False
    cap_add: list[str] = Field(default_factory=list)
    cap_drop: list[str] = Field(default_factory=list)
    pid_mode: str = ""
    ipc_mode: str = ""
    devices: list[str] = Field(default_factory=list)
    security_opt: list[str] = Field(default_factory=list)
    env_names: list[str] = Field(default_factory=list, description="the variables visible inside, names only")
    given_env: list[str] = Field(
        default_factory=list, description="the names the runner is given on purpose, and those its image bakes in"
    )
    read_only_mounts: list[str] = Field(
        default_factory=list, description="where a bind mount may be, read-only (the agent socket's folder, ...)"
    )

    @classmethod
    def from_inspect(
        cls, found: Mapping[str, Any], given_env: list[str], read_only_mounts: list[str]
    ) -> ContainerConfig:
        """The engine's inspect record, reduced to what containment reads (variable names, never their values)."""
        host = found.get("HostConfig") or {}
        config = found.get("Config") or {}
        return cls(
            network_mode=str(host.get("NetworkMode") or ""),
            mounts=[
                SandboxMount(type=str(m.get("Type")), destination=str(m.get("Destination")), writable=bool(m.get("RW")))
                for m in found.get("Mounts") or []
            ],
            user=str(config.get("User") or ""),
            privileged=bool(host.get("Privileged")),
            cap_add=list(host.get("CapAdd") or []),
            cap_drop=list(host.get("CapDrop") or []),
            pid_mode=str(host.get("PidMode") or ""),
            ipc_mode=str(host.get("IpcMode") or ""),
            devices=[str(d.get("PathOnHost", d)) for d in host.get("Devices") or []],
            security_opt=list(host.get("SecurityOpt") or []),
            env_names=sorted({entry.split("=", 1)[0] for entry in config.get("Env") or []}),
            given_env=given_env,
            read_only_mounts=read_only_mounts,
        )
