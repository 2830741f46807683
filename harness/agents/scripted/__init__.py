"""The scripted agent: deterministic, free, with faulty personas (:mod:`.agent`), and the requests it understands."""
