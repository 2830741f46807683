"""Scan an evidence package for secrets before it is kept.

A package is meant to be shared with reviewers, so a leaked API key or run
token must fail the attempt. Findings name the file and the kind of secret,
never the secret itself.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from pydantic import BaseModel

SECRET_ENV_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
MIN_SECRET_LENGTH = 8
MAX_ARCHIVE_DEPTH = 3
MAX_MEMBER_BYTES = 256 * 1024 * 1024

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
    root: Path,
    known: Mapping[str, str],
    patterns: Mapping[str, re.Pattern[bytes]] | None = None,
    published: frozenset[str] = frozenset(),
) -> list[SecretFinding]:
    """Every file under root that holds a known secret value or a credential shape.

    ``known`` maps a label (e.g. ``run token``) to the secret value;
    ``patterns`` adds a product's own credential shapes to the common ones. Binary
    files (screenshots, ZIPs, traces) are scanned as bytes too: a token can hide
    in a trace's network log.

    ``published`` holds the sha256 of files the product ships to every visitor
    (its web UI's assets, which a trace records byte for byte). A credential
    *shape* in those bytes is the product's own public text, e.g. Paperclip's
    env editor shows the made-up example ``sk-live-...``, not a leak of this
    run; a *known* secret value is still searched for everywhere.
    """
    needles = [(label, value.encode()) for label, value in known.items() if len(value) >= MIN_SECRET_LENGTH]
    shapes = {kind: (pattern, _prefilter(pattern)) for kind, pattern in {**SECRET_PATTERNS, **(patterns or {})}.items()}
    findings: list[SecretFinding] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        for name, data in contents(str(path.relative_to(root)), path.read_bytes()):
            kinds = {label for label, needle in needles if needle in data}
            if not published or hashlib.sha256(data).hexdigest() not in published:
                kinds |= {
                    kind for kind, (pattern, quick) in shapes.items() if quick.search(data) and pattern.search(data)
                }
            findings.extend(SecretFinding(path=name, kind=kind) for kind in sorted(kinds))
    return findings


def _prefilter(pattern: re.Pattern[bytes]) -> re.Pattern[bytes]:
    """A pattern that matches wherever ``pattern`` does and is searched much faster: its leading ``\\b`` dropped.

    Dropping a zero-width assertion only widens what matches, so a miss of
    the prefilter is a miss of the pattern. ``re`` skips ahead by a literal
    prefix only when the pattern starts with one; a leading ``\\b`` hides it and
    made a trace's megabytes cost over ten times as much per shape.
    """
    source = pattern.pattern
    return re.compile(source[2:], pattern.flags) if source.startswith(rb"\b") else pattern


def contents(name: str, data: bytes, depth: int = 0) -> Iterator[tuple[str, bytes]]:
    """The bytes as stored, then every member of an archive (``trace.zip!resources/x``), nested ones too.

    A ZIP deflates what it holds, so a key inside ``trace.zip`` or a delivered
    ZIP is invisible to a search of the raw bytes; each member is searched
    decompressed. Bounded in depth and size: a crafted archive cannot stall
    the scan, and a member too large to read is reported as unscannable.
    """
    yield name, data
    if depth >= MAX_ARCHIVE_DEPTH or not zipfile.is_zipfile(io.BytesIO(data)):
        return
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.infolist():
                if member.is_dir():
                    continue
                inner = f"{name}!{member.filename}"
                if member.file_size > MAX_MEMBER_BYTES:
                    yield inner, b""
                    continue
                yield from contents(inner, archive.read(member), depth + 1)
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError, zlib.error):
        return  # not an archive after all (or encrypted): its raw bytes were searched above


def describe(findings: Iterable[SecretFinding]) -> str:
    return "; ".join(f"{f.path} holds a {f.kind}" for f in findings)
