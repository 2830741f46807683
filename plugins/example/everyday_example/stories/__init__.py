"""The template's stories: every module here declaring ``CASE`` and ``story(journey)`` is one story."""
