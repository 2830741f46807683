"""Testing hooks: controller deaths at exact moments, off unless a test switches them on.

Random kills almost never land between two particular statements, so the
fault tests and the soak name the moment instead. A hook does nothing unless
its name is listed in ``TESTBED_TEST_FAULTS`` (comma-separated) in the
controller's environment; normal runs never set it, and runners never see it
(they get a minimal environment). Handlers call a hook at one line and read
the same with or without it.
"""

from __future__ import annotations

import logging
import os
import signal

ENV = "TESTBED_TEST_FAULTS"
DIE_AFTER_INBOX_COMMIT = "die-after-inbox-commit"
SLOW_TOOL_SERVER = "slow-tool-server"
SLOW_TOOL_SERVER_DELAY_S = 15.0

log = logging.getLogger("testbed.faults")


def enabled(name: str) -> bool:
    return name in os.environ.get(ENV, "").split(",")


def after_inbox_commit(message_ids: list[int]) -> None:
    """``die-after-inbox-commit``: SIGKILL this controller once "consumed by this run" is committed.

    Only a read that consumed messages for the first time triggers it, so the
    runner's retry of the same read (answered from the stored event) goes
    through and the test can watch what the runner finally receives.
    """
    if message_ids and enabled(DIE_AFTER_INBOX_COMMIT):
        log.warning("test fault %s: killing the controller after consuming %s", DIE_AFTER_INBOX_COMMIT, message_ids)
        os.kill(os.getpid(), signal.SIGKILL)


def tool_server_load_delay() -> float:
    """``slow-tool-server``: seconds to hold back the MCP tool server's load, as a loaded machine does.

    A just-restarted controller on a busy machine took longer to load its tool
    server than an agent CLI took to send its first model call; the hook makes
    that moment reproducible for the launchers that must wait for the server.
    """
    return SLOW_TOOL_SERVER_DELAY_S if enabled(SLOW_TOOL_SERVER) else 0.0
