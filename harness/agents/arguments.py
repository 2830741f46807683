"""Argument types the command lines of the testbed and the agent runtime share (the controller's, the metering proxy's).

Each refuses in one line what the server would otherwise crash on (a port
out of range) or take without complaint (an infinite pace, a NaN budget).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

N = TypeVar("N", int, float)


def number(convert: Callable[[str], N], unit: str, accept: Callable[[N], bool], refusal: str) -> Callable[[str], N]:
    """An argparse type: ``convert`` the text, then keep the value only if ``accept`` says so."""

    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a {unit}: {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"{text} {refusal}")
        return value

    return parse


port_number = number(int, "port number", lambda port: 0 <= port <= 65535, "is not a port (0 to 65535)")
"""A TCP port (0 asks the system for a free one): uvicorn ends in a traceback on any other."""
seconds = number(
    float, "number of seconds", lambda s: math.isfinite(s) and s > 0, "is not a positive, finite number of seconds"
)
"""A pace or a time limit: an infinite or negative one would never end a run."""
cents = number(
    float, "number of cents", lambda c: math.isfinite(c) and c >= 0, "is not a finite number of cents, 0 or more"
)
"""A budget: a NaN one compares false with every spend, so it would stop nothing."""
