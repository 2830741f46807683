"""The seam's size, as `python -m bench.seam` prints it: what a new driver must write stays small."""

from __future__ import annotations

from bench.seam import count


def test_a_driver_writes_few_members_and_no_call_site_casts_to_a_capability() -> None:
    figures = count()
    assert figures.to_write <= 15 < figures.members
    assert figures.written["example"] <= 10
    assert figures.capability_casts <= 1  # the container sandbox's own API, not a capability of the seam
