"""The built-in agent CLIs: one module each, holding its whole registry entry (see :mod:`harness.agents.registry`)."""
