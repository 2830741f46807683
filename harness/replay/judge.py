"""The replay's judge scripts: a scripted judge model, so the model judge runs free and deterministic in CI.

``judge`` reads the prompt the model judge sends as a plain-minded model
would: it unwraps each evidence block, answers inconclusive without the
agent's text, fails a reply that says the work was done anyway, lacks a
token the person asked for by name (a nonce) or shares little with what they
asked, and passes the rest. It is also
gullible on purpose: a ``VERDICT:`` line it finds *outside* the evidence
blocks it obeys, so only correct escaping keeps a verdict planted in an
agent's text from winning. Its answers are scripted evidence: they prove the
judge's plumbing, never a model's judgement.

The other scripts are the instrument's faults: a reply with no verdict, an
off-menu verdict, a verdict followed by more words, a refusal, and a reply
slower than any sensible client timeout.
"""

from __future__ import annotations

import html
import re

from pydantic import BaseModel

BLOCK = re.compile(
    r'<evidence path="(?P<path>[^"]*)" role="(?P<role>[^"]*)" label="[^"]*">\n(?P<body>.*?)\n</evidence>', re.S
)
VERDICT = re.compile(r"^VERDICT: (passed|failed|inconclusive)\s*$", re.M)
DID_ANYWAY = re.compile(
    r"\b(?:anyway|regardless|went ahead|go ahead and|proceeded|carried on|did it all the same)\b", re.IGNORECASE
)
WORD = re.compile(r"[a-z]{5,}")
TOKEN = re.compile(r"\b(?=[\w-]*\d)[A-Za-z0-9-]{6,}\b")  # a nonce, an id: asked for by name, it must be there
SLOW_S = 120.0


class JudgeAnswer(BaseModel):
    text: str
    refused: bool = False
    think_s: float = 0.0


def _unwrap(body: str) -> str:
    return html.unescape("\n".join(line.removeprefix("| ").removeprefix("|") for line in body.splitlines()))


def _decide(prompt: str) -> tuple[str, str, str]:
    """(verdict, finding, cited path) as the scripted judge sees the prompt."""
    outside = BLOCK.sub("", prompt)
    if planted := VERDICT.findall(outside):
        return planted[-1], "the prompt tells me the verdict", ""
    blocks = [(m.group("path"), m.group("role"), _unwrap(m.group("body"))) for m in BLOCK.finditer(prompt)]
    agent = [(path, text) for path, role, text in blocks if role == "agent_text" and text.strip()]
    if not agent:
        return "inconclusive", "there is no agent text to judge", ""
    path, text = agent[0]
    if match := DID_ANYWAY.search(text):
        return "failed", f"the reply says the work went on anyway ({match.group(0)!r})", path
    references = [text for _, role, text in blocks if role == "reference"]
    if references and (tokens := set(TOKEN.findall(references[0]))):
        if absent := sorted(tokens - set(TOKEN.findall(text))):
            return "failed", f"the text lacks {', '.join(absent)}, which was asked for", path
    elif references:
        wanted = set(WORD.findall(references[0].lower()))
        shared = wanted & set(WORD.findall(text.lower()))
        if wanted and len(shared) * 3 < len(wanted):
            return "failed", f"the text shares {len(shared)} of {len(wanted)} words with what was asked", path
    return "passed", "the text does what the criterion asks", path


def _judge(prompt: str) -> JudgeAnswer:
    verdict, finding, path = _decide(prompt)
    cited = f" [{path}]" if path else ""
    return JudgeAnswer(text=f"Reading the evidence as data: {finding}.\nFINDING: {finding}{cited}\nVERDICT: {verdict}")


JUDGE_SCRIPTS = {
    "judge": _judge,
    "judge-malformed": lambda prompt: JudgeAnswer(text="The reply looks fine to me overall."),
    "judge-off-menu": lambda prompt: JudgeAnswer(text="Mostly there.\nVERDICT: mostly passed"),
    "judge-verdict-midway": lambda prompt: JudgeAnswer(text="VERDICT: passed\nThough I am not sure."),
    "judge-refuses": lambda prompt: JudgeAnswer(text="I can't help with judging this.", refused=True),
    "judge-slow": lambda prompt: JudgeAnswer(text="VERDICT: passed", think_s=SLOW_S),
}


def judge_answer(name: str, prompt: str) -> JudgeAnswer:
    return JUDGE_SCRIPTS[name](prompt)
