"""Old runner images are removed when a new one is built, except those a container still uses (real engine)."""

from __future__ import annotations

import contextlib
import io
import tarfile
import uuid

from oracle.engine import Engine, Image, NotFound
from oracle.image import engine
from testbed.sandbox.image import remove_older


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
