"""Every faulty persona makes its story fail on the intended check; the default persona passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.personas import PERSONA_CASES, PersonaCase, row_for, run_persona


@pytest.mark.parametrize("case", PERSONA_CASES, ids=[f"{c.case}/{c.persona}" for c in PERSONA_CASES])
def test_persona_is_caught_by_the_intended_check(case: PersonaCase, tmp_path: Path) -> None:
    row = row_for(case, run_persona(case, tmp_path))
    assert row.ok, f"expected {row.expected}, got {row.got} (first failed check {row.deciding}): {row.detail}"
