"""Structure checks on the extracted delivery: one importable slugify.py, a README, tests.

These run on the host against file names only (no delivery code runs) and
also locate the project folder the sandbox will run the tool in.
"""

from __future__ import annotations

from pathlib import Path

from oracle.checks import Check
from oracle.tasks.slugify import checks as ids
from oracle.tasks.slugify.checks import check
from oracle.tasks.slugify.contract import SOURCE_FILE

_MODULE = Path(SOURCE_FILE).stem
_IGNORED_PARTS = {"__MACOSX"}


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not _IGNORED_PARTS & set(p.relative_to(root).parts)]


def _shadows(project: Path) -> list[str]:
    """Things beside slugify.py that `import slugify` could pick instead of it."""
    found = []
    package = project / _MODULE
    if package.is_dir():
        found.append(f"a '{_MODULE}/' folder")
    found += [
        p.name
        for p in project.iterdir()
        if p.is_file()
        and p.name != SOURCE_FILE
        and p.name.startswith(_MODULE + ".")
        and p.suffix in {".so", ".pyc", ".pyd", ".pyw"}
    ]
    return found


def _is_test_file(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or "tests" in {p.lower() for p in path.parts[:-1]}
    )


def structure_checks(root: Path) -> tuple[list[Check], Path | None]:
    """Return the structure checks and the project folder (where slugify.py lives), or None if unusable."""
    files = _files(root)
    modules = [p for p in files if p.name == SOURCE_FILE]
    if len(modules) != 1:
        where = ", ".join(str(p.relative_to(root)) for p in modules) or "nowhere"
        result = [
            check(
                ids.STRUCTURE_SINGLE_MODULE, False, f"expected exactly one {SOURCE_FILE}, found {len(modules)}: {where}"
            )
        ]
        return result, None
    project = modules[0].parent
    shadows = _shadows(project)
    if shadows:
        return [check(ids.STRUCTURE_SINGLE_MODULE, False, f"{SOURCE_FILE} is shadowed by {', '.join(shadows)}")], None
    readmes = [p for p in files if p.name.lower().startswith("readme")]
    tests = [p for p in files if _is_test_file(p.relative_to(root))]
    relative = modules[0].relative_to(root)
    return [
        check(ids.STRUCTURE_SINGLE_MODULE, True, f"one module at {relative}"),
        check(
            ids.STRUCTURE_README,
            bool(readmes),
            f"README at {readmes[0].relative_to(root)}" if readmes else "no README file in the delivery",
        ),
        check(
            ids.STRUCTURE_TESTS,
            bool(tests),
            f"{len(tests)} test file(s)" if tests else "no test files (test_*.py, *_test.py or tests/) in the delivery",
        ),
    ], project
