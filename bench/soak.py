"""``make soak``: kill the testbed's controller at random during real work and count what survived.

A real controller and real scripted-agent runners on loopback build, revise
and answer while a simulated user keeps sending messages, and the controller
is killed (SIGKILL or SIGTERM, at random) again and again. Afterwards every
message the user sent is traced from the API's acknowledgement to storage, to
"consumed by run N", to the receipt in which that run's agent says it read
the message. The figures: kills, messages acknowledged, stored, consumed,
lost, duplicated, stuck runs, orphan processes (goal: 0 lost, 0 duplicated,
0 stuck, 0 orphans). Exit 0 only when the goal is met over the kills asked for.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import signal
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import httpx
from pydantic import BaseModel

from bench.arguments import count, seconds

# The one import of the product's instance: it is moving to harness.products.testbed.instance.
from bench.entry import run_benchmark
from harness.agents.receipts import ids_in
from harness.products.testbed import TestbedInstance
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH, REVISION_SEPARATOR

SIGNALS = (signal.SIGKILL, signal.SIGTERM)


class Figures(BaseModel):
    """What one soak measured; printed, and the basis of the exit status."""

    kills: int
    sigkills: int
    sigterms: int
    messages_sent: int
    acknowledged: int
    stored: int
    consumed: int
    delivered_once: int
    lost: int
    duplicated: int
    stuck_runs: int
    orphan_processes: int
    runs: dict[str, int]
    deliveries: int
    deliveries_verified: int
    seconds: float

    @property
    def clean(self) -> bool:
        return self.lost == self.duplicated == self.stuck_runs == self.orphan_processes == 0

    def lines(self) -> list[str]:
        return [
            f"kills                {self.kills} ({self.sigkills} SIGKILL, {self.sigterms} SIGTERM)",
            f"messages sent        {self.messages_sent}",
            f"  acknowledged       {self.acknowledged}",
            f"  stored             {self.stored}",
            f"  consumed           {self.consumed}",
            f"  delivered once     {self.delivered_once}",
            f"  lost               {self.lost}",
            f"  duplicated         {self.duplicated}",
            f"stuck runs           {self.stuck_runs}",
            f"orphan processes     {self.orphan_processes}",
            f"runs                 {', '.join(f'{k} {v}' for k, v in sorted(self.runs.items()))}",
            f"deliveries verified  {self.deliveries_verified}/{self.deliveries} (sha256 of the downloaded bytes)",
            f"wall time            {self.seconds:.1f} s",
            f"result               {'0 lost, 0 duplicated, 0 stuck' if self.clean else 'FAILED'}",
        ]


@dataclass
class User:
    """Sends messages to the tasks at random moments, whether or not the controller is up."""

    base_url: str
    task_ids: list[int]
    rng: random.Random
    sent: dict[str, int] = field(default_factory=dict)  # marker -> task id, every attempt
    acknowledged: set[str] = field(default_factory=set)
    _stop: threading.Event = field(default_factory=threading.Event)

    def body(self, task_id: int, marker: str, build: bool) -> str:
        kind = self.rng.choice(("nonce", "note", "revision") if build else ("nonce", "note"))
        if kind == "nonce":
            return f"[{marker}] Quick check, reply with nonce {marker}"
        if kind == "revision":
            return f"[{marker}] {self.rng.choice((REVISION_SEPARATOR, LATE_REQUIREMENT_MAX_LENGTH))}"
        return f"[{marker}] Thanks, carry on."

    def run(self, build_task: int) -> None:
        with httpx.Client(base_url=self.base_url, timeout=3.0) as http:
            while not self._stop.wait(self.rng.uniform(0.15, 0.6)):
                task_id = self.rng.choice(self.task_ids)
                marker = f"soak-{uuid.uuid4().hex[:10]}"
                self.sent[marker] = task_id
                try:
                    answer = http.post(
                        f"/api/tasks/{task_id}/comments",
                        json={"body": self.body(task_id, marker, task_id == build_task)},
                    )
                except httpx.TransportError:
                    continue  # the controller is down: not acknowledged (it may still have been stored)
                if answer.status_code == 201:
                    self.acknowledged.add(marker)

    def stop(self) -> None:
        self._stop.set()


def soak(kills: int, seed: int, pace: float, max_seconds: float, drain_seconds: float) -> Figures:
    rng = random.Random(seed)
    started = time.monotonic()
    signals: Counter[str] = Counter()
    with TestbedInstance(pace=pace) as instance:
        api = instance.api
        agents = [api.create_agent(name=f"Soak{n}{uuid.uuid4().hex[:4]}") for n in range(3)]
        build = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agents[0].id)
        answers = [
            api.create_task(f"Answer me {n}", "Reply to my messages.", assignee_id=a.id)
            for n, a in enumerate(agents[1:])
        ]
        task_ids = [int(build.id), *(int(t.id) for t in answers)]
        user = User(instance.base_url, task_ids, random.Random(rng.random()))
        sender = threading.Thread(target=user.run, args=(build.id,), name="user", daemon=True)
        sender.start()
        for _ in range(kills):
            if time.monotonic() - started > max_seconds:
                break
            time.sleep(rng.uniform(0.3, 1.5))
            sig = rng.choice(SIGNALS)
            instance.restart(sig)
            signals[sig.name] += 1
        user.stop()
        sender.join()

        deadline = time.monotonic() + drain_seconds
        while time.monotonic() < deadline and not all(api.task(t).settled for t in task_ids):
            time.sleep(0.2)

        tasks = [api.task(t) for t in task_ids]
        comments = [c for t in tasks for c in t.user_messages()]
        runs = [r for t in tasks for r in t.runs]
        read_counts = Counter(
            i
            for r in runs
            for receipt in r.receipts
            if receipt.tool in ("read_task", "read_inbox")
            for i in ids_in(receipt.detail)
        )
        by_marker: dict[str, list[int]] = {}
        for comment in comments:
            marker = comment.body[1:].split("]", 1)[0]
            by_marker.setdefault(marker, []).append(int(comment.id))
        stored = {m: ids for m, ids in by_marker.items() if m in user.sent}
        never_stored = user.acknowledged - stored.keys()
        unread = [m for m, ids in stored.items() if sum(read_counts[i] for i in ids) == 0]
        twice = [m for m, ids in stored.items() if len(ids) > 1 or any(read_counts[i] > 1 for i in ids)]
        stuck = [r for r in runs if r.status in ("queued", "running")]
        stuck_tasks = [t for t in tasks if t.unconsumed_user_messages and t.active_run_id is None]
        orphans = [p for p in instance.processes() if p.pid != instance.controller_pid]
        deliveries = [d for t in tasks for d in t.deliveries]
        verified = sum(hashlib.sha256(api.delivery_bytes(d.id)).hexdigest() == d.sha256 for d in deliveries)
        return Figures(
            kills=sum(signals.values()),
            sigkills=signals["SIGKILL"],
            sigterms=signals["SIGTERM"],
            messages_sent=len(user.sent),
            acknowledged=len(user.acknowledged),
            stored=len(stored),
            consumed=sum(1 for c in comments if c.consumed_by_run_id is not None),
            delivered_once=sum(1 for ids in stored.values() if len(ids) == 1 and read_counts[ids[0]] == 1),
            lost=len(never_stored) + len(unread),
            duplicated=len(twice),
            stuck_runs=len(stuck) + len(stuck_tasks),
            orphan_processes=len(orphans),
            runs=dict(Counter(f"{r.status}{'/' + r.error_code if r.error_code else ''}" for r in runs)),
            deliveries=len(deliveries),
            deliveries_verified=verified,
            seconds=time.monotonic() - started,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--kills", type=count, default=24, help="controller kills (at least 20 for the goal)")
    parser.add_argument("--seed", type=int, default=None, help="random seed (printed; default: random)")
    parser.add_argument("--pace", type=seconds, default=0.05, help="scripted agent seconds per step")
    parser.add_argument("--max-seconds", type=seconds, default=240.0, help="stop killing after this long")
    parser.add_argument(
        "--drain-seconds", type=seconds, default=90.0, help="how long the work may take to settle afterwards"
    )
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(f"soak: seed {seed}, {args.kills} controller kills, pace {args.pace} s, loopback only", flush=True)
    figures = soak(args.kills, seed, args.pace, args.max_seconds, args.drain_seconds)
    print("\n".join(figures.lines()))
    enough = figures.kills >= min(args.kills, 20)
    return 0 if figures.clean and enough else 1


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
