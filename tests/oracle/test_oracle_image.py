"""How `python -m oracle image` builds and verifies: which Debian archive it builds from (the override, the machine's
apt sources, or mmdebstrap's default; never a host written into the code), that a root other than the pinned one is
never imported, and that an image that does not verify is refused, by the image command and by a grade alike."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from oracle import build, image, pinned
from oracle.engine import NotFound
from tests.needs import marked

ARCHIVE = "http://archive.example.invalid/debian"  # reserved .invalid name: never a real host


def _apt(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "sources.list.d").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_override_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(build.MIRROR_ENV, "http://override.example.invalid/debian")
    apt = _apt(tmp_path, {"sources.list": f"deb {ARCHIVE} bookworm main\n"})
    assert build.debian_mirror(apt) == "http://override.example.invalid/debian"


def test_a_one_line_source_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(build.MIRROR_ENV, raising=False)
    apt = _apt(tmp_path, {"sources.list": f"# a comment\ndeb [arch=amd64] {ARCHIVE} bookworm main\n"})
    assert build.debian_mirror(apt) == ARCHIVE


def test_a_deb822_source_is_used_and_security_and_disabled_files_are_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(build.MIRROR_ENV, raising=False)
    apt = _apt(
        tmp_path,
        {
            "sources.list.d/a.list.disabled-by-someone": "deb http://disabled.example.invalid/debian bookworm main\n",
            "sources.list.d/b-security.sources": "Types: deb\nURIs: http://security.example.invalid/debian-security\nSuites: bookworm-security\n",
            "sources.list.d/debian.sources": f"Types: deb\nURIs: {ARCHIVE}\nSuites: bookworm bookworm-updates\nComponents: main\n",
        },
    )
    assert build.debian_mirror(apt) == ARCHIVE


def test_no_source_means_mmdebstraps_own_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(build.MIRROR_ENV, raising=False)
    assert build.debian_mirror(_apt(tmp_path, {})) is None


def test_the_image_modules_name_no_host() -> None:
    for module in (image, build, pinned):
        source = Path(module.__file__ or "").read_text()
        assert not re.findall(r"[a-z]+://[^\s\"')]+", source), f"name no archive or mirror host in {module.__name__}"


def _root_tar(path: Path, status: str) -> Path:
    """A tiny root holding only a dpkg status file: anything but the pinned root."""
    data = status.encode()
    with tarfile.open(path, "w") as archive:
        member = tarfile.TarInfo(build.DPKG_STATUS)
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return path


def test_the_build_command_is_the_pinned_suite_pruned_and_emptied_of_this_machine(tmp_path: Path) -> None:
    lock = pinned.pinned_root()
    command = build.bootstrap_command("/usr/bin/mmdebstrap", tmp_path / "root.tar", "MIRROR", lock)
    assert {"--variant=minbase", "--include=python3", lock.suite} <= set(command)
    assert command[-2:] == [str(tmp_path / "root.tar"), "MIRROR"]
    [hook] = [part for part in command if part.startswith("--customize-hook=")]
    assert all(f'rm -rf "$1"/{part};' in hook for part in build.PRUNE)
    assert all(f': > "$1"/{part}; chmod {mode} "$1"/{part};' in hook for part, mode in build.EMPTIED.items())


def test_the_build_runs_with_no_bytecode_written_whatever_this_machine_sets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mmdebstrap hands its environment to the root's maintainer scripts: a machine without the variable wrote other bytes."""
    seen: list[dict[str, str]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        seen.append(dict(kwargs["env"]))  # type: ignore[call-overload]
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setattr(build, "_mmdebstrap", lambda: "/usr/bin/mmdebstrap")
    monkeypatch.setattr(build.subprocess, "run", fake_run)
    lock = pinned.pinned_root()
    build.build_root(tmp_path / "root.tar", lock)
    assert [(env["PYTHONDONTWRITEBYTECODE"], env["SOURCE_DATE_EPOCH"]) for env in seen] == [
        ("1", str(lock.source_date_epoch))
    ]


def test_the_lock_pins_one_layer_and_python3() -> None:
    lock = pinned.pinned_root()
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", lock.layer) and lock.source_date_epoch > 0
    assert lock.packages["python3"] and len(lock.packages) > 50


def test_a_root_other_than_the_pinned_one_is_refused_naming_what_changed(tmp_path: Path) -> None:
    lock = pinned.pinned_root()
    status = "".join(
        f"Package: {name}\nVersion: {'0.0-changed' if name == 'python3' else version}\n\n"
        for name, version in lock.packages.items()
    )
    tar = _root_tar(tmp_path / "root.tar", status)
    with pytest.raises(image.CannotGrade) as refused:
        build.verify_tar(tar, lock)
    message = str(refused.value)
    assert "is not the pinned root" in message and "\n" not in message
    assert f"python3 0.0-changed (pinned {lock.packages['python3']})" in message
    assert "oracle image --pin" in message


def test_the_pinned_root_verifies_and_so_does_the_pulled_pinned_image() -> None:
    lock = pinned.pinned_root()
    built = {"RootFS": {"Layers": [lock.layer]}, "Config": {"Env": lock.env}}
    assert pinned.problem(built, lock) is None
    pulled = {"RepoDigests": [pinned.PINNED_IMAGE], "RootFS": {"Layers": ["sha256:other"]}, "Config": {}}
    assert pinned.problem(pulled, lock) is None


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"RootFS": {"Layers": ["sha256:" + "0" * 64]}}, "are not the pinned root"),
        ({"Config": {"Env": ["LC_ALL=C.UTF-8", "LD_PRELOAD=/tmp/x.so"]}}, "Env"),
        ({"Config": {"Env": ["LC_ALL=C.UTF-8"], "Entrypoint": ["/bin/sh", "-c"]}}, "Entrypoint"),
        ({"Config": {"Env": ["LC_ALL=C.UTF-8"], "User": "0"}}, "User"),
    ],
)
def test_an_image_that_adds_a_layer_or_wraps_the_command_does_not_verify(change: dict, named: str) -> None:
    lock = pinned.pinned_root()
    inspected = {"RootFS": {"Layers": [lock.layer]}, "Config": {"Env": lock.env}, **change}
    why = pinned.problem(inspected, lock)
    assert why is not None and named in why


def _oracle(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "oracle", *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


@marked("docker")
def test_a_tampered_oracle_image_is_refused_by_the_image_command_and_by_a_grade(
    oracle_image, witness, good_zip: Path
) -> None:
    """The verified image with one file added (under a test tag of its own): nothing grades in it."""
    tag = f"everyday-evals-oracle:tampered-{os.getpid()}"
    holder = witness.containers.create(oracle_image.id, ["true"])
    try:
        holder.put_archive("/", _root_tar(Path(good_zip).with_name("extra.tar"), "tampered\n").read_bytes())
        tampered = holder.commit(*tag.split(":"))
    finally:
        holder.remove(force=True)
    try:
        refused = _oracle("image", env={image.IMAGE_ENV: tag})
        assert refused.returncode == 2 and refused.stdout == ""
        [line] = refused.stderr.splitlines()
        assert f"oracle image '{tag}' does not verify: its layers" in line
        graded = _oracle("grade", "--mode", "base", "--image", tag, str(good_zip))
        assert graded.returncode == 2 and "does not verify" in graded.stderr and graded.stdout == ""
        assert image.resolve(image.engine()).id == oracle_image.id  # the verified image is left as it was
    finally:
        witness.images.remove(tampered.id, force=True)
    with pytest.raises(NotFound):
        image.engine().image(tag)


@marked("docker")
def test_an_imported_root_other_than_the_pinned_one_is_not_used(client, tmp_path: Path) -> None:
    """How a root reaches the engine (import under a test tag), and that an unpinned one is refused."""
    reference = f"everyday-evals-oracle-import:test-{os.getpid()}"
    imported = build.import_tar(client, _root_tar(tmp_path / "root.tar", "Package: x\nVersion: 1\n"), reference)
    try:
        assert imported.tags == [reference]
        assert client.inspect_image(reference)["Config"]["Env"] == pinned.pinned_root().env
        with pytest.raises(image.CannotGrade, match="does not verify"):
            image.resolve(client, reference)
    finally:
        client.remove_image(imported.id)
    with pytest.raises(NotFound):
        client.image(reference)
