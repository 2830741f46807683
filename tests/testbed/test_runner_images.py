"""Old runner images are removed when a new one is built, except those a container still uses, and a sandbox
whose image was removed that way is started on this code's own (real engine)."""

from __future__ import annotations

import contextlib
import io
import tarfile
import uuid
from pathlib import Path

from harness.testbed.db import Database
from harness.testbed.sandbox.containers import ContainerRunners
from harness.testbed.sandbox.image import ensure, remove_older
from oracle.engine import Engine, Image, NotFound
from oracle.image import engine
from tests.needs import marked


def _empty_root() -> io.BytesIO:
    buffer = io.BytesIO()
    tarfile.open(fileobj=buffer, mode="w").close()
    buffer.seek(0)
    return buffer


def _present(client: Engine, image: Image) -> bool:
    try:
        return client.image(image.id).id == image.id
    except NotFound:
        return False


@marked("docker")
def test_a_new_runner_image_removes_the_older_ones_no_container_uses() -> None:
    client = engine()
    label = f"everyday-evals.test.{uuid.uuid4().hex[:12]}"  # only this test's images: another session's stay
    made = {
        name: client.import_image(_empty_root(), "everyday-evals-test-runner", name, [f"LABEL {label}={name}"])
        for name in ("unused", "used", "new")
    }
    holder = client.create({"Image": made["used"].id, "Cmd": ["true"]})  # created, never started: still a user
    try:
        assert remove_older(client, made["new"], label) == [made["unused"].id]
        assert not _present(client, made["unused"])
        assert _present(client, made["used"]) and _present(client, made["new"])
        client.remove(holder)
        assert remove_older(client, made["new"], label) == [made["used"].id]
        assert _present(client, made["new"])
    finally:
        with contextlib.suppress(NotFound):
            client.remove(holder)
        for image in made.values():
            if _present(client, image):
                client.remove_image(image.id)


@marked("docker")
def test_a_sandbox_whose_prepared_image_was_removed_runs_on_this_codes_own(tmp_path: Path) -> None:
    client = engine()
    prepared = client.import_image(_empty_root(), "everyday-evals-test-runner", uuid.uuid4().hex[:12], [])
    runners = ContainerRunners(Database(tmp_path / "testbed.sqlite3"), tmp_path, image_reference=prepared.id)
    client.remove_image(prepared.id)  # a newer build elsewhere removed it while no container used it
    container = runners._create({"Image": prepared.id, "Cmd": ["true"]})
    try:
        assert client.inspect(container)["Image"] == runners.image.id == ensure(client).id
    finally:
        client.remove(container)
