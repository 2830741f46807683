"""Orchestration only: selecting cells, the pytest plugin, campaigns, attempts, the journey a story plays through."""
