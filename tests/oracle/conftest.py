"""Fixtures for oracle tests: a real Docker engine and image, or a loud failure (never a skip)."""

from __future__ import annotations

from pathlib import Path

import docker
import pytest

from calibration.deliveries import project
from calibration.zips import zip_bytes
from oracle import image


@pytest.fixture(scope="session")
def client() -> docker.DockerClient:
    try:
        return image.engine()
    except image.CannotGrade as error:
        pytest.fail(f"oracle tests need a Docker engine: {error}")


@pytest.fixture(scope="session")
def oracle_image(client: docker.DockerClient):
    try:
        return image.resolve(client)
    except image.CannotGrade as error:
        pytest.fail(f"oracle tests need the oracle image: {error}")


@pytest.fixture()
def good_zip(tmp_path: Path) -> Path:
    path = tmp_path / "good.zip"
    path.write_bytes(zip_bytes(project()))
    return path
