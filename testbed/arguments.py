"""Argument types the testbed's command lines share (the controller's and the metering proxy's).

Each refuses in one line what the server would otherwise crash on (a port
out of range) or take without complaint (an infinite pace, a NaN budget).
"""

from __future__ import annotations

import argparse
import math


def port_number(text: str) -> int:
    """A TCP port (0 asks the system for a free one); anything else is refused before uvicorn would crash on it."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0 to 65535)")
    return port


def seconds(text: str) -> float:
    """A positive, finite number of seconds: an infinite or negative pace or time limit would never end a run."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not a positive, finite number of seconds")
    return value


def cents(text: str) -> float:
    """A budget in cents: finite and not negative."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of cents: {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text} is not a finite number of cents, 0 or more")
    return value
