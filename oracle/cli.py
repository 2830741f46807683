"""`python -m oracle`: grade, preflight, image.

Exit codes are part of the interface: 0 passed, 1 a delivery failed, 2 the
oracle could not grade or was asked something it cannot answer (an unknown
task or mode, a flag with a bad value): one line on stderr saying what to
do, never a traceback, so a caller can tell "the delivery is bad" (1) from
"the question was" (2).

`grade` takes one ZIP or several; it prints JSON lines: one JSON object
per ZIP, one per line, in the order the ZIPs were given (so one ZIP prints
exactly the one object it always did). With several ZIPs the exit code is 0
only if every delivery passed, 1 if any failed, 2 if grading was not
possible (then nothing is printed).

Heavy modules (the engine client, pydantic, the task) are imported only once the
arguments are known to be good: a usage error answers at interpreter speed
and a grade's start-up stays small. Nothing a grade needs only after its
container is asked for is imported before (not even pathlib or typing):
`python -X importtime -m oracle grade ...` shows the order.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys

from oracle.tasks import DEFAULT_TASK

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads this name the same way)
if TYPE_CHECKING:
    from typing import NoReturn

MAX_SECONDS = 3600.0  # mirrors oracle.sandbox.MAX_DEADLINE_S (not imported: that module pulls in the engine client)
MAX_WORKERS = 16  # mirrors oracle.grader.MAX_WORKERS
EXIT_CANNOT_GRADE = 2
EXIT_READER_GONE = 120  # what Python itself exits with when its output cannot be flushed
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Each ends a grade as Ctrl-C does, its containers removed. SIGTERM's default (`kill`, `timeout`) ended the
process at once and left its container on the engine until some later grade swept it."""


class _Formatter(argparse.HelpFormatter):
    """argparse's help layout, its width found without shutil.

    argparse makes a formatter for every argument it adds, and its own asks
    shutil for the terminal's width: importing shutil (and the compressors
    it imports) came before every grade's container request.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size says it: $COLUMNS, else standard output's terminal, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `oracle: <what is wrong>` and exit 2, no usage block."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_CANNOT_GRADE, f"oracle: {message} (see `{self.prog} --help`)\n")


def _seconds(text: str) -> float:
    """A finite number of seconds above 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most {MAX_SECONDS:g} seconds")
    return value


def _workers(text: str) -> int:
    """How many containers a batch runs at once: 1 to MAX_WORKERS."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 1 and {MAX_WORKERS}")
    return value


def _reference(text: str) -> str:
    """An image reference: not empty (an empty one would silently mean "the default")."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an image reference cannot be empty")
    return text


class _StopSignalsHeld:
    """Act on a stop signal only once the block is over: one raised inside the import of pydantic's compiled core
    is not a KeyboardInterrupt but a panic (a traceback, exit 1), which nothing would clean up after.

    A class, not contextlib.contextmanager: the command line imports contextlib only after its container is
    asked for.
    """

    def __init__(self) -> None:
        self._held: list[int] = []
        self._previous: dict[signal.Signals, object] = {}

    def __enter__(self) -> None:
        self._previous = {
            stop: signal.signal(stop, lambda signum, frame: self._held.append(signum))
            for stop in STOP_SIGNALS
            if signal.getsignal(stop) is signal.default_int_handler
        }

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        for stop, handler in self._previous.items():
            signal.signal(stop, handler)  # type: ignore[arg-type]
        if self._held and kind is None:
            raise KeyboardInterrupt


def _zip_path(text: str) -> str:
    """A path the command can grade: a file. A missing path or a folder is the command's mistake (exit 2), not a
    failed delivery (exit 1): a delivery that exists but cannot be read is graded, and fails intake.

    Checked with os.path, not pathlib: pathlib (with re, fnmatch and urllib) is imported after the container
    is asked for."""
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a delivered ZIP")
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"no file at {text}")
    return text


def _grade(args: argparse.Namespace) -> int:
    """Start the first ZIP's container, then import the grader while the engine starts it (see oracle.sandbox)."""
    from oracle import image
    from oracle.sandbox import SandboxLimits, Standby

    client, chosen = image.engine_and_image(args.image)
    standby = Standby(
        client, chosen.id, SandboxLimits(command_timeout_s=args.command_timeout, grade_deadline_s=args.deadline)
    )
    try:
        with _StopSignalsHeld():
            from pathlib import Path

            from oracle.grader import GradeJob, GradeOptions, grade_batch

        jobs = [GradeJob(zip_path=Path(path), mode=args.mode, task=args.task) for path in args.zips]
        options = GradeOptions(
            image_ref=chosen.id,
            command_timeout_s=args.command_timeout,
            deadline_s=args.deadline,
            agent_tests=args.agent_tests,
            workers=args.workers,
        )
        results = grade_batch(jobs, options, client=client, standby=standby)
    finally:
        standby.close()
    sys.stdout.write("".join(result.model_dump_json() + "\n" for result in results))
    return 0 if all(result.passed for result in results) else 1


def _preflight(args: argparse.Namespace) -> int:
    from oracle import image

    _, chosen = image.engine_and_image(args.image)
    print(f"engine answers; oracle image {chosen.id} ({', '.join(chosen.tags) or 'untagged'})")
    return 0


def _image(args: argparse.Namespace) -> int:
    from oracle import build, image

    print(build.ensure_image(image.engine(), pin=args.pin).id)
    return 0


def parser() -> argparse.ArgumentParser:
    top = _Parser(prog="python -m oracle", description="Independent, sandboxed grading of delivered ZIPs.")
    commands = top.add_subparsers(dest="command", required=True, metavar="{grade,preflight,image}")

    grade = commands.add_parser("grade", help="grade one or more ZIPs; prints one JSON object per ZIP, one per line")
    grade.add_argument(
        "zips",
        nargs="+",
        type=_zip_path,
        metavar="ZIP",
        help="path of a delivered ZIP (several: graded in parallel, results in this order)",
    )
    grade.add_argument(
        "--task",
        default=DEFAULT_TASK,
        help=f"oracle task to grade against (default: {DEFAULT_TASK}; one folder under oracle/tasks)",
    )
    grade.add_argument(
        "--mode",
        default=None,
        help="the task's requirement set to grade against (required when the task has several; an unknown one is refused with the list)",
    )
    grade.add_argument(
        "--image",
        type=_reference,
        default=None,
        help="image to grade in (default: $EVERYDAY_ORACLE_IMAGE, local tag, pinned digest)",
    )
    grade.add_argument(
        "--command-timeout", type=_seconds, default=4.0, help="seconds per delivery command inside the container"
    )
    grade.add_argument(
        "--deadline", type=_seconds, default=30.0, help="seconds for each sandboxed run, enforced from the host"
    )
    grade.add_argument(
        "--agent-tests",
        action="store_true",
        help="also run the delivery's own tests (recorded as a diagnostic, never deciding)",
    )
    grade.add_argument(
        "--workers",
        type=_workers,
        default=2,
        help=f"containers at once when grading several ZIPs (1-{MAX_WORKERS}, default 2)",
    )
    grade.set_defaults(run=_grade)

    preflight = commands.add_parser("preflight", help="check engine and image, say how to fix what is missing")
    preflight.add_argument("--image", type=_reference, default=None)
    preflight.set_defaults(run=_preflight)

    built = commands.add_parser("image", help="verify the oracle image, else pull or build the pinned one")
    built.add_argument(
        "--pin",
        action="store_true",
        help="maintainers: build the root here and pin it (oracle/image.lock.json), e.g. after a Debian point release",
    )
    built.set_defaults(run=_image)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    for stop in STOP_SIGNALS:
        if stop is not signal.SIGHUP or signal.getsignal(stop) is not signal.SIG_IGN:  # `nohup` keeps it ignored
            signal.signal(stop, signal.default_int_handler)
    from oracle.image import CannotGrade
    from oracle.tasks import UnknownMode, UnknownTask

    try:
        return args.run(args)
    except CannotGrade as error:
        print(f"oracle: cannot grade: {error}", file=sys.stderr)
        return EXIT_CANNOT_GRADE
    except (UnknownTask, UnknownMode) as error:
        print(f"oracle: {error}", file=sys.stderr)
        return EXIT_CANNOT_GRADE
    except KeyboardInterrupt:
        print("oracle: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_READER_GONE
