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


UNSCANNABLE = "member it could not scan"
"""The kind of a finding for an archive member the scan could not read: no evidence of no secret is no pass."""


class SecretFinding(BaseModel):
    path: str
    kind: str
    why: str = ""  # for an unscannable member: what kept the scan out


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
            if isinstance(data, Unscannable):
                findings.append(SecretFinding(path=name, kind=UNSCANNABLE, why=data.why))
                continue
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


class Unscannable:
    """In place of a member's bytes: why the scan could not read them."""

    def __init__(self, why: str) -> None:
        self.why = why


def contents(name: str, data: bytes, depth: int = 0) -> Iterator[tuple[str, bytes | Unscannable]]:
    """The bytes as stored, then every member of an archive (``trace.zip!resources/x``), nested ones too.

    A ZIP deflates what it holds, so a key inside ``trace.zip`` or a delivered
    ZIP is invisible to a search of the raw bytes; each member is searched
    decompressed. Bounded in depth and size: a crafted archive cannot stall
    the scan. A member it cannot read (too large, encrypted, an unknown
    compression, corrupt) comes as :class:`Unscannable`: a secret could hide
    there, so it is reported, never taken for clean.
    """
    yield name, data
    if depth >= MAX_ARCHIVE_DEPTH or not zipfile.is_zipfile(io.BytesIO(data)):
        return
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError, zlib.error):
        return  # not an archive after all: its raw bytes were searched above
    with archive:
        for member in archive.infolist():
            if member.is_dir():
                continue
            inner = f"{name}!{member.filename}"
            if member.file_size > MAX_MEMBER_BYTES:
                yield inner, Unscannable(f"{member.file_size} bytes, over the scan's {MAX_MEMBER_BYTES}")
                continue
            if member.flag_bits & 0x1:
                yield inner, Unscannable("encrypted")
                continue
            try:
                inside = archive.read(member)
            except NotImplementedError:
                yield inner, Unscannable(f"compression method {member.compress_type}, which the scan cannot read")
                continue
            except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, zlib.error) as error:
                yield inner, Unscannable(f"unreadable: {type(error).__name__}")
                continue
            yield from contents(inner, inside, depth + 1)


def describe(findings: Iterable[SecretFinding]) -> str:
    return "; ".join(
        f"{f.path} could not be scanned ({f.why})" if f.kind == UNSCANNABLE else f"{f.path} holds a {f.kind}"
        for f in findings
    )
