"""Model replay: scripted model turns over the real wire protocols, so real agent CLIs run for free.

``replay.server.create_app`` is the server; ``replay.scripts`` the scripts it
plays. Costs metered against it are labelled simulated: it proves adapters and
product paths, never a model.
"""
