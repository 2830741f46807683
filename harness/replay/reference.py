"""The oracle tasks' reference solutions (slugify, slugify-tests), imported in this one place.

The replay scripts write what a competent agent would deliver, so they take
the oracle tasks' own reference files rather than a copy that could drift.
"""

from __future__ import annotations

from oracle.tasks.slugify.reference import GOOD_SLUGIFY, files
from oracle.tasks.slugify_tests import reference as suite_reference

# The late requirement (--max-length) left out, exactly as calibration's
# "late-requirement-ignored" delivery does: what an agent that never read the
# late message delivers.
_MAX_LENGTH_ARGUMENT = '    parser.add_argument("--max-length", type=positive_int, default=None)\n'


def files_without_late_requirement() -> dict[str, str]:
    """The reference delivery minus --max-length: the requirement that arrives late."""
    if GOOD_SLUGIFY.count(_MAX_LENGTH_ARGUMENT) != 1:
        raise ValueError("reference solution changed: the --max-length argument anchor is gone")
    source = GOOD_SLUGIFY.replace(_MAX_LENGTH_ARGUMENT, "").replace("args.max_length", "None")
    return {**files(), "slugify.py": source}


def suite_files() -> dict[str, str]:
    """The QA delivery (test_slugify.py), beside the tool it is run against while it is written."""
    return {"slugify.py": GOOD_SLUGIFY, **suite_reference.files()}


__all__ = ["files", "files_without_late_requirement", "suite_files"]
