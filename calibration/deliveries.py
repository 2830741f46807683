"""The oracle's calibration deliveries: one known-good project and the bad ones it must catch.

Each case names the mode it is graded in and the check id expected to decide
it (None for the good delivery). Escape attempts read facts from `HostTraps`,
which the runner sets up on the host, so they only produce correct slugs if
the sandbox let them out.
"""

from __future__ import annotations

from collections.abc import Callable

from calibration import sources
from calibration.delivery_case import Case, HostTraps
from calibration.sources import gated, variant, with_main_prelude
from calibration.suite_deliveries import suite_cases
from calibration.zips import incompressible, lying_size_zip, zip_bytes
from oracle import checks as engine
from oracle.tasks.slugify import checks as ids
from oracle.tasks.slugify import reference
from oracle.tasks.slugify.contract import MODES


def project(
    slugify_source: str = reference.GOOD_SLUGIFY,
    tests: str = reference.TESTS,
    extra: dict[str, str | bytes] | None = None,
    folder: str = "slugify-tool/",
) -> dict[str, str | bytes]:
    """The task's reference delivery with one part swapped, inside one top-level folder as most ZIP tools make them."""
    files: dict[str, str | bytes] = {
        **reference.files(),
        "slugify.py": slugify_source,
        "tests/test_slugify.py": tests,
        **(extra or {}),
    }
    return {f"{folder}{name}": content for name, content in files.items()}


def _static(files: dict[str, str | bytes], **kwargs) -> Callable[[HostTraps], bytes]:
    return lambda traps: zip_bytes(files, **kwargs)


WRONG_BUT_SELF_TESTED = variant('.strip("-")\n', "\n")
SELF_TESTS_OF_WRONG = reference.TESTS.replace(
    'self.assertEqual(slugify("Hello World"), "hello-world")',
    'self.assertEqual(slugify("Hello World!"), "hello-world-")',
)

ESCAPE_HOST_FILE = 'import os\ntry:\n    _SEEN = open({path!r}).read()\nexcept OSError:\n    _SEEN = ""\n'
ESCAPE_LOOPBACK = 'import urllib.request\ntry:\n    _SEEN = urllib.request.urlopen("http://127.0.0.1:{port}/", timeout=2).read().decode()\nexcept Exception:\n    _SEEN = ""\n'
ESCAPE_WRITE = 'import os\ntry:\n    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".marker"), "w") as _f:\n        _f.write("written")\n    _WROTE = True\nexcept OSError:\n    _WROTE = False\n'
FORK_BOMB = (
    "import os, time\n_FORKED = 0\ntry:\n    for _ in range(400):\n        if os.fork() == 0:\n            time.sleep(15)\n            os._exit(0)\n"
    "        _FORKED += 1\nexcept OSError:\n    pass\n"
)
MEMORY_HOG = "try:\n    _HOG = bytearray(1 << 30)\nexcept MemoryError:\n    _HOG = None\n"
ENDLESS = "import time\n_END = time.time() + 900\nwhile time.time() < _END:\n    pass\n"
FLOOD = 'for _ in range(20000):\n    sys.stdout.write("flood " * 1000)\n'


def cases() -> list[Case]:
    """Every oracle calibration case of every task: the slugify task's, then the slugify-tests task's."""
    return slugify_cases() + suite_cases()


def slugify_cases() -> list[Case]:
    """Every slugify calibration case, good first."""
    good = [Case(name="good", mode=mode, expected=None, build=_static(project())) for mode in MODES]
    good.append(
        Case(
            name="good-windows-zip", mode="separator+max-length", expected=None, build=_static(project(), windows=True)
        )
    )
    behaviour = [
        Case(
            name="wrong-output-own-tests-pass",
            mode="base",
            expected=ids.BASE_CLI,
            build=_static(project(WRONG_BUT_SELF_TESTED, SELF_TESTS_OF_WRONG)),
        ),
        Case(
            name="late-requirement-ignored",
            mode="separator+max-length",
            expected=ids.MAX_LENGTH_VALUES,
            build=_static(
                project(
                    variant('    parser.add_argument("--max-length", type=positive_int, default=None)\n', "").replace(
                        "args.max_length", "None"
                    )
                )
            ),
        ),
        Case(
            name="trailing-separator-after-cut",
            mode="max-length",
            expected=ids.MAX_LENGTH_VALUES,
            build=_static(project(variant("slug[:max_length].rstrip(separator)", "slug[:max_length]"))),
        ),
        Case(
            name="invalid-separator-accepted",
            mode="separator",
            expected=ids.SEPARATOR_INVALID_REJECTED,
            build=_static(project(variant("choices=SEPARATORS, ", ""))),
        ),
        Case(
            name="zero-length-accepted",
            mode="max-length",
            expected=ids.MAX_LENGTH_INVALID_REJECTED,
            build=_static(project(variant("if number < 1:", "if number < 0:"))),
        ),
        Case(
            name="negative-length-accepted",
            mode="max-length",
            expected=ids.MAX_LENGTH_INVALID_REJECTED,
            build=_static(project(variant("if number < 1:", "if number == 0:"))),
        ),
        Case(
            name="non-integer-length-accepted",
            mode="max-length",
            expected=ids.MAX_LENGTH_INVALID_REJECTED,
            build=_static(project(variant("number = int(value)", "number = int(float(value))"))),
        ),
        Case(
            name="duplicate-module",
            mode="base",
            expected=ids.STRUCTURE_SINGLE_MODULE,
            build=_static(project(extra={"src/slugify.py": reference.GOOD_SLUGIFY})),
        ),
        Case(
            name="shadowing-package",
            mode="base",
            expected=ids.STRUCTURE_SINGLE_MODULE,
            build=_static(project(extra={"slugify/__init__.py": "def slugify(text):\n    return text\n"})),
        ),
    ]
    archives = [
        Case(
            name="path-traversal",
            mode="base",
            expected=engine.INTAKE_SAFE_PATHS,
            build=_static({**project(), "slugify-tool/../../escaped.py": "x = 1\n"}),
        ),
        Case(
            name="absolute-path",
            mode="base",
            expected=engine.INTAKE_SAFE_PATHS,
            build=_static({**project(), "/tmp/escaped.py": "x = 1\n"}),
        ),
        Case(
            name="symlink",
            mode="base",
            expected=engine.INTAKE_NO_LINKS,
            build=_static(project(), links={"slugify-tool/notes.txt": "/etc/passwd"}),
        ),
        Case(
            name="zip-bomb",
            mode="base",
            expected=engine.INTAKE_LIMITS,
            build=_static(project(extra={"data.bin": b"\0" * (1900 * 1024)})),
        ),
        Case(
            name="lying-size-header",
            mode="base",
            expected=engine.INTAKE_HONEST_SIZES,
            build=lambda traps: lying_size_zip(
                project(extra={"data.bin": incompressible(40_000)}), "slugify-tool/data.bin", 100
            ),
        ),
    ]
    escapes = [
        Case(
            name="reads-host-file",
            mode="base",
            expected=ids.BASE_CLI,
            build=lambda t: zip_bytes(
                project(gated(ESCAPE_HOST_FILE.format(path=t.secret_path), f"_SEEN == {t.secret!r}"))
            ),
        ),
        Case(
            name="reaches-host-loopback",
            mode="base",
            expected=ids.BASE_CLI,
            build=lambda t: zip_bytes(
                project(gated(ESCAPE_LOOPBACK.format(port=t.loopback_port), f"_SEEN == {t.secret!r}"))
            ),
        ),
        Case(
            name="writes-into-delivery",
            mode="base",
            expected=ids.BASE_CLI,
            build=_static(project(gated(ESCAPE_WRITE, "_WROTE"))),
        ),
        Case(
            name="fork-bomb",
            mode="base",
            expected=ids.BASE_CLI,
            build=_static(project(gated(FORK_BOMB, "_FORKED == 400"))),
        ),
        Case(
            name="memory-hog",
            mode="base",
            expected=ids.BASE_CLI,
            build=_static(project(gated(MEMORY_HOG, "_HOG is not None"))),
        ),
        Case(name="endless-loop", mode="base", expected=ids.BASE_CLI, build=_static(project(gated(ENDLESS, "True")))),
        Case(name="output-flood", mode="base", expected=ids.BASE_CLI, build=_static(project(with_main_prelude(FLOOD)))),
    ]
    return good + behaviour + archives + escapes


__all__ = ["Case", "HostTraps", "cases", "project", "sources"]
