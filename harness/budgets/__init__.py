"""The budgets family: an agent's budget running out, seen and raised on the cost page (steps), and its rules."""
