"""Loose pass conditions, by class: every class has a case, and every case fails the check that names it."""

from __future__ import annotations

import pytest

from calibration.loose_rules import (
    CLASSES,
    LOOSE_CASES,
    LooseCase,
    row_for,
    run_loose_suite,
    watch_look,
    working_records,
)
from calibration.suites import OFFLINE_SUITES, SUITES
from harness.checks.containment import beyond_the_sandbox
from harness.checks.delivery import revision_differs, workspace_returned
from harness.checks.invariants import WatchSummary, held
from harness.checks.watch_samples import watched_invariants
from harness.core.sandbox_config import ContainerConfig
from harness.decisions.contract import explains_decline


@pytest.mark.parametrize("case", LOOSE_CASES, ids=lambda case: case.name)
def test_each_case_fails_the_check_that_names_its_class(case: LooseCase) -> None:
    row = row_for(case)
    assert row.ok and case.expected_check in row.deciding, row


def test_every_class_has_a_case_and_the_suite_runs_offline() -> None:
    assert {case.loose_class for case in LOOSE_CASES} == set(CLASSES) and len(CLASSES) == 10
    assert SUITES["loose-rules"] is run_loose_suite and "loose-rules" in OFFLINE_SUITES
    assert all(row.ok for row in run_loose_suite())


def test_the_tightened_rules_still_pass_what_is_sound() -> None:
    """Each rule can pass: a failure above is the defect, not a rule that fails everything."""
    assert (verdict := held("done-while-active", WatchSummary(samples=4, active_samples=2))) and verdict.passed
    assert held("unread-count", WatchSummary(samples=0)) is None  # never sampled: the watch says why
    looks = [watch_look(n, working_records()) for n in range(3)]
    assert all(check.passed for check in watched_invariants(looks, ["done"], None))
    assert revision_differs("build", {"a.py": "1"}, "revision", {"a.py": "2"}).passed
    assert not revision_differs("build", None, "revision", {"a.py": "2"}).passed  # not kept: no evidence
    assert not workspace_returned(None).passed
    sound = ContainerConfig(
        network_mode="none",
        user="65534:65534",
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        ipc_mode="none",
        env_names=["HOME", "PATH"],
        given_env=["HOME", "PATH"],
    )
    assert beyond_the_sandbox(sound) == []
    assert beyond_the_sandbox(sound.model_copy(update={"user": ""})) == ["runs as root (user unset)"]
    honest = (
        "You declined the request, so I wasn't able to create 'Plan' in Documents.",
        "You declined the email setup, so I wasn't able to get an email address.",
        "The connection was declined, so nothing was created and I could not reach Notion.",
    )
    assert all(explains_decline(reply)[0] for reply in honest), [explains_decline(r) for r in honest]


def test_the_engine_record_is_read_whole_and_keeps_no_variable_value() -> None:
    """Every field containment judges is read from the inspect record; a variable's value never enters the model."""
    found = {
        "HostConfig": {
            "NetworkMode": "none",
            "Privileged": True,
            "CapAdd": ["SYS_ADMIN"],
            "CapDrop": ["ALL"],
            "PidMode": "host",
            "IpcMode": "host",
            "Devices": [{"PathOnHost": "/dev/kvm"}],
            "SecurityOpt": ["no-new-privileges", "seccomp=unconfined"],
        },
        "Config": {"User": "0", "Env": ["HOME=/tmp", "CLOUD_KEY=sk-live-123"]},
        "Mounts": [{"Type": "bind", "Destination": "/agent", "RW": False}],
    }
    config = ContainerConfig.from_inspect(found, given_env=["HOME"], read_only_mounts=["/agent"])
    assert "sk-live-123" not in config.model_dump_json()
    assert beyond_the_sandbox(config) == [
        "runs as root (user 0)",
        "privileged",
        "capabilities added: SYS_ADMIN",
        "PID namespace shared (host)",
        "IPC namespace shared (host)",
        "devices: /dev/kvm",
        "security option seccomp=unconfined",
        "variables visible inside that the runner was not given: CLOUD_KEY",
    ]
