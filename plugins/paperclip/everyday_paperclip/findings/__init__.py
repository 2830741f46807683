"""Standalone reproductions of what the stories found in Paperclip, one folder per product defect.

Each folder holds ``reproduce.py`` (the public API and plain OS process
control only, no harness code: a Paperclip maintainer runs it with
``python reproduce.py``) and ``REPORT.md`` (the bug report that goes with
it). Every reproduction starts its own throw-away server through
``isolated_paperclip.py`` and exits 1 while the defect reproduces, 0 once it
does not, 2 when it could not run. ``python -m everyday_paperclip.findings``
(``make findings``) runs them all: see :mod:`.runner`.
"""
