"""Cassettes: a cell's model traffic recorded once, and played back in place of the model."""
