"""Our agent-side programs on Paperclip: the scripted agent's runner and a CLI's tool server, over Paperclip's API.

Paperclip starts them (its ``process`` adapter runs :mod:`.runner`; a CLI
on its ``codex_local`` or ``claude_local`` starts :mod:`.tool_server`), never
the harness, so they live with the agent runtime they bind to Paperclip's
agent API and import nothing of the harness: each start stays as cheap as
the runtime itself. The Paperclip driver reads what they leave (receipts).
"""
