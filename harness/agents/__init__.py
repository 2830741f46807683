"""The agent runtime every product's agents share: adapters, the CLI registry, the metering proxy, the agent client.

A product's runner hands an adapter (:mod:`.adapters`: the scripted agent in
:mod:`.scripted`, or a CLI registered in :mod:`.registry`, one module each
in :mod:`.clis`) an :class:`~agents.session.AgentSession`; a CLI reaches its
model only through :mod:`.metering`. Nothing here imports a product, the
harness or the stories: they import this.
"""
