"""`python -m oracle`: grade, preflight, image.

Exit codes are part of the interface: 0 passed, 1 the delivery failed,
2 the oracle could not grade or was asked something it cannot answer (an
unknown task or mode): one line on stderr saying what to do.
"""

from __future__ import annotations

import argparse
import sys

from oracle.task import UnknownMode
from oracle.tasks import DEFAULT_TASK, UnknownTask


def _grade(args: argparse.Namespace) -> int:
    from oracle.grader import grade

    result = grade(args.zip, args.mode, args.task, image_ref=args.image, command_timeout_s=args.command_timeout, deadline_s=args.deadline, agent_tests=args.agent_tests)
    print(result.model_dump_json())
    return 0 if result.passed else 1


def _preflight(args: argparse.Namespace) -> int:
    from oracle import image

    client = image.engine()
    chosen = image.resolve(client, args.image)
    print(f"engine answers; oracle image {chosen.id} ({', '.join(chosen.tags) or 'untagged'})")
    return 0


def _image(args: argparse.Namespace) -> int:
    from oracle import image

    print(image.ensure_image(image.engine()).id)
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m oracle", description="Independent, sandboxed grading of delivered ZIPs.")
    commands = top.add_subparsers(dest="command", required=True)

    grade = commands.add_parser("grade", help="grade one ZIP; prints one JSON object")
    grade.add_argument("zip", help="path of the delivered ZIP")
    grade.add_argument("--task", default=DEFAULT_TASK, help=f"oracle task to grade against (default: {DEFAULT_TASK}; one folder under oracle/tasks)")
    grade.add_argument("--mode", required=True, help="the task's requirement set to grade against (an unknown one is refused with the list)")
    grade.add_argument("--image", default=None, help="image to grade in (default: $EVERYDAY_ORACLE_IMAGE, local tag, pinned digest)")
    grade.add_argument("--command-timeout", type=float, default=4.0, help="seconds per delivery command inside the container")
    grade.add_argument("--deadline", type=float, default=30.0, help="seconds for the whole sandboxed run, enforced from the host")
    grade.add_argument("--agent-tests", action="store_true", help="also run the delivery's own tests (recorded as a diagnostic, never deciding)")
    grade.set_defaults(run=_grade)

    preflight = commands.add_parser("preflight", help="check engine and image, say how to fix what is missing")
    preflight.add_argument("--image", default=None)
    preflight.set_defaults(run=_preflight)

    commands.add_parser("image", help="build or verify the oracle image").set_defaults(run=_image)
    return top


def main(argv: list[str] | None = None) -> int:
    from oracle.image import CannotGrade

    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CannotGrade as error:
        print(f"oracle: cannot grade: {error}", file=sys.stderr)
        return 2
    except (UnknownTask, UnknownMode) as error:
        print(f"oracle: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("oracle: interrupted", file=sys.stderr)
        return 130
