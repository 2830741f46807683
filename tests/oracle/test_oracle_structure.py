"""Structure checks on extracted folders (no container needed)."""

from __future__ import annotations

from pathlib import Path

from oracle.tasks.slugify import checks as ids
from oracle.tasks.slugify.structure import structure_checks


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)
    return root


def test_complete_project_passes_and_is_located(tmp_path: Path) -> None:
    checks, project = structure_checks(
        _tree(tmp_path, {"p/slugify.py": "", "p/README.md": "", "p/test_slugify.py": ""})
    )
    assert project == tmp_path / "p" and all(c.passed for c in checks)


def test_second_module_anywhere_fails(tmp_path: Path) -> None:
    checks, project = structure_checks(
        _tree(tmp_path, {"slugify.py": "", "old/slugify.py": "", "README": "", "tests/t.py": ""})
    )
    assert project is None and checks[0].id == ids.STRUCTURE_SINGLE_MODULE and "found 2" in checks[0].detail


def test_missing_module_fails(tmp_path: Path) -> None:
    checks, project = structure_checks(_tree(tmp_path, {"README.md": ""}))
    assert project is None and "found 0" in checks[0].detail


def test_package_beside_module_shadows_it(tmp_path: Path) -> None:
    checks, project = structure_checks(
        _tree(tmp_path, {"slugify.py": "", "slugify/__init__.py": "", "README": "", "test_x.py": ""})
    )
    assert project is None and "shadowed" in checks[0].detail


def test_missing_readme_and_tests_are_separate_failures(tmp_path: Path) -> None:
    checks, project = structure_checks(_tree(tmp_path, {"slugify.py": ""}))
    failed = {c.id for c in checks if not c.passed}
    assert project is not None and failed == {ids.STRUCTURE_README, ids.STRUCTURE_TESTS}


def test_macos_metadata_is_ignored(tmp_path: Path) -> None:
    checks, _ = structure_checks(
        _tree(tmp_path, {"slugify.py": "", "__MACOSX/slugify.py": "", "README": "", "test_a.py": ""})
    )
    assert all(c.passed for c in checks)
