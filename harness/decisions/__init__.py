"""Decisions a person makes for an agent: the steps a decision story takes, their records and their checks' input.

Like a fault module, each module here is a set of functions that take the
journey and return their own records; the rules that judge those records
live in :mod:`harness.decisions.rules`.
"""
