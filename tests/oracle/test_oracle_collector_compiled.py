"""The slugify collector compiles the delivery's script once for its forked calls: each call must see what it saw before.

The collector is standalone standard-library code; these tests load it on the
host in a fresh interpreter and run our own probe scripts through it (no
delivery, no container): once compiled by the collector, once left to
runpy.run_path as before, and compare what each call saw and how it exited.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from oracle.tasks.slugify import TASK

PROBE = """
import json, sys, __main__
print(json.dumps({
    "name": __name__, "file": __file__, "package": __package__, "spec": repr(__spec__),
    "loader": repr(__loader__), "cached": __cached__, "doc": __doc__, "argv": sys.argv,
    "path0": sys.path[0], "main_is_this": __main__.__dict__ is globals(),
}))
sys.exit(EXIT)
"""

RUN = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("collector", sys.argv[1])
collector = importlib.util.module_from_spec(spec)
spec.loader.exec_module(collector)
plan = {"project": sys.argv[2], "source_file": "slugify.py"}
code = collector._compiled(sys.argv[2] + "/slugify.py", 256 << 20) if sys.argv[3] == "compiled" else None
if sys.argv[3] == "compiled" and code is None:
    sys.exit("the probe did not compile")
collector._run_script(plan, {"args": ["Hello World", "--max-length", "5"], "code": code})
"""


def _call(tmp_path: Path, script: str, how: str) -> tuple[int, dict]:
    (tmp_path / "slugify.py").write_text(script)
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(TASK.collector), str(tmp_path), how],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {"stderr": done.stderr[-300:]}


def test_a_compiled_call_sees_what_a_call_through_runpy_sees(tmp_path: Path) -> None:
    for exit_code in ("None", "3", "'a message'", "int('raises')"):
        script = PROBE.replace("EXIT", exit_code)
        through_runpy = _call(tmp_path, script, "runpy")
        compiled = _call(tmp_path, script, "compiled")
        assert compiled == through_runpy
        assert compiled[1]["name"] == "__main__" and compiled[1]["main_is_this"]
        assert compiled[0] == {"None": 0, "3": 3, "'a message'": 1, "int('raises')": 1}[exit_code]


def _compiled(tmp_path: Path, source: bytes) -> str:
    """What the collector's _compiled gives for a script with these bytes: 'code' or 'None'."""
    (tmp_path / "slugify.py").write_bytes(source)
    run = (
        "import importlib.util, resource, sys\n"
        "spec = importlib.util.spec_from_file_location('collector', sys.argv[1])\n"
        "collector = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(collector)\n"
        "before = resource.getrlimit(resource.RLIMIT_AS)\n"
        "code = collector._compiled(sys.argv[2], 256 << 20)\n"
        "assert resource.getrlimit(resource.RLIMIT_AS) == before, 'the limit was not restored'\n"
        "print('None' if code is None else 'code')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", run, str(TASK.collector), str(tmp_path / "slugify.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-300:]
    return done.stdout.strip()


def test_what_a_call_would_not_compile_the_same_way_is_left_to_each_call(tmp_path: Path) -> None:
    import importlib.util

    assert _compiled(tmp_path, b"print('hello')\n") == "code"
    assert _compiled(tmp_path, b"def broken(:\n") == "None"  # each call prints the SyntaxError and exits 1
    assert _compiled(tmp_path, b"x = 1\0\n") == "None"  # a NUL byte: compile() refuses
    assert _compiled(tmp_path, importlib.util.MAGIC_NUMBER + b"\0" * 12) == "None"  # runpy runs it as bytecode
    assert _compiled(tmp_path, b"x = 1\n" * (70 * 1024 // 6)) == "None"  # past PRECOMPILE_LIMIT
