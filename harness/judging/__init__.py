"""Judging: check records and a verdict as a pure function of an attempt's saved observations."""
