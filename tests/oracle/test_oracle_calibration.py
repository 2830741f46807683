"""Real containers: the oracle calibration suite, one test per case (graded once, concurrently)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.deliveries import cases
from calibration.runner import Row, run_oracle_suite


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("calibration") / "kept"


@pytest.fixture(scope="module")
def rows(client, oracle_image, kept: Path) -> dict[tuple[str, str], Row]:
    return {(row.delivery, row.mode): row for row in run_oracle_suite(kept)}


def test_right_rows_keep_no_evidence(rows: dict[tuple[str, str], Row], kept: Path) -> None:
    """Only a wrong row keeps its ZIP and grade: a calibration that went right leaves nothing behind."""
    assert not kept.exists()


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.name}[{c.mode}]")
def test_case_is_decided_as_expected(rows: dict[tuple[str, str], Row], case) -> None:
    row = rows[(case.name, case.mode)]
    assert row.ok, f"{case.name} ({case.mode}): expected {row.expected}, got {row.got} {row.deciding}: {row.detail}"


def test_every_kind_of_bad_delivery_is_registered() -> None:
    names = {case.name for case in cases()}
    required = {
        "wrong-output-own-tests-pass",
        "late-requirement-ignored",
        "trailing-separator-after-cut",
        "invalid-separator-accepted",
        "zero-length-accepted",
        "negative-length-accepted",
        "non-integer-length-accepted",
        "duplicate-module",
        "shadowing-package",
        "path-traversal",
        "absolute-path",
        "symlink",
        "zip-bomb",
        "lying-size-header",
        "reads-host-file",
        "reaches-host-loopback",
        "writes-into-delivery",
        "fork-bomb",
        "memory-hog",
        "endless-loop",
        "output-flood",
        "suite-good",
        "suite-always-passes",
        "suite-fails-reference",
        "suite-catches-some",
        "suite-reads-plan",
        "suite-spawns-reader",
        "suite-spawns-past-the-hook",
        "suite-reaches-network",
        "suite-never-finishes",
    }
    assert required <= names
    assert {c.task for c in cases()} == {"slugify", "slugify-tests"}
    assert {c.mode for c in cases() if c.expected is None and c.task == "slugify"} == {
        "base",
        "separator",
        "max-length",
        "separator+max-length",
    }
