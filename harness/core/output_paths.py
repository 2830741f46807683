"""Where a command will write, checked before any work starts.

A results folder that turns out to be a file is otherwise found only when
the first evidence is written (a traceback) or, for calibration, after
every suite has run: minutes of work lost to a typo.
"""

from __future__ import annotations

from pathlib import Path


def folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be (or become) a folder to write into; None when it can.

    Only a file in the way is looked for: anything else the writing itself
    reports, in one line.
    """
    if path.exists() and not path.is_dir():
        return f"{path} is a file, not a folder"
    return _under_a_file(path)


def file_problem(path: Path) -> str | None:
    """Why a file cannot be written at ``path``; None when it can."""
    if path.is_dir():
        return f"{path} is a folder, not a file"
    return _under_a_file(path)


def _under_a_file(path: Path) -> str | None:
    """A file where one of ``path``'s folders should be, named; None when its nearest existing folder is one."""
    for above in path.parents:
        if above.exists():
            return None if above.is_dir() else f"{path} is under {above}, which is a file"
    return None


def os_error_line(error: OSError) -> str:
    """What the system refused and where, in one line: "Not a directory: /etc/passwd/x"."""
    where = " -> ".join(str(name) for name in (error.filename, error.filename2) if name is not None)
    reason = error.strerror or str(error)
    return f"{reason}: {where}" if where else reason
