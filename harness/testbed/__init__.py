"""The testbed: a small, real agent-work product (controller, runners, web UI, public API, SQLite) the stories drive."""
