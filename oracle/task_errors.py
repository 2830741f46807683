"""The two usage errors of naming a task: their own module, so neither the task registry nor a task imports the other."""

from __future__ import annotations


class UnknownTask(ValueError):
    """A task name with no folder under oracle/tasks: a usage error, not a failed delivery."""


class UnknownMode(ValueError):
    """A mode the task does not have: a usage error, not a failed delivery.

    Here beside UnknownTask, not in oracle.task: the command line catches
    both around every command, and importing oracle.task pulls in pydantic,
    which a grade imports only after its container is on its way.
    """


class DuplicateTask(ValueError):
    """An installed package registers a task under a name a built-in task (or another package) already has.

    Refused rather than resolved: either choice would grade some deliveries
    by a task their story never named, and say nothing.
    """
