"""Each product defect's calibration case, one module per area of the product; in the order calibration runs them."""

from __future__ import annotations

from calibration.defect_case import DefectCase
from calibration.defect_cases import deliveries, drain, expectations, near_misses, sandbox, team

DEFECT_CASES: tuple[DefectCase, ...] = (
    *sandbox.CASES,
    *deliveries.CASES,
    *near_misses.CASES,
    *expectations.CASES,
    *team.CASES,
    *drain.CASES,
)
