"""The parallel benchmark's ceiling by the cells' lengths: what no dealing of those cells to the slots can beat."""

from __future__ import annotations

from datetime import datetime, timedelta

from bench.cpu_by_kind import CpuByKind
from bench.parallel import Measurement, cell_shares, makespan_bound, schedule_ceiling


def test_the_bound_is_the_even_share_or_the_longest_cell() -> None:
    assert makespan_bound([3, 5, 3, 4, 3], 2) == 9  # 5+4 | 3+3+3 reaches it
    assert makespan_bound([10, 1, 1], 2) == 10  # one long cell bounds every schedule whatever the rest
    assert makespan_bound([2, 2, 2, 2], 1) == 8
    assert makespan_bound([], 2) == 0


def test_the_ceiling_keeps_the_time_outside_the_cells_in_every_slot_count() -> None:
    cpu = CpuByKind(busy_s=1, every_s=1, kinds=[], unseen_s=0)
    sequential = Measurement(max_parallel=1, wall_s=30, exit_status=0, verdicts={}, cpu=cpu, cell_s=[10, 10, 6])
    outside, ratio = schedule_ceiling(sequential, 2)
    assert outside == 4
    assert ratio == 30 / (4 + 13)


def test_each_cell_s_share_runs_from_the_end_of_the_attempt_before_it() -> None:
    start = datetime(2026, 1, 1)

    def at(seconds: float) -> datetime:
        return start + timedelta(seconds=seconds)

    assert cell_shares([(at(12), at(20)), (at(2), at(10))]) == [8, 10]  # 2 s of set-up between counts with the second
    assert cell_shares([]) == []
