"""Registry of calibration suites run by `python -m calibration`.

Story calibration (bad run records, faulty personas, product defects) adds its own entry here;
each suite is a callable returning table rows, given the folder where a wrong row's evidence is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from calibration.judges import run_judge_suite
from calibration.lifecycle_records import run_lifecycle_suite
from calibration.loose_rules import run_loose_suite
from calibration.personas import run_persona_suite
from calibration.product_defects import run_product_defect_suite
from calibration.replay_scripts import run_replay_suite
from calibration.runner import Row, run_oracle_suite

SUITES: dict[str, Callable[[Path | None], list[Row]]] = {
    "oracle": run_oracle_suite,
    "lifecycle": run_lifecycle_suite,
    "loose-rules": run_loose_suite,
    "stories": run_persona_suite,
    "product-defects": run_product_defect_suite,
    "replay": run_replay_suite,
    "judges": run_judge_suite,
}
OFFLINE_SUITES = frozenset({"lifecycle", "loose-rules", "judges"})
"""Suites that grade nothing: they need no container engine."""
