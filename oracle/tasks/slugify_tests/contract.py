"""The slugify-tests task contract: the QA brief a story sends and the facts the oracle grades by.

The tool under test is the slugify task's tool, so its contract texts are
imported from `oracle.tasks.slugify.contract`, never copied: a change of the
tool's wording changes this brief with it. The brief says how the suite is
run (in-process, in its own folder, hands off everything else) because the
oracle grades exactly that way.
"""

from __future__ import annotations

from typing import Literal

from oracle.tasks.slugify.contract import BUILD_TASK, LATE_REQUIREMENT_MAX_LENGTH, REVISION_SEPARATOR, SOURCE_FILE

Mode = Literal["full"]
MODES: tuple[Mode, ...] = ("full",)
"""One requirement set: the suite covers the tool's whole contract (base, --separator, --max-length)."""

TEST_MODULE = "test_slugify.py"
"""The one file graded; anything else in the ZIP is ignored."""

QA_TASK_TITLE = "Write the test suite for the slugify command-line tool"


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


QA_TASK = f"""\
Write an automated test suite for the slugify command-line tool specified below, as one
standard-library unittest module named {TEST_MODULE}. Deliver it as a ZIP.

How the suite will be run: {TEST_MODULE} is copied into an empty folder beside an
implementation saved as {SOURCE_FILE}, and `python3 -m unittest` runs in that folder. It must
pass against a correct implementation and fail against any implementation that breaks the
specification, including the --separator and --max-length options.

Rules for the suite:
- Use only the Python standard library; put everything in {TEST_MODULE} (no other files).
- Exercise the tool in-process: import slugify and call slugify(text), and test the command
  line by running {SOURCE_FILE} as __main__ (for example with runpy.run_path) with sys.argv
  patched, capturing stdout and the SystemExit status. A rejected value must exit non-zero.
- Do not start processes or threads, open network connections, or read or write files
  outside the suite's own folder. Such attempts are refused and fail the delivery.
- Finish within a few seconds.

The specification (the original request, then two revisions):

{_quoted(BUILD_TASK)}

{_quoted(REVISION_SEPARATOR)}

{_quoted(LATE_REQUIREMENT_MAX_LENGTH)}
"""
"""The text a story sends to the agent verbatim."""

QA_DELEGATE_TASK_TITLE = "Have a teammate write the test suite for the slugify command-line tool"


def qa_delegation_task(teammate: str) -> str:
    """The lead's task: the QA brief, to be done by ``teammate`` through one child task.

    As with the build's delegation, the first sentence is the only place the
    teammate is named, so the child task (the body without it) is exactly the brief.
    """
    return (
        f"Ask your teammate {teammate} to write this through one child task, and tell me which delivery is final.\n\n"
        f"{QA_TASK}"
    )
