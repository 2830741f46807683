"""The slugify task's check ids, registered with the engine in deciding order.

Host-side structure checks come before the sandbox run, behaviour checks after it.
"""

from __future__ import annotations

from oracle.checks import CheckRegistry

STRUCTURE_SINGLE_MODULE = "structure.single-module"
STRUCTURE_README = "structure.readme"
STRUCTURE_TESTS = "structure.tests"

BASE_CLI = "base.cli"
BASE_FUNCTION = "base.function"
SEPARATOR_VALUES = "separator.values"
SEPARATOR_INVALID_REJECTED = "separator.invalid-rejected"
MAX_LENGTH_VALUES = "max-length.values"
MAX_LENGTH_INVALID_REJECTED = "max-length.invalid-rejected"
COMBINED_VALUES = "combined.values"

# Recorded for reviewers, never deciding: the agent's own tests cannot grade its delivery.
DIAGNOSTIC_AGENT_TESTS = "diagnostic.agent-tests"

REGISTRY = CheckRegistry.for_task(
    host=(STRUCTURE_SINGLE_MODULE, STRUCTURE_README, STRUCTURE_TESTS),
    sandboxed=(
        BASE_CLI,
        BASE_FUNCTION,
        SEPARATOR_VALUES,
        SEPARATOR_INVALID_REJECTED,
        MAX_LENGTH_VALUES,
        MAX_LENGTH_INVALID_REJECTED,
        COMBINED_VALUES,
    ),
    diagnostics=(DIAGNOSTIC_AGENT_TESTS,),
)
check = REGISTRY.check
