"""The skills family: finding a skill the agent created and editing it in Studio (steps), and its rules."""
