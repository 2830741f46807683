"""The built-in stories: each module declares its CASE and plays story(journey), as the user would."""
