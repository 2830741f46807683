"""Pure functions of the scripted agent: how it reads requests and packs deliveries."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from harness.agents.scripted.agent import (
    DELEGATION,
    nonce_in,
    strip_delegation,
    suite_request,
    zip_workspace,
)
from harness.agents.scripted.slugify_project import Requirements
from oracle.tasks.slugify.contract import BUILD_TASK, LATE_REQUIREMENT_MAX_LENGTH, REVISION_SEPARATOR
from oracle.tasks.slugify_tests.contract import QA_TASK, qa_delegation_task


def test_requirements_come_from_keywords_in_the_contract_texts() -> None:
    assert Requirements.from_texts([BUILD_TASK]) == Requirements()
    assert Requirements.from_texts([BUILD_TASK, REVISION_SEPARATOR]) == Requirements(separator=True)
    assert Requirements.from_texts([BUILD_TASK, LATE_REQUIREMENT_MAX_LENGTH]) == Requirements(max_length=True)


def test_nonce_requests() -> None:
    assert nonce_in("Just give me a short reply with the nonce K7Q2X9.") == "K7Q2X9"
    assert nonce_in("Reply briefly, include nonce: `n-4f9a2c` and nothing else") == "n-4f9a2c"
    assert nonce_in("The nonce is 'abc123'") == "abc123"
    assert nonce_in(REVISION_SEPARATOR) is None


def test_delegation_sentence_is_found_and_removed_for_the_child() -> None:
    body = f"Ask your teammate Bea to build this through one child task.\n\n{BUILD_TASK}"
    match = DELEGATION.search(body)
    assert match and match.group(1) == "Bea"
    assert strip_delegation(body) == BUILD_TASK


def test_workspace_zip_is_reproducible_and_skips_hidden_files(tmp_path: Path) -> None:
    (tmp_path / "slugify.py").write_text("print('x')\n")
    (tmp_path / ".secret").write_text("no")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"\0")
    first = zip_workspace(tmp_path)
    (tmp_path / "slugify.py").touch()
    assert zip_workspace(tmp_path) == first
    assert zipfile.ZipFile(io.BytesIO(first)).namelist() == ["slugify.py"]


def test_a_qa_request_is_told_from_a_build_and_its_delegation_leaves_the_brief_whole() -> None:
    assert suite_request(QA_TASK) and not suite_request(BUILD_TASK)
    delegated = qa_delegation_task("Morgan")
    assert DELEGATION.search(delegated).group(1) == "Morgan"  # type: ignore[union-attr]
    assert strip_delegation(delegated) == QA_TASK.strip()
