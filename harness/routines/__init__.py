"""The routines family: creating a routine, firing its webhook as an outside system would (steps), and its rules."""
