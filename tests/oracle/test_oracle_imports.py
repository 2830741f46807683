"""The oracle sits at the bottom of the house: nothing under oracle/ imports the packages built on it, and the engine imports no task."""

from __future__ import annotations

import ast
from pathlib import Path

import oracle
from oracle import tasks

ORACLE = Path(oracle.__file__).parent
ABOVE_THE_ORACLE = {"calibration", "harness", "bench", "stories", "testbed", "replay"}


def imported(source: str) -> set[str]:
    """Every absolute module name a source imports, with `from m import x` also counted as `m.x`."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return names


def wrong_imports(source: str, engine: bool) -> list[str]:
    """Imports that point up the house, plus, in an engine module, any import of a task by name."""
    names = imported(source)
    wrong = {n for n in names if n.split(".")[0] in ABOVE_THE_ORACLE}
    if engine:
        wrong |= {n for n in names if n.startswith("oracle.tasks.") and n.split(".")[2] in tasks.known()}
    return sorted(wrong)


def test_the_scan_catches_what_it_is_for() -> None:
    source = "import harness.cli\nfrom bench import oracle\nfrom oracle.tasks import slugify, load\nfrom .checks import Check\n"
    assert wrong_imports(source, engine=True) == ["bench", "bench.oracle", "harness.cli", "oracle.tasks.slugify"]
    assert wrong_imports(source, engine=False) == ["bench", "bench.oracle", "harness.cli"]


def test_nothing_under_oracle_imports_upwards_and_the_engine_imports_no_task() -> None:
    found = {}
    for path in sorted(ORACLE.rglob("*.py")):
        relative = path.relative_to(ORACLE)
        engine = relative.parts[0] != "tasks" or relative == Path("tasks/__init__.py")
        if wrong := wrong_imports(path.read_text(), engine):
            found[str(relative)] = wrong
    assert found == {}


def test_the_command_line_loads_heavy_modules_only_to_grade() -> None:
    """`python -m oracle` answers a usage error before importing the Docker SDK, pydantic or any task (start-up is part of every grade)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "import oracle.cli\n"
        "try:\n"
        "    oracle.cli.main(['grade', '--mode', 'base', '--deadline', '0', 'x.zip'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('docker', 'pydantic', 'requests') or m.startswith('oracle.tasks.'))\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "", done.stdout + done.stderr


def test_the_image_and_preflight_commands_need_only_the_standard_library() -> None:
    """`make oracle-image` runs them on the system Python, beside pip: an import from the virtualenv would fail there.

    The probe runs with site-packages off (-S) from the project's root, so only the standard library and the
    project's own folders can be imported, and it checks what the two commands' modules pulled in.
    """
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from oracle import build, cli, image\n"
        "outside = sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'oracle', '__main__'})\n"
        "print(','.join(outside) or 'stdlib only')\n"
    )
    root = ORACLE.parent
    done = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.stdout.strip() == "stdlib only", done.stdout + done.stderr


def test_the_command_line_turns_pydantic_plugins_off_unless_told_otherwise() -> None:
    """`python -m oracle` sets PYDANTIC_DISABLE_PLUGINS for its own process (looking for plug-ins reads every
    installed distribution's entry points), and leaves a value its caller set, empty included."""
    import os
    import subprocess
    import sys

    probe = (
        "import os, runpy, sys\n"
        "sys.argv = ['oracle', '--help']\n"
        "try:\n"
        "    runpy.run_module('oracle', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')))\n"
    )
    seen = {}
    for given in (None, ""):
        env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
        if given is not None:
            env["PYDANTIC_DISABLE_PLUGINS"] = given
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ORACLE.parent, env=env
        )
        seen[given] = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert seen == {None: "'__all__'", "": "''"}


def test_a_standby_prewarms_exactly_the_standard_library_its_collectors_import_first() -> None:
    """What a standby imports before `ready` is the standard library only, and what every task's collector imports
    at its top (besides the standby's own os, sys and time): no more, so no grade imports what its collector never
    needs, and no less, so none waits for an import the standby could have done."""
    import sys

    from oracle.sandbox import PREWARMED

    tops: set[str] = set()
    for collector in sorted(ORACLE.glob("tasks/*/collector.py")):
        tree = ast.parse(collector.read_text())
        tops |= {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    assert {name.split(".")[0] for name in PREWARMED} <= set(sys.stdlib_module_names)
    assert set(PREWARMED) == tops - {"os", "sys", "time"}
