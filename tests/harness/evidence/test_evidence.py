"""The evidence recorder lays out the package and never keeps a secret."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness.evidence.recorder import SUBFOLDERS, EvidenceRecorder
from harness.evidence.secret_scan import describe, scan_tree, secrets_from_environment


def test_package_layout_and_download_hash(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(tmp_path / "attempt")
    for name in SUBFOLDERS:
        assert (recorder.folder / name).is_dir()
    record = recorder.download("build", b"PK zip bytes")
    assert record.path == "downloads/build.zip"
    assert record.sha256 == hashlib.sha256(b"PK zip bytes").hexdigest()
    assert (recorder.folder / record.path).read_bytes() == b"PK zip bytes"
    recorder.oracle_result(record, "base", True, {"passed": True})
    assert record.oracle_result == "oracle/build.json"
    assert json.loads((recorder.folder / "oracle/build.json").read_text()) == {"passed": True}
    assert recorder.screenshot_path("Task 1 created").name == "01-task-1-created.png"
    assert recorder.screenshot_path("final").name == "02-final.png"


def test_secret_is_withheld_and_named_by_file_not_value(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(tmp_path / "attempt")
    token = "run-token-abcdef123456"
    recorder.snapshot("runs", {"token": token})
    recorder.snapshot("tasks", {"ok": True})
    findings = recorder.withhold_secrets({"run token": token})
    assert describe(findings) == "snapshots/runs.json holds a run token"
    assert token not in describe(findings)
    assert not (recorder.folder / "snapshots/runs.json").exists()
    assert (recorder.folder / "snapshots/runs.json.withheld").exists()
    assert scan_tree(recorder.folder, {"run token": token}) == []
    assert recorder.withhold_secrets({"run token": token}) == []


def test_credential_shapes_are_found_without_being_told(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("calling with sk-" + "A" * 40)
    assert [f.kind for f in scan_tree(tmp_path, {})] == ["openai-style key"]


def test_environment_secrets_are_picked_by_name() -> None:
    env = {
        "OPENAI_API_KEY": "sk-live-123456789",
        "HOME": "/root",
        "GITHUB_TOKEN": "short",
        "DB_PASSWORD": "hunter2hunter2",
    }
    assert secrets_from_environment(env) == {"OPENAI_API_KEY": "sk-live-123456789", "DB_PASSWORD": "hunter2hunter2"}


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_a_secret_deflated_inside_a_nested_archive_is_found_and_the_archive_withheld(tmp_path: Path) -> None:
    from harness.products.testbed.secrets import SECRET_PATTERNS as TESTBED_SHAPES

    recorder = EvidenceRecorder(tmp_path / "attempt")
    key = "real-provider-key-" + "x" * 30
    dump = ("PATH=/usr/bin\nMETERED_API_KEY=throwaway-" + "k" * 32 + "\n" + "padding " * 500).encode()
    inner = _zip({"environment.txt": dump + key.encode()})
    recorder.download("build", _zip({"slugify.py": b"print()", "nested/inner.zip": inner}))
    (recorder.folder / "trace.zip").write_bytes(
        _zip({"trace.network": ("authorization: Bearer tbrun_" + "t" * 40).encode() * 20})
    )
    assert key.encode() not in (recorder.folder / "downloads/build.zip").read_bytes(), "deflated: raw bytes hide it"
    findings = recorder.withhold_secrets({"provider key": key}, TESTBED_SHAPES)
    assert {(f.path, f.kind) for f in findings} == {
        ("downloads/build.zip!nested/inner.zip!environment.txt", "provider key"),
        ("downloads/build.zip!nested/inner.zip!environment.txt", "metering proxy key"),
        ("trace.zip!trace.network", "testbed run token"),
    }
    assert key not in describe(findings)
    assert (
        not (recorder.folder / "downloads/build.zip").exists()
        and (recorder.folder / "downloads/build.zip.withheld").exists()
    )
    assert not (recorder.folder / "trace.zip").exists()


def test_a_key_shape_in_the_products_published_ui_is_not_a_leak_but_a_known_secret_is(tmp_path: Path) -> None:
    """Paperclip's UI bundle carries a made-up ``sk-live-...`` example: recorded in a trace, it is the product's
    public text. The same bytes anywhere else, or this run's real secret inside the bundle, still fail."""
    bundle = b'STRIPE_API_KEY:{type:"plain",value:"sk-live-51H8xL0aBcDeFgHiJkLmNoPq"}'
    published = frozenset({hashlib.sha256(bundle).hexdigest()})
    (tmp_path / "trace.zip").write_bytes(_zip({"resources/ui.js": bundle}))
    assert scan_tree(tmp_path, {}, published=published) == []
    assert [f.path for f in scan_tree(tmp_path, {})] == ["trace.zip!resources/ui.js"]
    (tmp_path / "log.txt").write_bytes(bundle + b" ")  # not the published file: a shape in our own evidence
    assert [f.path for f in scan_tree(tmp_path, {}, published=published)] == ["log.txt"]
    secret = "sk-live-51H8xL0aBcDeFgHiJkLmNoPq"
    assert {(f.path, f.kind) for f in scan_tree(tmp_path, {"run token": secret}, published=published)} == {
        ("log.txt", "openai-style key"),
        ("log.txt", "run token"),
        ("trace.zip!resources/ui.js", "run token"),
    }


def _patched(data: bytes, field: str, value: int) -> bytes:
    """A one-member ZIP with its ``flags`` or compression ``method`` set to ``value`` (local and central headers)."""
    local, central = {"flags": (6, 8), "method": (8, 10)}[field]
    patched = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", local), (b"PK\x01\x02", central)):
        at = patched.index(signature) + offset
        patched[at : at + 2] = value.to_bytes(2, "little")
    return bytes(patched)


def test_an_archive_member_the_scan_cannot_read_is_reported_never_taken_for_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zipfile

    from harness.evidence import secret_scan

    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "big.zip").write_bytes(_zip({"large.bin": b"x" * 4096}))
    for name in ("sealed", "odd"):
        with zipfile.ZipFile(tmp_path / f"{name}.zip", "w", zipfile.ZIP_STORED) as archive:
            archive.writestr(f"{name}.txt", b"what the scan must not take for clean")
    (folder / "sealed.zip").write_bytes(_patched((tmp_path / "sealed.zip").read_bytes(), "flags", 0x1))
    (folder / "odd.zip").write_bytes(_patched((tmp_path / "odd.zip").read_bytes(), "method", 99))
    monkeypatch.setattr(secret_scan, "MAX_MEMBER_BYTES", 1024)
    findings = scan_tree(folder, {})
    assert {(f.path, f.kind) for f in findings} == {
        ("big.zip!large.bin", secret_scan.UNSCANNABLE),
        ("sealed.zip!sealed.txt", secret_scan.UNSCANNABLE),
        ("odd.zip!odd.txt", secret_scan.UNSCANNABLE),
    }
    said = describe(findings)
    assert "big.zip!large.bin could not be scanned (4096 bytes, over the scan's 1024)" in said
    assert "sealed.zip!sealed.txt could not be scanned (encrypted)" in said
    assert "odd.zip!odd.txt could not be scanned (compression method 99" in said
    monkeypatch.setattr(secret_scan, "MAX_MEMBER_BYTES", 1 << 20)
    assert {f.path for f in scan_tree(folder, {})} == {"sealed.zip!sealed.txt", "odd.zip!odd.txt"}
