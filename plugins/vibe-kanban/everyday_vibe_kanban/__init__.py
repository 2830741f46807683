"""vibe-kanban, driven by everyday-evals from an outside package through the entry-point doors alone."""
