"""Real containers: hardening as the engine sees it, deadlines, and cleanup by label."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from docker.errors import NotFound

from calibration.deliveries import ENDLESS, project
from calibration.sources import gated
from calibration.zips import zip_bytes
from oracle import checks as engine
from oracle import grade
from oracle.sandbox import (
    DELIVERY_MOUNT,
    LABEL,
    LABEL_EXPIRES,
    LABEL_PID,
    USER,
    VOLUME,
    SandboxLimits,
    Standby,
    create_hardened,
    hardened_container,
    labels,
    remove_leftovers,
    wait_bounded,
)
from oracle.tasks.slugify import checks as ids


def _ours(witness) -> list[dict]:
    return witness.api.containers(all=True, filters={"label": LABEL})


def test_container_is_hardened_and_has_no_bind_mount(client, witness, oracle_image, tmp_path: Path) -> None:
    limits = SandboxLimits()
    (tmp_path / "slugify.py").write_text("print('hi')\n")
    with hardened_container(client, oracle_image.id, ["python3", "-c", "pass"], limits, tmp_path) as container_id:
        inspected = witness.api.inspect_container(container_id)
    host = inspected["HostConfig"]
    assert inspected["Config"]["User"] == USER == "65534:65534"
    assert not host.get("Binds"), "the delivery must be copied in, never bind-mounted"
    assert [(m["Type"], m["Target"], m.get("Source", "")) for m in host["Mounts"]] == [("volume", VOLUME, "")], (
        "only an anonymous volume, no host path"
    )
    assert [(m["Type"], m["Destination"]) for m in inspected["Mounts"]] == [("volume", VOLUME)]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and host["SecurityOpt"] == ["no-new-privileges"]
    assert host["PidsLimit"] == limits.pids and host["NanoCpus"] == limits.nano_cpus
    assert host["Memory"] == host["MemorySwap"] == limits.memory_bytes
    assert "size=16m" in host["Tmpfs"]["/tmp"]
    assert host["LogConfig"] == {"Type": "json-file", "Config": {"max-file": "1", "max-size": "1m"}}
    assert host["IpcMode"] == "none" and host["Ulimits"] == [
        {"Name": "nofile", "Soft": 256, "Hard": 256},
        {"Name": "core", "Soft": 0, "Hard": 0},
        {"Name": "fsize", "Soft": 16 << 20, "Hard": 16 << 20},
    ]
    assert inspected["Config"]["Labels"][LABEL] == "1" and inspected["Config"]["Labels"][LABEL_PID] == str(os.getpid())
    assert "HOME=/tmp" in inspected["Config"]["Env"] and inspected["Config"]["WorkingDir"] == "/tmp"
    with pytest.raises(NotFound):
        witness.api.inspect_volume(inspected["Mounts"][0]["Name"])  # the /oracle volume goes with its container


def test_the_copied_delivery_is_readable_but_not_writable_inside(client, witness, oracle_image, tmp_path: Path) -> None:
    """Root owns the copy (folders 0555, files 0444); the delivery's code, running as nobody, cannot change it."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "slugify.py").write_text("print('hi')\n")
    probe = (
        "import os, sys\n"
        f"d = {DELIVERY_MOUNT!r}\n"
        "print(open(d + '/pkg/slugify.py').read().strip())\n"
        "print(oct(os.stat(d + '/pkg').st_mode & 0o777), oct(os.stat(d + '/pkg/slugify.py').st_mode & 0o777), os.stat(d + '/pkg/slugify.py').st_uid)\n"
        "for attempt in (lambda: open(d + '/pkg/slugify.py', 'a'), lambda: open(d + '/new.py', 'w'), lambda: open(d + '/pkg/new.py', 'w'),\n"
        "                lambda: os.chmod(d + '/pkg/slugify.py', 0o666), lambda: os.remove(d + '/pkg/slugify.py'), lambda: open(d + '/../plan.json', 'w')):\n"
        "    try:\n"
        "        attempt(); print('WROTE')\n"
        "    except OSError as e:\n"
        "        print(type(e).__name__)\n"
    )
    limits = SandboxLimits()
    with hardened_container(client, oracle_image.id, ["python3", "-c", probe], limits, tmp_path) as container_id:
        assert wait_bounded(client, container_id, limits) == (0, False)
        lines = witness.api.logs(container_id, stdout=True, stderr=True).decode().splitlines()
    assert lines[:2] == ["print('hi')", "0o555 0o444 0"]
    assert "WROTE" not in lines and len(lines) == 8, lines


def test_a_grade_leaves_no_container_behind(client, witness, good_zip: Path) -> None:
    import os

    mine = lambda: [c["Id"] for c in _ours(witness) if c["Labels"].get(LABEL_PID) == str(os.getpid())]  # noqa: E731 (others may grade on this engine too)
    before = set(mine())
    result = grade(good_zip, "base", client=client)
    assert result.passed and result.image and result.image.startswith("sha256:")
    assert set(mine()) <= before


def test_container_is_removed_on_ctrl_c(client, witness, oracle_image) -> None:
    with (
        pytest.raises(KeyboardInterrupt),
        hardened_container(client, oracle_image.id, ["sleep", "30"], SandboxLimits()) as container_id,
    ):
        created = container_id
        raise KeyboardInterrupt
    assert created not in {c["Id"] for c in _ours(witness)}


def test_leftovers_of_dead_grades_are_removed_and_live_ones_kept(client, witness, oracle_image) -> None:
    limits = SandboxLimits()
    owners = {
        "dead": {**labels(30), LABEL_PID: "999999999"},
        "expired": {**labels(30), LABEL_EXPIRES: str(int(time.time()) - 1)},
        "live": labels(30),
    }
    made = {
        name: create_hardened(client, oracle_image.id, ["python3", "-c", "pass"], limits, owner)
        for name, owner in owners.items()
    }
    try:
        remove_leftovers(client)
        remaining = {c["Id"] for c in _ours(witness)}
        assert made["dead"] not in remaining and made["expired"] not in remaining
        assert made["live"] in remaining
    finally:
        witness.api.remove_container(made["live"], force=True, v=True)


def test_grade_deadline_is_enforced_from_the_host(client, tmp_path: Path) -> None:
    path = tmp_path / "endless.zip"
    path.write_bytes(zip_bytes(project(gated(ENDLESS, "True"))))
    result = grade(path, "base", command_timeout_s=20, deadline_s=2, client=client)
    # Ended by the 2 s deadline, which the host enforces and names: not by the endless call's 20 s command timeout.
    assert (
        result.deciding_check == engine.SANDBOX_COMPLETED
        and "within 2 s and was killed" in next(c for c in result.checks if c.id == engine.SANDBOX_COMPLETED).detail
    )


def test_agent_tests_are_recorded_but_never_decide(client, tmp_path: Path) -> None:
    from calibration.deliveries import SELF_TESTS_OF_WRONG, WRONG_BUT_SELF_TESTED

    path = tmp_path / "wrong.zip"
    path.write_bytes(zip_bytes(project(WRONG_BUT_SELF_TESTED, SELF_TESTS_OF_WRONG)))
    result = grade(path, "base", agent_tests=True, client=client)
    assert [d.id for d in result.diagnostics] == [ids.DIAGNOSTIC_AGENT_TESTS]
    assert result.diagnostics[0].passed, result.diagnostics[0].detail
    assert "Ran 1 test" in result.diagnostics[0].detail
    assert not result.passed and result.deciding_check == ids.BASE_CLI


def test_container_of_a_killed_grade_is_removed_by_the_next_run(client, witness, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    path = tmp_path / "endless.zip"
    path.write_bytes(zip_bytes(project(gated(ENDLESS, "True"))))
    grading = subprocess.Popen(
        [sys.executable, "-m", "oracle", "grade", "--mode", "base", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        # running, not merely listed: the engine lists a container while its creation (volume included) is still under way
        while not (
            mine := [
                c for c in _ours(witness) if c["Labels"].get(LABEL_PID) == str(grading.pid) and c["State"] == "running"
            ]
        ):
            assert time.monotonic() < deadline and grading.poll() is None, "the grade never started its container"
            time.sleep(0.05)
    finally:
        os.kill(grading.pid, signal.SIGKILL)
        grading.wait()
    assert mine[0]["Id"] in {c["Id"] for c in _ours(witness)}, (
        "a SIGKILLed grade cannot clean up, so its container should still be there"
    )
    remove_leftovers(client)
    assert mine[0]["Id"] not in {c["Id"] for c in _ours(witness)}


def test_a_standby_nobody_feeds_is_removed_and_ran_nothing(client, witness, oracle_image, tmp_path: Path) -> None:
    """A grade stopped by intake closes the container it started ahead: nothing stays on the engine."""
    with Standby(client, oracle_image.id, SandboxLimits()) as standby:
        container_id = standby.container_id()
        state = witness.api.inspect_container(container_id)["State"]
        assert state["Running"] is True  # waiting for /oracle/ready, with nothing of a delivery inside
    assert container_id not in {c["Id"] for c in _ours(witness)}
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    ahead = Standby(client, oracle_image.id, SandboxLimits())
    from oracle import GradeJob, grade_batch

    [result] = grade_batch([GradeJob(zip_path=broken, mode="base")], client=client, standby=ahead)
    assert result.deciding_check == engine.INTAKE_READABLE
    assert ahead.container_id() not in {c["Id"] for c in _ours(witness)}
    import os

    before = {c["Id"] for c in _ours(witness) if c["Labels"].get(LABEL_PID) == str(os.getpid())}
    # In-process, the grade starts its own container ahead of intake: stopped by intake, it leaves nothing either.
    assert grade(broken, "base", client=client).deciding_check == engine.INTAKE_READABLE
    assert {c["Id"] for c in _ours(witness) if c["Labels"].get(LABEL_PID) == str(os.getpid())} <= before


def test_a_volume_left_by_a_removal_without_v_is_swept(client, witness, oracle_image) -> None:
    """Code that removes our container but forgets its volume (v=True) leaves nothing for long: the next grade's sweep prunes it."""
    limits = SandboxLimits()
    container_id = create_hardened(client, oracle_image.id, ["python3", "-c", "pass"], limits)
    [volume] = [m["Name"] for m in witness.api.inspect_container(container_id)["Mounts"]]
    witness.api.remove_container(container_id, force=True)  # no v=True
    assert witness.api.inspect_volume(volume)["Labels"] == {LABEL: "1"}
    remove_leftovers(client)
    with pytest.raises(NotFound):
        witness.api.inspect_volume(volume)


def test_the_delivery_goes_in_through_a_holder_that_never_runs(client, witness, oracle_image, tmp_path: Path) -> None:
    """The copy lands in a created, never-started holder that shares the standby's volume (so it need not wait for
    the standby's start); the standby reads it, and the holder, the standby and their volume all go."""
    import json
    import os

    delivery = tmp_path / "delivery"
    delivery.mkdir()
    (delivery / "slugify.py").write_text("print('hi')\n")
    collector = tmp_path / "collector.py"
    collector.write_text("import json, os\nprint(json.dumps(sorted(os.listdir('/oracle/delivery'))))\n")
    mine = lambda: [c for c in _ours(witness) if c["Labels"].get(LABEL_PID) == str(os.getpid())]  # noqa: E731
    with Standby(client, oracle_image.id, SandboxLimits()) as standby:
        standby_id = standby.container_id()
        deadline = time.monotonic() + 20
        while not (holders := [c["Id"] for c in mine() if c["Id"] != standby_id]):
            assert time.monotonic() < deadline, "the standby never got a holder"
            time.sleep(0.05)
        holder = witness.api.inspect_container(holders[0])
        assert holder["State"]["Status"] == "created" and holder["HostConfig"]["VolumesFrom"] == [standby_id]
        assert holder["HostConfig"]["NetworkMode"] == "none" and holder["Config"]["User"] == USER
        [volume] = [m["Name"] for m in witness.api.inspect_container(standby_id)["Mounts"]]
        run = standby.run(delivery, collector, {})
        assert run.exit == 0 and json.loads(run.stdout) == ["slugify.py"]
    assert mine() == [], "the holder or the standby outlived the grade"
    with pytest.raises(NotFound):
        witness.api.inspect_volume(volume)  # the volume went with the last container using it
