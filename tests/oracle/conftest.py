"""Fixtures for oracle tests: a real Docker engine and image, or a loud failure (never a skip).

`client` is the oracle's own engine client; `witness` is the Docker SDK on
the same engine, an independent reading of what the engine holds (what the
oracle created, inspected by code that is not the oracle's).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from calibration.deliveries import project
from calibration.zips import zip_bytes
from oracle import image
from oracle.engine import Engine, Image
from tests.needs import needs


@pytest.fixture(scope="session")
@needs("docker")
def client() -> Engine:
    try:
        return image.engine()
    except image.CannotGrade as error:
        pytest.fail(f"oracle tests need a Docker engine: {error}")


@pytest.fixture(scope="session")
def witness(client: Engine) -> Iterator[docker.DockerClient]:
    """The Docker SDK on the engine the oracle uses (DOCKER_HOST and the rest read the same way)."""
    sdk = docker.from_env()
    yield sdk
    sdk.close()


@pytest.fixture(scope="session")
def oracle_image(client: Engine) -> Image:
    try:
        return image.resolve(client)
    except image.CannotGrade as error:
        pytest.fail(f"oracle tests need the oracle image: {error}")


@pytest.fixture()
def good_zip(tmp_path: Path) -> Path:
    path = tmp_path / "good.zip"
    path.write_bytes(zip_bytes(project()))
    return path
