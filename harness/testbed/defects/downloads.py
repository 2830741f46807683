"""Defects in how a task's deliveries are stored, downloaded and listed."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..db import Database
from ..deliveries import blob_path
from ..models import Delivery, Task
from .registry import declarer

defect = declarer("downloads")


@defect(
    "download-other-bytes",
    at="download.bytes",
    summary="a download serves a repacked ZIP (same files, other bytes) under the recorded sha256",
)
def repacked(data: bytes, **_: Any) -> bytes:
    """The same members, stored uncompressed: a ZIP that unpacks the same but hashes differently."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


@defect(
    "redownload-serves-newest",
    at="download.bytes",
    summary="downloading an older delivery of a task serves the task's newest delivery",
)
def newest_bytes(data: bytes, *, db: Database, data_dir: Path, delivery: Delivery, **_: Any) -> bytes:
    newest = db.one("SELECT sha256 FROM deliveries WHERE task_id = ? ORDER BY id DESC LIMIT 1", delivery.task_id)
    if newest is not None and newest["sha256"] != delivery.sha256:
        return blob_path(data_dir, newest["sha256"]).read_bytes()
    return data


@defect(
    "download-partial-while-running",
    at="download.bytes",
    summary="while the task has an active run, a delivery downloads cut in half (a blob still being written)",
)
def half_while_running(data: bytes, *, db: Database, delivery: Delivery, **_: Any) -> bytes:
    running = db.one("SELECT 1 FROM runs WHERE task_id = ? AND status IN ('queued', 'running')", delivery.task_id)
    return data[: len(data) // 2] if running is not None else data


@defect(
    "deliveries-newest-first",
    at="task.deliveries",
    summary="a task lists its deliveries newest first, so the last one listed is the oldest",
)
def newest_first(items: list[Delivery], **_: Any) -> list[Delivery]:
    return items[::-1]


@defect(
    "deliveries-not-listed",
    at="task.deliveries",
    summary="a task lists none of its deliveries (each is stored, and downloads by its id)",
)
def none_listed(items: list[Delivery], **_: Any) -> list[Delivery]:
    return []


@defect(
    "download-link-broken",
    at="task-page.task",
    summary="the task page links each delivery's download without the API prefix: the link answers 404",
)
def links_without_prefix(task: Task, **_: Any) -> Task:
    shown = [d.model_copy(update={"download_url": d.download_url.removeprefix("/api")}) for d in task.deliveries]
    return task.model_copy(update={"deliveries": shown})


@defect(
    "deliveries-hidden-after-agents-second",
    at="task.deliveries",
    summary="a task lists its deliveries only while their agent has delivered once in all (a count over the"
    " agent's deliveries, not the task's): a revision, or an agent's second piece of work, lists none",
)
def hidden_after_agents_second(items: list[Delivery], *, db: Database, **_: Any) -> list[Delivery]:
    if not items:
        return items
    made = db.one(
        "SELECT COUNT(*) AS n FROM deliveries d JOIN runs r ON r.id = d.run_id"
        " WHERE r.agent_id = (SELECT agent_id FROM runs WHERE id = ?)",
        items[-1].run_id,
    )
    return [] if made is not None and made["n"] > 1 else items


@defect(
    "delivery-store-fails",
    at="delivery.store",
    summary="storing a delivery fails (a full disk): the agent API answers 500 and the runner retries for minutes",
)
def disk_full(store: Callable[..., Any], **_: Any) -> Callable[..., Any]:
    def failing(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    return failing
