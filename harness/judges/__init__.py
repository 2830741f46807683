"""Judges: the door behind which a criterion is decided over a saved package (rules, a model, an outside judge).

A judge reads a request built from the package (:mod:`.requests`) and
answers passed, failed or inconclusive with cited evidence (:mod:`.models`).
It runs on the host after the attempt, never during it: judging is repeatable
from the package alone, and re-judging is free (:mod:`.cache`).
"""
