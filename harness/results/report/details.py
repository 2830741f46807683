"""What an attempt page shows beyond attempt.json: ZIP listings, oracle checks, snapshots, files.

Everything here reads files a package may or may not have, written by a
harness revision that may be older than this one, so every reader returns a
view with an ``error`` line instead of raising: the page must still show what
*is* there.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core.records import DownloadRecord


class ZipEntry(BaseModel):
    name: str
    size: int
    compressed: int


class OracleView(BaseModel):
    path: str
    passed: bool | None = None
    mode: str | None = None
    deciding_check: str | None = None
    checks: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None


class ZipView(BaseModel):
    """One downloaded delivery as the reviewer needs it: bytes, identity, contents, grade."""

    download: DownloadRecord
    present: bool
    sha256_matches: bool | None = None
    entries: list[ZipEntry] = Field(default_factory=list)
    error: str | None = None
    oracle: OracleView | None = None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_json(path: Path) -> tuple[Any, str | None]:
    try:
        return json.loads(path.read_bytes()), None
    except (OSError, ValueError) as error:
        return None, f"{path.name} is unreadable: {error}"


def oracle_view(folder: Path, relative: str) -> OracleView:
    data, error = read_json(folder / relative)
    if error or not isinstance(data, dict):
        return OracleView(path=relative, error=error or "the oracle result is not a JSON object")
    checks = [check for check in data.get("checks", []) if isinstance(check, dict)]
    return OracleView(
        path=relative,
        passed=data.get("passed"),
        mode=data.get("mode"),
        deciding_check=data.get("deciding_check"),
        checks=checks
        + [dict(check, diagnostic=True) for check in data.get("diagnostics", []) if isinstance(check, dict)],
    )


def zip_view(folder: Path, download: DownloadRecord) -> ZipView:
    """List a downloaded ZIP with zipfile (never extracting it) and re-check its sha256."""
    path = folder / download.path
    oracle = oracle_view(folder, download.oracle_result) if download.oracle_result else None
    if not path.is_file():
        return ZipView(download=download, present=False, error="the file is missing from the package", oracle=oracle)
    view = ZipView(download=download, present=True, sha256_matches=_sha256(path) == download.sha256, oracle=oracle)
    try:
        with zipfile.ZipFile(path) as archive:
            view.entries = [
                ZipEntry(name=i.filename, size=i.file_size, compressed=i.compress_size) for i in archive.infolist()
            ]
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        view.error = f"not a readable ZIP: {error}"
    return view


# ---- snapshots: the product's persisted records, read back through its API ------------------


class _Lenient(BaseModel):
    """Snapshots come from the product; keep what the page shows and ignore the rest."""

    model_config = ConfigDict(extra="ignore")


class CommentView(_Lenient):
    id: Any = None
    author_kind: str = ""
    author_name: str = ""
    run_id: Any = None
    body: str = ""
    created_at: str = ""
    consumed_by_run_id: Any = None


class ReceiptView(_Lenient):
    seq: Any = None
    tool: str = ""
    target: str = ""
    ok: bool | None = None
    detail: str = ""


class RunView(_Lenient):
    id: Any = None
    agent_id: Any = None
    status: str = ""
    identity: dict[str, Any] = Field(default_factory=dict)
    started_at: str | None = None
    ended_at: str | None = None
    cost_cents: int = 0
    error_code: str | None = None
    receipts: list[ReceiptView] = Field(default_factory=list)


class DeliveryView(_Lenient):
    id: Any = None
    run_id: Any = None
    sha256: str = ""
    size: int | None = None
    files: list[str] = Field(default_factory=list)


class TaskView(_Lenient):
    id: Any = None
    title: str = ""
    status: str = ""
    assignee_name: str | None = None
    body: str = ""
    comments: list[CommentView] = Field(default_factory=list)
    runs: list[RunView] = Field(default_factory=list)
    deliveries: list[DeliveryView] = Field(default_factory=list)


class SnapshotView(BaseModel):
    """One snapshot file: tasks get their own layout; any other list of records becomes a table."""

    name: str
    path: str
    tasks: list[TaskView] | None = None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    text: str | None = None
    error: str | None = None


def _table(records: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    columns: list[str] = []
    for record in records:
        columns += [key for key, value in record.items() if key not in columns and not isinstance(value, (dict, list))]
    return columns, [[record.get(column) for column in columns] for record in records]


def snapshot_view(folder: Path, path: Path) -> SnapshotView:
    relative = str(path.relative_to(folder))
    if path.suffix != ".json":
        return SnapshotView(name=path.name, path=relative, error=path.read_text(errors="replace").strip())
    data, error = read_json(path)
    view = SnapshotView(name=path.stem, path=relative, error=error)
    if error:
        return view
    if path.stem == "tasks" and isinstance(data, list):
        try:
            view.tasks = [TaskView.model_validate(task) for task in data]
            return view
        except ValidationError:
            pass
    if isinstance(data, list) and all(isinstance(item, dict) for item in data):
        view.columns, view.rows = _table(data)
    else:
        view.text = json.dumps(data, indent=2, sort_keys=True)
    return view


def snapshot_views(folder: Path) -> list[SnapshotView]:
    snapshots = folder / "snapshots"
    if not snapshots.is_dir():
        return []
    files = sorted(snapshots.iterdir(), key=lambda p: (p.stem != "tasks", p.name))
    return [snapshot_view(folder, path) for path in files if path.is_file()]


class FileEntry(BaseModel):
    path: str
    size: int


def package_files(folder: Path) -> list[FileEntry]:
    """Every file of the package, so nothing a reviewer might need is only on disk."""
    return [
        FileEntry(path=str(path.relative_to(folder)), size=path.stat().st_size)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    ]
