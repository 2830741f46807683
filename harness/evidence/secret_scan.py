"""Scan an evidence package for secrets before it is kept.

A package is meant to be shared with reviewers, so a leaked API key or run
token must fail the attempt. Findings name the file and the kind of secret,
never the secret itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel

SECRET_ENV_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
MIN_SECRET_LENGTH = 8

# Shapes of well-known credentials, for secrets the harness was never told about.
SECRET_PATTERNS: dict[str, re.Pattern[bytes]] = {
    "openai-style key": re.compile(rb"\bsk-[A-Za-z0-9_\-]{20,}"),
    "anthropic key": re.compile(rb"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    "github token": re.compile(rb"\bgh[pousr]_[A-Za-z0-9]{30,}"),
    "aws access key": re.compile(rb"\bAKIA[0-9A-Z]{16}\b"),
    "private key": re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
}


class SecretFinding(BaseModel):
    path: str
    kind: str


def secrets_from_environment(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """Values of environment variables whose names say they hold a secret."""
    return {
        name: value
        for name, value in environ.items()
        if SECRET_ENV_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
    }


def scan_tree(
    root: Path, known: Mapping[str, str], patterns: Mapping[str, re.Pattern[bytes]] | None = None
) -> list[SecretFinding]:
    """Every file under root that holds a known secret value or a credential shape.

    ``known`` maps a label (e.g. ``run token``) to the secret value;
    ``patterns`` adds a product's own credential shapes to the common ones. Binary
    files (screenshots, ZIPs, traces) are scanned as bytes too: a token can hide
    in a trace's network log.
    """
    needles = [(label, value.encode()) for label, value in known.items() if len(value) >= MIN_SECRET_LENGTH]
    shapes = {**SECRET_PATTERNS, **(patterns or {})}
    findings: list[SecretFinding] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        relative = str(path.relative_to(root))
        kinds = {label for label, needle in needles if needle in data}
        kinds |= {kind for kind, pattern in shapes.items() if pattern.search(data)}
        findings.extend(SecretFinding(path=relative, kind=kind) for kind in sorted(kinds))
    return findings


def describe(findings: Iterable[SecretFinding]) -> str:
    return "; ".join(f"{f.path} holds a {f.kind}" for f in findings)
