"""Runners in a sandbox: each run's runner in its own container, started through a Docker engine.

The ``container`` environment of the testbed (``python -m harness.testbed serve
--sandbox=container``). What changes against a local runner, and why:

- **Identity is a lease**, not a pid: the container's id, the engine's start
  time and the image's digest (:mod:`.leases`), since a runner on another
  engine has no place in this machine's process table. A restarted
  controller re-adopts a run whose lease is still live (same container,
  same start time, running), as it re-adopts a local runner by pid and
  start time.
- **The workspace lives in the sandbox** (:mod:`.containers`): copied in
  (``put_archive``) when the run starts and brought back (``get_archive``)
  when its container has stopped, before the container is removed and the
  lease recorded released; the task's next run waits for that.
- **The network is one Unix socket** (:mod:`.agent_socket`): the machine's
  engine runs with ``--bridge=none --iptables=false``, so a container has
  either no network or the host's whole one. ``--network host`` would let
  the agent reach every port on loopback (the oracle, the model replay,
  other products), which no filter here could restrict. The container gets
  no network at all instead, and a folder holding only the controller's
  agent socket, which serves the agent API and the MCP tools and refuses
  every other route. The limit, said plainly: a bind mount needs the engine
  on this machine's filesystem (the local engine, or a second engine here
  through ``DOCKER_HOST``); an engine on another machine would need that
  socket carried to it (an SSH tunnel), which this environment does not do.
- **An agent CLI's metering proxy stays on the host** (:mod:`.meters`): the
  proxy is the CLI's only way to the model and holds the real key, so it
  runs beside the controller, one process per run, on a second socket whose
  folder only that run's container gets. The CLIs' programs are mounted
  read-only from ``make agents``' install; the runner inside relays a
  loopback port to each socket for the CLI.
- **The oracle's hardening** (read-only root, no capabilities,
  no-new-privileges, nobody, bounded pids, memory and CPU), with what a
  runner needs on top: a writable workspace volume and a larger /tmp.
"""
