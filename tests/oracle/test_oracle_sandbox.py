"""Real containers: hardening as the engine sees it, deadlines, and cleanup by label."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from calibration.deliveries import ENDLESS, project
from calibration.sources import gated
from calibration.zips import zip_bytes
from oracle import checks as engine
from oracle import grade
from oracle.sandbox import DELIVERY_MOUNT, LABEL, LABEL_EXPIRES, LABEL_PID, SandboxLimits, hardened_container, hardening, remove_leftovers
from oracle.tasks.slugify import checks as ids


def _ours(client) -> list[dict]:
    return client.api.containers(all=True, filters={"label": LABEL})


def test_container_is_hardened(client, oracle_image, tmp_path: Path) -> None:
    limits = SandboxLimits()
    mounts = {str(tmp_path): {"bind": DELIVERY_MOUNT, "mode": "ro"}}
    with hardened_container(client, oracle_image.id, ["python3", "-c", "pass"], limits, mounts) as container:
        inspected = client.api.inspect_container(container.id)
    host = inspected["HostConfig"]
    assert inspected["Config"]["User"] == "65534:65534"
    assert [(m["Destination"], m["RW"]) for m in inspected["Mounts"]] == [(DELIVERY_MOUNT, False)]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
    assert host["PidsLimit"] == limits.pids and host["NanoCpus"] == limits.nano_cpus
    assert host["Memory"] == host["MemorySwap"] == limits.memory_bytes
    assert "size=16m" in host["Tmpfs"]["/tmp"]
    assert host["LogConfig"] == {"Type": "json-file", "Config": {"max-file": "1", "max-size": "1m"}}


def test_a_grade_leaves_no_container_behind(client, good_zip: Path) -> None:
    before = {c["Id"] for c in _ours(client)}
    result = grade(good_zip, "base", client=client)
    assert result.passed and result.image and result.image.startswith("sha256:")
    assert {c["Id"] for c in _ours(client)} <= before


def test_container_is_removed_on_ctrl_c(client, oracle_image) -> None:
    with pytest.raises(KeyboardInterrupt), hardened_container(client, oracle_image.id, ["sleep", "30"], SandboxLimits()) as container:
        created = container.id
        raise KeyboardInterrupt
    assert created not in {c["Id"] for c in _ours(client)}


def test_leftovers_of_dead_grades_are_removed_and_live_ones_kept(client, oracle_image) -> None:
    limits = SandboxLimits()
    dead = hardening(limits, 30)
    dead["labels"] = {**dead["labels"], LABEL_PID: "999999999"}
    expired = hardening(limits, 30)
    expired["labels"] = {**expired["labels"], LABEL_EXPIRES: str(int(time.time()) - 1)}
    live = hardening(limits, 30)
    made = {name: client.containers.create(oracle_image.id, ["python3", "-c", "pass"], **kw).id for name, kw in [("dead", dead), ("expired", expired), ("live", live)]}
    try:
        remove_leftovers(client)
        remaining = {c["Id"] for c in _ours(client)}
        assert made["dead"] not in remaining and made["expired"] not in remaining
        assert made["live"] in remaining
    finally:
        client.api.remove_container(made["live"], force=True)


def test_grade_deadline_is_enforced_from_the_host(client, tmp_path: Path) -> None:
    path = tmp_path / "endless.zip"
    path.write_bytes(zip_bytes(project(gated(ENDLESS, "True"))))
    started = time.monotonic()
    result = grade(path, "base", command_timeout_s=20, deadline_s=2, client=client)
    assert time.monotonic() - started < 10
    assert result.deciding_check == engine.SANDBOX_COMPLETED and "killed" in next(c for c in result.checks if c.id == engine.SANDBOX_COMPLETED).detail


def test_agent_tests_are_recorded_but_never_decide(client, tmp_path: Path) -> None:
    from calibration.deliveries import SELF_TESTS_OF_WRONG, WRONG_BUT_SELF_TESTED

    path = tmp_path / "wrong.zip"
    path.write_bytes(zip_bytes(project(WRONG_BUT_SELF_TESTED, SELF_TESTS_OF_WRONG)))
    result = grade(path, "base", agent_tests=True, client=client)
    assert [d.id for d in result.diagnostics] == [ids.DIAGNOSTIC_AGENT_TESTS]
    assert result.diagnostics[0].passed, result.diagnostics[0].detail
    assert "Ran 1 test" in result.diagnostics[0].detail
    assert not result.passed and result.deciding_check == ids.BASE_CLI


def test_container_of_a_killed_grade_is_removed_by_the_next_run(client, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    path = tmp_path / "endless.zip"
    path.write_bytes(zip_bytes(project(gated(ENDLESS, "True"))))
    grading = subprocess.Popen([sys.executable, "-m", "oracle", "grade", "--mode", "base", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not (mine := [c for c in _ours(client) if c["Labels"].get(LABEL_PID) == str(grading.pid)]):
            assert time.monotonic() < deadline and grading.poll() is None, "the grade never started its container"
            time.sleep(0.05)
    finally:
        os.kill(grading.pid, signal.SIGKILL)
        grading.wait()
    assert mine[0]["Id"] in {c["Id"] for c in _ours(client)}, "a SIGKILLed grade cannot clean up, so its container should still be there"
    remove_leftovers(client)
    assert mine[0]["Id"] not in {c["Id"] for c in _ours(client)}
