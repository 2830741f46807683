"""The secrets a run's agent is handed, told to whoever started the product so its evidence scan knows their values.

A product keeps only a hash of each run token, and each runner gives its
agent CLI a key for the run's metering proxy. A harness scanning the evidence
of a run for leaks can recognise both by their shape, but a value it knows is
found however it is framed. So a ledger file (the testbed's controller started
with ``--issued-secrets FILE``, the harness's option; our agent-side programs
on Paperclip, which mints its own tokens) gets every run token appended,
readable by its owner only, and the proxy key is
derived from the run token (HMAC), so whoever knows the token knows the key
and no second channel out of the runner is needed. The key does not reveal
the token: an agent given only the key cannot act as the run.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from pathlib import Path

LEDGER_NAME = "issued-secrets.jsonl"  # in the instance's own folder, beside (never inside) the logs a package keeps
PROXY_KEY_PREFIX = "throwaway-"
# A finding reads "<file> holds a run token issued to run 3": the value was known, not guessed from its shape.
RUN_TOKEN_LABEL = "run token issued to run"
PROXY_KEY_LABEL = "metering proxy key issued to run"


def proxy_key(run_token: str) -> str:
    """The throwaway key a run's metering proxy accepts: unguessable without the token, which it does not reveal."""
    digest = hmac.new(run_token.encode(), b"testbed metering proxy key", hashlib.sha256).digest()
    return PROXY_KEY_PREFIX + base64.urlsafe_b64encode(digest[:24]).decode().rstrip("=")


def record_run_token(ledger: Path | None, run_id: int | str, token: str) -> None:
    """Append one run token (no-op without a ledger): minted by the testbed's controller, or received by our
    agent-side programs on a product that mints its own (Paperclip's runner and tool server)."""
    if ledger is None:
        return
    descriptor = os.open(ledger, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(descriptor, "a") as out:
        out.write(json.dumps({"run_id": run_id, "token": token}) + "\n")


def read(ledger: Path, proxy_keys: bool = True) -> dict[str, str]:
    """Label to value for every run token in the ledger (and, where runners derive them, its metering proxy
    key); empty when there is none."""
    if not ledger.is_file():
        return {}
    found: dict[str, str] = {}
    for line in ledger.read_text().splitlines():
        try:
            entry = json.loads(line)
            run_id, token = str(entry["run_id"]), str(entry["token"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a killed controller
        if token in found.values():
            continue  # the same run told again (Paperclip starts a CLI's tool server once per turn)
        tag = run_id if f"{RUN_TOKEN_LABEL} {run_id}" not in found else f"{run_id} (again)"
        found[f"{RUN_TOKEN_LABEL} {tag}"] = token
        if proxy_keys:
            found[f"{PROXY_KEY_LABEL} {tag}"] = proxy_key(token)
    return found
