"""The scripted agent: a deterministic program that behaves like a real agent.

It acts only through its workspace and the agent API, in visible paced steps,
emitting tool receipts as it goes. It recognises requests by keywords:

- a build request mentions ``slugify.py``; ``--separator`` / ``--max-length``
  anywhere in the task or the user's messages add those options;
- a request for an automated test suite in ``test_slugify.py`` makes it write
  that suite (QA) instead of the tool;
- "ask your teammate <Name> ..." makes it delegate through one child task;
- a message with "nonce <TOKEN>" asks for a short reply containing TOKEN only;
- 'create a document titled "T" in the S service' runs a service action
  through the product, which may ask the user first; "... in our P
  workspace" asks the user to connect P (a provider in the product's
  catalog: asks once, ends the run and acts on the answer in the next, see
  :mod:`provider_requests`); "an email address" asks the user for an
  AgentMail setup (the rest in :mod:`service_requests`).

The model name picks a persona; every persona except ``default`` breaks
exactly one thing on purpose, so stories can prove they catch it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import subprocess
import sys
from typing import Any

from ..environment import minimal_environment
from ..receipts import ids_of, read_detail
from ..session import AgentSession
from ..workspace import zip_workspace
from .provider_requests import catalog_entry, reach_provider
from .service_requests import (
    connect_provider,
    create_document,
    document_request,
    email_request,
    provider_request,
    set_up_email,
)
from .slugify_project import Requirements, project, source
from .slugify_suite import suite

log = logging.getLogger("agents.scripted")

PERSONAS = (
    "default",
    "ignores-late-feedback",  # consumes mid-run feedback but does not act on it
    "trailing-separator",  # leaves the separator the --max-length cut exposes
    "works-on-parent",  # hands the parent task to the teammate instead of waiting on the child
    "leaves-in-review",  # ends with the task in_review instead of done
    "crashes-mid-run",  # the runner dies right after saving slugify.py
    "parent-before-child",  # finishes the parent right after creating the child, without waiting
    "writes-after-stop",  # leaves a detached process writing to the workspace once the runner is gone
    "reports-made-up-document",  # after an approval, reports a document id the service never returned
    "silent-after-decline",  # after a decline, finishes without a word
    "asks-again-after-decline",  # after a decline (or Not now), asks for the same thing again
    "forgets-nonce",  # answers a short-reply request without the token it asked for
    "uncited-report",  # the lead reports the child's work done without naming its delivery
    "makes-up-contact",  # reports a provider contact it never read (after None, or instead of the chosen gateway)
    "forgets-contact-marker",  # reports the contact the gateway returned without its record id
    "ignores-delegation",  # does the work itself when asked to have a teammate do it
    "stuck-before-writing",  # starts a build, then keeps rereading its inbox and never writes a file
    "weak-tests",  # asked for a test suite, writes one that asserts nothing a broken tool would fail
    "claims-done-after-decline",  # after a decline, says it was done and names a document it never got
    "adds-invented-marker",  # reports the gateway's contact record and an invented second one
    "makes-up-record-number",  # after None, reports a contact under a plain record number nobody read
    "untrimmed-ends",  # builds a slugify that leaves separators at the ends of a slug, from its first delivery on
)

DELEGATION = re.compile(r"\b(?:ask|have|tell)\s+(?:your\s+)?teammate\s+([A-Za-z][\w.-]*)", re.IGNORECASE)
NONCE = re.compile(r"\bnonce\b\W*(?:is\W+)?`?([A-Za-z0-9][A-Za-z0-9_-]{3,})`?", re.IGNORECASE)
CRASH_EXIT_CODE = 70
# "metered work" in a task makes every build step a billed (simulated) model call of this many cents, so a
# story can watch a budget run out without any model: the product meters and budgets it like a real call.
METERED = re.compile(r"\bmetered work\b", re.IGNORECASE)
STEP_CENTS = 1.0


def nonce_in(text: str) -> str | None:
    match = NONCE.search(text)
    return match.group(1) if match else None


SUITE_REQUEST = re.compile(r"\bwrite\b[^.\n]*\btest suite\b", re.IGNORECASE)
SKILL_REQUEST = re.compile(r"\b(?:create|write|add|make)\b[^.\n]*\bskill\b", re.IGNORECASE)
QUOTED = re.compile(r"[\"\u201c]([^\"\u201d\n]{3,120})[\"\u201d]")


def skill_request(body: str) -> bool:
    return SKILL_REQUEST.search(body) is not None


def skill_name(body: str, title: str) -> str:
    """The skill's heading: the first quoted phrase of the request, else the task's title, capitalised."""
    match = QUOTED.search(body)
    name = (match.group(1) if match else title).strip().rstrip(".")
    return name[:1].upper() + name[1:]


def skill_body(name: str, request: str) -> str:
    """A markdown body derived from the request: the heading, the request quoted, a short checklist."""
    quoted = "\n".join(f"> {line}" for line in request.strip().splitlines())
    return (
        f"# {name}\n\nWritten for this request:\n\n{quoted}\n\n## Steps\n\n"
        "1. Gather what changed since the last release.\n2. Group it for the reader.\n3. Review before publishing.\n"
    )


def suite_request(body: str) -> bool:
    """A QA request: a test suite for the slugify tool, in test_slugify.py."""
    return SUITE_REQUEST.search(body) is not None and "test_slugify.py" in body


def strip_delegation(body: str) -> str:
    """The parent's request without the sentence that asks for delegation (the child must not delegate again)."""
    return re.sub(
        r"[^.\n]*\bteammate\s+[A-Za-z][\w.-]*[^.\n]*[.:]?[ \t]*\n?", "", body, count=1, flags=re.IGNORECASE
    ).strip()


class ScriptedAgent:
    def run(self, session: AgentSession) -> None:
        self.s = session
        self.api = session.client
        self.persona = session.model if session.model in PERSONAS else "default"
        self.writer: subprocess.Popen[bytes] | None = None
        if self.persona == "writes-after-stop":
            self.writer = self._start_background_writer()
        context = self.api.context()
        self.task: dict[str, Any] = context["task"]
        self.me: dict[str, Any] = context["agent"]
        self.metered = bool(METERED.search(self.task["body"]))
        new = self.api.inbox()
        self.api.receipt("read_task", f"task {self.task['id']}", detail=read_detail([m["id"] for m in new]))
        seen = {c["id"] for c in self.task["comments"]}
        self.user_texts = [c["body"] for c in self.task["comments"] if c["author_kind"] == "user"]
        self.user_texts += [m["body"] for m in new if m["id"] not in seen]
        self.s.step()

        latest = new[-1]["body"] if new else None
        nonce = nonce_in(latest) if latest else None
        delegate_to = None if self.persona == "ignores-delegation" else self._teammate()
        document = document_request([self.task["body"], *self.user_texts])
        provider = provider_request([self.task["body"], *self.user_texts])
        if nonce:
            self._reply_nonce(nonce)
        elif delegate_to:
            self._delegate(delegate_to)
        elif document:
            create_document(self, self.api, self.s, self.persona, *document)
        elif provider and catalog_entry(self.api, provider):
            reach_provider(self, self.api, self.persona, provider, [self.task["body"], *self.user_texts])
        elif provider:
            connect_provider(self, self.api, self.s, self.persona, provider)
        elif email_request([self.task["body"], *self.user_texts]):
            set_up_email(self, self.api, self.s, self.persona)
        elif skill_request(self.task["body"]):
            self._create_skill()
        elif suite_request(self.task["body"]):
            self._write_suite()
        elif "slugify.py" in self.task["body"] or any("slugify.py" in t for t in self.user_texts):
            self._build()
        else:
            self.api.comment("Noted. There is nothing for me to change.")
            self._settle("Acknowledged")

    # ---- endings -------------------------------------------------------------

    def _settle(self, summary: str) -> None:
        final = "in_review" if self.persona == "leaves-in-review" else "done"
        self.api.set_status(final)
        self.api.receipt("set_status", final)
        if self.writer is not None:  # finished normally: the helper goes with it
            self.writer.kill()
        self.api.finish("succeeded", summary)

    def _reply_nonce(self, nonce: str) -> None:
        self.api.receipt("reply", "comment", detail="short reply requested; no file changes")
        self.s.step()
        answer = "as requested" if self.persona == "forgets-nonce" else nonce
        self.api.comment(f"Understood, stopping the earlier work. Your short reply: {answer}")
        self._settle("Short reply sent")

    # ---- a company skill --------------------------------------------------------

    def _create_skill(self) -> None:
        """Exactly one library entry, named and written from the request, then a comment and done.

        Drafting the document is a think, as an agent's writing is: a run of two quick steps could start and end
        between two looks of the story's waits, and the invariants would have no look at it while it ran.
        """
        name = skill_name(self.task["body"], self.task["title"])
        body = skill_body(name, self.task["body"])
        self.s.think()
        skill_id = self.api.create_skill(name, body)
        self.api.receipt("create_skill", f"skill {skill_id}", detail=name)
        self.s.step()
        self.api.comment(f"I added the skill {name!r} to the company library (skill #{skill_id}).")
        self._settle(f"Skill {skill_id} created")

    # ---- a test suite (QA) -----------------------------------------------------

    def _write_suite(self) -> None:
        """Write test_slugify.py, run it against a slugify.py of its own with every option, deliver."""
        self.api.comment("Writing the test suite for slugify.py (test_slugify.py).")
        files = {
            "slugify.py": source(Requirements(separator=True, max_length=True)),
            "test_slugify.py": suite(weak=self.persona == "weak-tests"),
        }
        for name, text in files.items():
            (self.s.workspace / name).write_text(text)
            self.api.receipt("write_file", name, detail=f"{len(text)} characters")
            self.s.step()
        self._run_tests()
        data = zip_workspace(self.s.workspace)
        digest = hashlib.sha256(data).hexdigest()
        self.api.deliver(data)
        self.api.receipt("deliver", "delivery.zip", detail=f"sha256 {digest}")
        self.api.comment(f"Delivered the test suite test_slugify.py: ZIP sha256 {digest}.")
        self._settle(f"Delivered {digest}")

    # ---- building ------------------------------------------------------------

    def _requirements(self) -> Requirements:
        return Requirements.from_texts([self.task["body"], *self.user_texts])

    def _check_inbox(self) -> bool:
        """Read feedback between steps; True when it changes what must be built."""
        before = self._requirements()
        messages = self.api.inbox()
        if not messages:
            return False
        self.api.receipt("read_inbox", f"{len(messages)} message(s)", detail=ids_of(m["id"] for m in messages))
        if self.persona == "ignores-late-feedback":
            return False
        self.user_texts += [m["body"] for m in messages]
        changed = self._requirements() != before
        if changed:
            self.api.comment(f"Got it: I will include {self._requirements().describe()} before delivering.")
        return changed

    def _build(self) -> None:
        workspace = self.s.workspace
        req = self._requirements()
        files = self._project(req)
        current = {name: (workspace / name).read_text() if (workspace / name).exists() else None for name in files}
        if current == files and self.task["deliveries"]:
            self.api.comment("The delivered project already does all of that; nothing to change.")
            self._settle("Nothing to change")
            return
        self.api.comment(f"Working on slugify.py ({req.describe()}).")
        while self.persona == "stuck-before-writing":  # until the runner is stopped
            self.api.inbox()
            self.s.think()  # a stuck agent mulls things over between rereads; it does not hammer the product
        while True:
            if self._write_files():
                continue
            self._run_tests()
            self.s.step()
            if self._check_inbox():
                continue
            self._bill()
            data = zip_workspace(workspace)
            digest = hashlib.sha256(data).hexdigest()
            self.api.deliver(data)
            self.api.receipt("deliver", "delivery.zip", detail=f"sha256 {digest}")
            self.s.step()
            if self._check_inbox():
                continue
            break
        self.api.comment(f"Delivered the slugify project ({self._requirements().describe()}): ZIP sha256 {digest}.")
        self._settle(f"Delivered {digest}")

    def _project(self, req: Requirements) -> dict[str, str]:
        """The project's files as this persona writes them."""
        return project(
            req,
            trailing_separator=self.persona == "trailing-separator",
            untrimmed_ends=self.persona == "untrimmed-ends",
        )

    def _write_files(self) -> bool:
        """Write each file that differs; True when feedback arrived and the files must be redone."""
        files = self._project(self._requirements())
        for name, text in files.items():
            self._bill()
            path = self.s.workspace / name
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                self.api.receipt("write_file", name, detail=f"{len(text)} characters")
            self.s.think() if name == "slugify.py" else self.s.step()
            if self.persona == "crashes-mid-run" and name == "slugify.py":
                self.api.flush()
                log.error("crashes-mid-run persona: exiting without finishing")
                os._exit(CRASH_EXIT_CODE)
            if self._check_inbox():
                return True
        return False

    def _bill(self) -> None:
        """On metered work, the step about to be taken is a billed model call (see ``METERED``)."""
        if self.metered:
            self.api.bill_model_call(STEP_CENTS, self.s.model)

    def _run_tests(self) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "unittest", "-q", "test_slugify"],
            cwd=self.s.workspace,
            capture_output=True,
            text=True,
            env=minimal_environment(PYTHONDONTWRITEBYTECODE="1"),
            timeout=120,
        )
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
        self.api.receipt("run_tests", "test_slugify.py", ok=result.returncode == 0, detail=tail[0])

    # ---- delegation ----------------------------------------------------------

    def _teammate(self) -> str | None:
        match = DELEGATION.search(self.task["body"])
        if match is None or match.group(1).lower() == self.me["name"].lower():
            return None
        return match.group(1)

    def _delegate(self, teammate: str) -> None:
        existing = [c for c in self.task["children"] if (c["assignee_name"] or "").lower() == teammate.lower()]
        if existing:
            child_id = existing[0]["id"]
        else:
            child_id = self.api.create_child(self.task["title"], strip_delegation(self.task["body"]), teammate)
            self.api.receipt("delegate", f"task {child_id}", detail=f"assigned to {teammate}")
            self.api.comment(f"I asked {teammate} to do this in child task #{child_id}; I will report back.")
        self.s.step()
        if self.persona == "works-on-parent":
            self.api.assign(teammate)
            self.api.receipt("assign", f"task {self.task['id']}", detail=f"handed to {teammate}")
            self.api.finish("succeeded", f"Handed task {self.task['id']} to {teammate}")
            return
        child = self._wait_for_child(child_id)
        if self.persona == "uncited-report":
            self.api.comment(f"{teammate} finished child task #{child_id}; the work is delivered there.")
        elif child["deliveries"]:
            latest = child["deliveries"][-1]
            self.api.comment(
                f"{teammate} finished child task #{child_id}. Final delivery #{latest['id']}, sha256 {latest['sha256']}."
            )
        else:
            self.api.comment(f"{teammate} is working on child task #{child_id}.")
        self._settle(f"Child task {child_id} reported")

    def _wait_for_child(self, child_id: int) -> dict[str, Any]:
        """Poll until the child is done with nothing left to do (no run, no unread message)."""
        self.api.receipt("wait_for_task", f"task {child_id}")
        while True:
            child = self.api.read_task(child_id)
            if self.persona == "parent-before-child":  # does not wait at all
                return child
            settled = child["active_run_id"] is None and child["unconsumed_user_messages"] == 0
            if child["status"] == "done" and settled and child["deliveries"]:
                return child
            self.s.step()

    # ---- the writes-after-stop persona's helper -------------------------------------

    def _start_background_writer(self) -> subprocess.Popen[bytes]:
        """A detached process in a NEW session, so killing the runner's process group misses it."""
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harness.agents.scripted.background_writer",
                str(self.s.workspace),
                str(os.getpid()),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
