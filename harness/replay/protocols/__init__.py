"""One module per wire protocol: parse the request into a Conversation, render a Reply.

- ``responses``: OpenAI Responses API over SSE (Codex CLI)
- ``messages``: Anthropic Messages API over SSE (Claude Code)
- ``chat``: OpenAI Chat Completions, streamed (OpenCode through an OpenAI-compatible provider)
"""
