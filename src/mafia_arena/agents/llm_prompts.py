"""Prompt building blocks for LLM players: templates, the transcript window, and
turning a model's text back into game speech and beliefs.

Contract
--------
* :class:`PromptTemplates` holds the seven templates an :class:`~mafia_arena.agents.
  llm_agent.LLMAgent` renders (``system``, ``transcript``, ``speak``, ``decide``,
  ``beliefs``, ``belief_seat``, ``intent``), read from ``agents/prompts/*.txt``. They are
  :class:`string.Template` texts (``$name`` placeholders, ``$$`` for a dollar sign).
  Every template is rendered with the same set of names (:data:`PLACEHOLDERS`);
  :func:`load_templates` renders each once with dummy values, so a typo in a custom
  template fails when the agent is built, naming the file and the placeholder, not in the
  middle of a game.
* A definition's ``prompt_template`` (relative to ``agents/prompts/``) may name a folder,
  whose files override the defaults by name, or a single file, which replaces the
  ``system`` template only.
* :func:`transcript_window` keeps a transcript under a character budget. It keeps the
  opening lines (setup, own role, allies) and the tail, and moves the cut point in
  half-budget steps, so the text stays append-only between cuts and the server's prompt
  prefix cache keeps working.
* :func:`clean_speech` turns a completion into one player's speech: it strips role-play
  prefixes (``P3:``, ``**P3 (discussion):**``, ``Assistant:``), stops where the model starts
  writing other players' lines or host lines, removes wrapping quotes and caps the length
  at a word boundary. It never raises; an empty result means "nothing usable".
* :func:`parse_beliefs` reads ``P<n>: <probability>`` pairs (also JSON-ish ``"P2": 0.3``
  and percentages) for the seats asked about, clamped to [0, 1]; seats it cannot read are
  left out rather than guessed.

Why here and not in the template files: these are the parts a prompt author should not
need to touch, and they are pure functions, tested without a model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from string import Template

__all__ = [
    "PLACEHOLDERS",
    "TEMPLATE_NAMES",
    "PromptTemplates",
    "TemplateError",
    "clean_speech",
    "default_prompts_dir",
    "load_templates",
    "parse_beliefs",
    "seat_label",
    "transcript_window",
]

TEMPLATE_NAMES = ("system", "transcript", "speak", "decide", "beliefs", "belief_seat", "intent")

#: Every name a template may use. All templates get all of them (unused ones are ignored).
PLACEHOLDERS = (
    "rules",
    "seat",
    "role",
    "faction",
    "goal",
    "allies",
    "persona",
    "transcript",
    "prompt",
    "options",
    "max_chars",
    "day",
    "example",
    "target",
)


class TemplateError(ValueError):
    """A prompt template is missing or uses an unknown placeholder (names file and key)."""


def seat_label(seat: int) -> str:
    """``0`` → ``P1``: the name players see in the transcript."""
    return f"P{seat + 1}"


def default_prompts_dir() -> Path | None:
    """The repository's ``agents/prompts/`` (found next to ``envs/``), or None."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "agents" / "prompts"
        if (candidate / "system.txt").is_file():
            return candidate
    candidate = Path.cwd() / "agents" / "prompts"
    return candidate if (candidate / "system.txt").is_file() else None


@dataclass(frozen=True)
class PromptTemplates:
    """The compiled templates of one agent definition."""

    system: Template
    transcript: Template
    speak: Template
    decide: Template
    beliefs: Template
    belief_seat: Template
    intent: Template

    def render(self, name: str, values: Mapping[str, object]) -> str:
        """Render template ``name`` with ``values`` (missing names render as "")."""
        full = {key: "" for key in PLACEHOLDERS}
        full.update({key: str(value) for key, value in values.items()})
        template: Template = getattr(self, name)
        return template.substitute(full).strip()


def load_templates(prompts_dir: Path, *overrides: Path | None) -> PromptTemplates:
    """Load the default templates from ``prompts_dir``, then apply each override in order.

    An override is a folder (its files replace templates by name) or one file (replaces
    the system template); ``None`` is skipped. Raises :class:`TemplateError` naming the
    file and the problem.
    """
    sources: dict[str, Path] = {name: prompts_dir / f"{name}.txt" for name in TEMPLATE_NAMES}
    for override in overrides:
        if override is None:
            continue
        if override.is_dir():
            for name in TEMPLATE_NAMES:
                if (override / f"{name}.txt").is_file():
                    sources[name] = override / f"{name}.txt"
        elif override.is_file():
            sources["system"] = override
        else:
            raise TemplateError(f"{override}: prompt_template not found")
    compiled: dict[str, Template] = {}
    dummy = {key: "x" for key in PLACEHOLDERS}
    for name, path in sources.items():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TemplateError(
                f"{path}: cannot read prompt template: {exc.strerror or exc}"
            ) from exc
        template = Template(text)
        try:
            template.substitute(dummy)
        except KeyError as exc:
            raise TemplateError(
                f"{path}: unknown placeholder ${exc.args[0]}; known: "
                + ", ".join(f"${k}" for k in PLACEHOLDERS)
            ) from None
        except ValueError as exc:
            raise TemplateError(f"{path}: bad placeholder syntax: {exc}") from None
        compiled[name] = template
    assert {f.name for f in fields(PromptTemplates)} == set(compiled)
    return PromptTemplates(**compiled)


# ---------------------------------------------------------------------- transcript window

_OMITTED = "(... earlier events omitted ...)"


def transcript_window(text: str, max_chars: int) -> str:
    """``text`` cut to about ``max_chars``; see the module docstring for how and why."""
    if len(text) <= max_chars:
        return text
    lines = text.split("\n")
    head: list[str] = []
    for line in lines:  # the opening lines before the first phase marker
        if line.startswith("---"):
            break
        head.append(line)
    head_text = "\n".join(head)
    if len(head_text) > max_chars // 4:  # no phase marker near the start: no head
        head_text = ""
    body = text[len(head_text) :].lstrip("\n")
    budget = max(200, max_chars - len(head_text) - len(_OMITTED) - 2)
    step = max(100, budget // 2)
    excess = len(body) - budget
    if excess <= 0:
        return text
    cut = (excess // step + 1) * step
    newline = body.find("\n", cut)
    tail = body[newline + 1 :] if newline >= 0 else body[cut:]
    return "\n".join(part for part in (head_text, _OMITTED, tail) if part)


# ---------------------------------------------------------------------- speech

_PREFIX = re.compile(
    r"^\s*(?:[*_`>#\s]*)"  # markdown decoration
    r"(?P<day>\[[DN]\d+\]\s*|(?:[DN]|Day\s|Night\s)\d+\s*:\s*)?"  # "[D1] ", "D1: "
    r"(?:(?P<who>P\s?\d{1,2}|player\s*\d{1,2}|assistant|me|you|answer|speech|response)"
    r"\s*(?:\([^)]{0,30}\))?"  # "(discussion)"
    r"\s*[*_`]*\s*[:：]\s*[*_`]*\s*)?",
    re.IGNORECASE,
)
_HOST_LINE = re.compile(
    r"^\s*(?:---|\[[DN]\d+\]|NOW\b|GAME RECORD|RULES\b|Game over|Options?:)", re.IGNORECASE
)
_QUOTES = "\"'“”‘’`"
#: Inside a line: where a model starts another transcript line ("... D1: ...", "... P4: ").
_INLINE_CUT = re.compile(
    r"\s(?:\[?[DN]\d{1,2}\]?(?=[:\s]|$)|\[P\d{1,2}\]|P\s?\d{1,2}\s*(?:\([^)]{0,30}\))?\s*:\s)"
)


def _speaker(match: re.Match[str]) -> str | None:
    who = re.sub(r"\s+", "", match.group("who") or "").upper()
    if who.startswith("PLAYER"):
        who = "P" + who[len("PLAYER") :]
    return who if who.startswith("P") and who[1:].isdigit() else None


def clean_speech(text: str, seat: int, max_chars: int) -> str:
    """One player's speech out of a completion; see the module docstring."""
    me = seat_label(seat)
    kept: list[str] = []
    for raw in text.replace("\r", "").split("\n"):
        line = raw.strip()
        if not line:
            if kept:
                break  # a blank line after the speech: what follows is usually not speech
            continue
        match = _PREFIX.match(line)
        if match and (match.group("who") or match.group("day")):
            speaker = _speaker(match)
            if kept and speaker is not None and speaker != me:
                break  # the model started writing another player's line
            line = line[match.end() :].strip()
        elif _HOST_LINE.match(line):
            if kept:
                break
            continue
        if line:
            kept.append(line)
    speech = re.sub(r"\s+", " ", " ".join(kept)).strip()
    inline = _INLINE_CUT.search(speech)
    if inline and inline.start() > 0:
        speech = speech[: inline.start()].strip()
    while len(speech) >= 2 and speech[0] in _QUOTES and speech[-1] in _QUOTES:
        speech = speech[1:-1].strip()
    speech = speech.strip(_QUOTES + " ") if speech.count('"') == 1 else speech
    speech = _whole_sentences(speech)
    if len(speech) > max_chars:
        cut = speech[: max_chars + 1]
        space = cut.rfind(" ")
        speech = (cut[:space] if space > max_chars // 2 else cut[:max_chars]).rstrip(" ,;:-")
    return speech[:max_chars]


def _whole_sentences(speech: str) -> str:
    """Drop an unfinished last sentence (cut by the token limit, or ending in "Your
    turn:") when at least half of the speech is complete sentences."""
    if not speech or speech[-1] in ".!?\"')”’":
        return speech
    ends = [m.end() for m in re.finditer(r"[.!?][\"'”’)]*(?=\s)", speech)]
    if ends and ends[-1] >= len(speech) // 2:
        return speech[: ends[-1]].strip()
    return speech.rstrip(" :;,-")


# ---------------------------------------------------------------------- beliefs

_BELIEF = re.compile(
    r"\bP\s?(?P<seat>\d{1,2})\b[^\d\n]{0,15}?"
    r"(?P<value>\d{1,3}(?:\.\d+)?\s*%|\d?\.\d+|[01](?![\d.]))",
    re.IGNORECASE,
)


def parse_beliefs(text: str, seats: Sequence[int]) -> dict[int, float]:
    """``{seat: P(mafia)}`` for the ``seats`` (0-based) named in ``text``; first mention wins."""
    wanted = set(seats)
    probs: dict[int, float] = {}
    for match in _BELIEF.finditer(text):
        seat = int(match.group("seat")) - 1
        if seat not in wanted or seat in probs:
            continue
        raw = match.group("value").replace(" ", "")
        try:
            value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
        except ValueError:
            continue
        if value > 1.0:
            continue  # "P2: 7" is not a probability; leave it out rather than guess
        probs[seat] = min(1.0, max(0.0, value))
    return probs
