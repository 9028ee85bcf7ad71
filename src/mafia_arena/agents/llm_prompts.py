"""Prompt building blocks for LLM players: templates, the transcript window, and
turning a model's text back into game speech and beliefs.

Contract
--------
* :class:`PromptTemplates` holds the eight templates an :class:`~mafia_arena.agents.
  llm_agent.LLMAgent` renders (``system``, ``transcript``, ``speak``, ``decide``,
  ``beliefs``, ``belief_seat``, ``intent``, and ``alternatives``: the set moves a
  speaking turn offers besides free text, see :mod:`mafia_arena.agents.llm_alternatives`),
  read from ``agents/prompts/*.txt``. They are
  :class:`string.Template` texts (``$name`` placeholders, ``$$`` for a dollar sign).
  Every template is rendered with the same set of names (:data:`PLACEHOLDERS`);
  :func:`load_templates` renders each once with dummy values, so a typo in a custom
  template fails when the agent is built, naming the file and the placeholder, not in the
  middle of a game.
* Each request kind may have its own question template: ``speak_<kind>.txt`` or
  ``decide_<kind>.txt`` (the kind with ``:`` as ``_``, e.g. ``speak_describe.txt``,
  ``decide_vote.txt``, ``decide_night_mafia_kill.txt``); :meth:`PromptTemplates.for_request`
  falls back to ``speak``/``decide``. ``versions`` holds a short hash of every template's
  text, so a decision trace names the exact template it was asked with.
* A definition's ``prompt_template`` (relative to ``agents/prompts/``) may name a folder,
  whose files override the defaults by name, or a single file, which replaces the
  ``system`` template only.
* :func:`transcript_lines` reads a seat's transcript as tagged lines from its fold
  (rendered and tiered once per entry, `views.transcript.Transcript`) and
  :func:`fit_transcript` keeps them under a character budget (the agent file's
  ``max_prompt_chars``). What the seat alone knows (its role, allies, night results,
  role changes, team channels) and the skeleton of the game (phases, deaths, cards) are
  never dropped; old public speech goes first, oldest first, then other old public
  lines. The amount dropped grows in half-budget steps, so between two steps the
  transcript is append-only and the server's prompt prefix cache keeps working.
* :func:`clean_speech` turns a completion into one player's speech: it strips role-play
  prefixes (``P3:``, ``**P3 (discussion):**``; a label such as ``Assistant:``,
  ``Speech:``, ``My answer:`` or ``You:`` only where it opens the reply, before any
  speech: later, and anywhere inside a line, a word and a colon are the speaker's own,
  ``Listen: P3 lied``, ``Note: ...``, and so is ``You (P3): ...``, which addresses
  someone), stops where the model starts
  writing other players' lines or host lines (a tagged transcript line such as ``[D1] P5
  was killed ...``, ``--- Night 1 ---``, ``Game over: ...``, a line of the prompt's coded
  set moves such as ``#3: I suspect P4 is mafia.``: echoed, it would publish the
  prompt's ``(your teammate)`` marks), removes wrapping quotes (again after an
  unfinished rest is cut) and caps the length at a word boundary. It never raises; an
  empty result means "nothing usable".
* No speech speaks for the game or for another seat. A line opened by a voice of the
  game (``Host:``, ``Moderator:``, ``Narrator:``, ``System:``, ``Game master to you:``,
  ``GM:``, also as ``**Host:**``, ``> Host:``, ``[Host]`` or ``Host (night):``) is
  dropped whole before the speech and ends it after; such a tag, or another player's
  (``P4:``, ``**Player 4:**``), inside a line after a sentence ends it there; another
  player's tag opening the completion is stripped, so that its words are the
  speaker's own. Why: a speech is shown to the other seats as a quotation on its own
  line, but a small model reading ``P2: "Moderator: P5 was the detective."`` may
  still take it for the moderator's word. :func:`cleaned_speech` says whether the
  cleaning took out such words (``impersonation``; the seat's own name and a role-play
  tag do not count), and the LLM player counts those speeches. The tags are recognised
  in :mod:`~mafia_arena.agents.speaker_tags`, with which a person's speech is checked
  too (refused there rather than cut: :func:`~mafia_arena.agents.human.own_words`).
  Like a human's speech (:func:`~mafia_arena.agents.human.clean_text`) it keeps no
  character a page shows as nothing (format and tag characters, bidi overrides,
  private-use code points, stray variation selectors): a model's speech is public, and
  invisible text in it would be a channel to the other LLM seats that the people at
  the table cannot read.
* :func:`parse_beliefs` reads ``P<n>: <probability>`` pairs (also JSON-ish ``"P2": 0.3``
  and percentages) for the seats asked about, clamped to [0, 1]; seats it cannot read are
  left out rather than guessed.

Why here and not in the template files: these are the parts a prompt author should not
need to touch, and they are pure functions, tested without a model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from string import Template

from mafia_arena.agents.human import clean_text
from mafia_arena.agents.look_alikes import tag_form
from mafia_arena.agents.speaker_tags import (
    INLINE_CUT,
    INLINE_VOICE,
    NO_NAMES,
    VOICE_LINE,
    SpeakerNames,
    foreign_tags,
    seat_label,
    speaker,
)
from mafia_arena.input_files import not_a_file
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.transcript import TranscriptLine

__all__ = [
    "PLACEHOLDERS",
    "TEMPLATE_NAMES",
    "CleanedSpeech",
    "PromptTemplates",
    "TemplateError",
    "TranscriptLine",
    "clean_speech",
    "cleaned_speech",
    "default_prompts_dir",
    "fit_transcript",
    "kind_slug",
    "load_templates",
    "parse_beliefs",
    "seat_label",
    "transcript_lines",
]

TEMPLATE_NAMES = (
    "system",
    "transcript",
    "speak",
    "decide",
    "beliefs",
    "belief_seat",
    "intent",
    "alternatives",
)

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
    "situation",
)


class TemplateError(ValueError):
    """A prompt template that cannot be read or uses a placeholder wrongly.

    The message is ``FILE: KEY: REASON``, as every reader of a user's file words it
    (`mafia_arena.toml_file`): a template file has no keys, so `load_templates` gives
    ``TEMPLATE: -: REASON``; the agent file whose ``prompt_template`` named the
    template says ``AGENT_FILE: prompt_template: TEMPLATE: REASON``
    (`llm_shared.templates_for`)."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")


def default_prompts_dir() -> Path | None:
    """The folder of the default prompt templates, or None.

    An installed wheel carries them in the package (``mafia_arena/prompts/``, copied
    there by the build, see setup.py); a source checkout or an editable install reads
    the repository's ``agents/prompts/`` (found next to ``envs/``), the copy that is
    edited; last, ``agents/prompts/`` in the working folder.
    """
    here = Path(__file__).resolve()
    packaged = here.parents[1] / "prompts"
    if (packaged / "system.txt").is_file():
        return packaged
    for parent in here.parents:
        candidate = parent / "agents" / "prompts"
        if (candidate / "system.txt").is_file():
            return candidate
    candidate = Path.cwd() / "agents" / "prompts"
    return candidate if (candidate / "system.txt").is_file() else None


#: Question templates that may have a per-request-kind variant (``speak_<kind>.txt``).
_PER_KIND = ("speak", "decide")


def kind_slug(kind: str) -> str:
    """A request kind as a template-name suffix: ``night:mafia_kill`` → ``night_mafia_kill``."""
    return re.sub(r"[^a-z0-9_]+", "_", kind.lower()).strip("_")


@dataclass(frozen=True)
class PromptTemplates:
    """The compiled templates of one agent definition.

    ``kinds`` holds the per-request-kind question templates by file stem
    (``speak_describe``); ``versions`` a 12-hex-digit hash of every template's text by
    name (the eight and the per-kind ones)."""

    system: Template
    transcript: Template
    speak: Template
    decide: Template
    beliefs: Template
    belief_seat: Template
    intent: Template
    alternatives: Template
    kinds: Mapping[str, Template] = field(default_factory=dict)
    versions: Mapping[str, str] = field(default_factory=dict)

    def for_request(self, base: str, kind: str) -> str:
        """The template name to ask a ``kind`` request with: ``<base>_<kind>`` if there
        is one, else ``base``."""
        name = f"{base}_{kind_slug(kind)}"
        return name if name in self.kinds else base

    def render(self, name: str, values: Mapping[str, object]) -> str:
        """Render template ``name`` with ``values`` (missing names render as "")."""
        full = {key: "" for key in PLACEHOLDERS}
        full.update({key: str(value) for key, value in values.items()})
        template: Template = self.kinds[name] if name in self.kinds else getattr(self, name)
        return template.substitute(full).strip()


def load_templates(prompts_dir: Path, *overrides: Path | None) -> PromptTemplates:
    """Load the default templates from ``prompts_dir``, then apply each override in order.

    An override is a folder (its files replace templates by name) or one file (replaces
    the system template); ``None`` is skipped. Raises :class:`TemplateError`
    ``TEMPLATE: -: REASON`` for an override that is neither a file nor a folder and for a
    template that cannot be read or uses an unknown or malformed placeholder.
    """
    sources: dict[str, Path] = {name: prompts_dir / f"{name}.txt" for name in TEMPLATE_NAMES}
    sources.update(_per_kind_files(prompts_dir))
    for override in overrides:
        if override is None:
            continue
        if override.is_dir():
            for name in TEMPLATE_NAMES:
                if (override / f"{name}.txt").is_file():
                    sources[name] = override / f"{name}.txt"
            sources.update(_per_kind_files(override))
        elif override.is_file():
            sources["system"] = override
        else:
            raise TemplateError(str(override), "-", _neither_file_nor_folder(override))
    compiled: dict[str, Template] = {}
    versions: dict[str, str] = {}
    dummy = {key: "x" for key in PLACEHOLDERS}
    for name, path in sources.items():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise TemplateError(
                str(path), "-", f"cannot read the template: {exc.strerror or exc}"
            ) from exc
        except UnicodeDecodeError as exc:  # a template is text the model reads
            byte = exc.object[exc.start : exc.start + 1].hex()
            raise TemplateError(
                str(path),
                "-",
                f"cannot read the template: not UTF-8 text (byte 0x{byte} at offset {exc.start})",
            ) from None
        template = Template(text)
        try:
            template.substitute(dummy)
        except KeyError as exc:
            known = ", ".join(f"${k}" for k in PLACEHOLDERS)
            reason = f"unknown placeholder ${exc.args[0]}; known: {known}"
            raise TemplateError(str(path), "-", reason) from None
        except ValueError as exc:
            raise TemplateError(str(path), "-", f"bad placeholder syntax: {exc}") from None
        compiled[name] = template
        versions[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    kinds = {name: compiled.pop(name) for name in list(compiled) if name not in TEMPLATE_NAMES}
    assert {f.name for f in fields(PromptTemplates)} - {"kinds", "versions"} == set(compiled)
    return PromptTemplates(**compiled, kinds=kinds, versions=versions)


def _neither_file_nor_folder(path: Path) -> str:
    """Why a template override is neither a template file nor a folder of them: it is
    missing, or a pipe or device (whose reading could wait for ever)."""
    try:
        return not_a_file(path) or "not a template file"
    except OSError as exc:
        return exc.strerror or str(exc)


def _per_kind_files(folder: Path) -> dict[str, Path]:
    """``{stem: path}`` of the per-request-kind templates in ``folder``."""
    return {
        path.stem: path
        for base in _PER_KIND
        for path in sorted(folder.glob(f"{base}_*.txt"))
        if path.is_file()
    }


# ---------------------------------------------------------------------- transcript window


def transcript_lines(knowledge: Knowledge) -> list[TranscriptLine]:
    """The seat's transcript as tagged lines (events that render to nothing skipped):
    the fold's shared transcript, each entry rendered and tiered once
    (`views.transcript.TranscriptLine`)."""
    return knowledge.tagged_lines()


def _omitted(count: int) -> str:
    return f"(... {count} older public lines omitted to fit the prompt ...)"


def fit_transcript(lines: Sequence[TranscriptLine], max_chars: int) -> str:
    """The transcript under about ``max_chars``; see the module docstring for what goes.

    The number of characters dropped is the excess rounded up to a multiple of half the
    budget, so the cut moves only every half budget of new text. If even every
    droppable line is not enough, the kept lines are returned whole: a seat's own
    knowledge is never cut."""
    texts = [line.text for line in lines]
    total = sum(len(t) + 1 for t in texts)
    if total <= max_chars:
        return "\n".join(texts)
    step = max(100, max_chars // 2)
    target = -(-(total - max_chars + len(_omitted(0)) + 8) // step) * step
    recent, size = len(lines), 0  # the latest quarter budget of lines is never dropped
    while recent > 0 and size + len(texts[recent - 1]) + 1 <= max_chars // 4:
        recent -= 1
        size += len(texts[recent]) + 1
    dropped: set[int] = set()
    freed = 0
    for tier in (1, 2):
        for i, line in enumerate(lines[:recent]):
            if freed >= target:
                break
            if line.tier == tier:
                dropped.add(i)
                freed += len(line.text) + 1
    if not dropped:
        return "\n".join(texts)
    first = min(dropped)
    out = [*texts[:first], _omitted(len(dropped))]
    out += [t for i, t in enumerate(texts) if i > first and i not in dropped]
    return "\n".join(out)


# ---------------------------------------------------------------------- speech

#: Role-play labels a model may open its reply with ("Speech:", "My answer:", "You:"),
#: as one alternation. "You" followed by an aside addresses someone ("You (P3): explain
#: your vote."), so it is no label there.
_LABELS = r"assistant|me|you(?!\s*\()|(?:(?:my|final)\s+)?(?:answer|speech|response)"
_PREFIX = re.compile(
    r"^\s*(?:[*_`>#\s-]*)"  # markdown decoration, list bullets
    r"(?P<day>\[[A-Z]\d+\]\s*|(?:[DN]|Day\s|Night\s)\d+\s*:\s*)?"  # "[D1] ", "D1: "
    r"(?:(?:(?P<who>P\s?\d{1,2}|player\s*\d{1,2})|(?P<label>" + _LABELS + r"))"
    r"\s*(?:\([^)]{0,30}\))?"  # "(discussion)"
    r"\s*[*_`]*\s*[:：]\s*[*_`]*\s*)?",
    re.IGNORECASE,
)
#: Lines only the host writes (views.text): phase headers, the end, the prompt's own parts
#: (a speaking turn's coded set moves among them, "#3: I suspect P4 is mafia.").
_HOST_LINE = re.compile(
    r"^\s*(?:---|NOW\b|GAME RECORD|RULES\b|Game over|Options?:|#\d{1,3}\s*:)",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’`"
_MARKDOWN = " *_`>#-"
"""Decoration around a tag: markdown emphasis, a block quote, a heading, a bullet."""


@dataclass(frozen=True, slots=True)
class CleanedSpeech:
    """A completion as one player's speech (:func:`cleaned_speech`).

    ``impersonation``: the completion gave words to another speaker, and the cleaning
    took them out (module docstring)."""

    text: str
    impersonation: bool


def clean_speech(text: str, seat: int, max_chars: int, names: SpeakerNames = NO_NAMES) -> str:
    """One player's speech out of a completion; see the module docstring."""
    return cleaned_speech(text, seat, max_chars, names).text


def cleaned_speech(
    text: str, seat: int, max_chars: int, names: SpeakerNames = NO_NAMES
) -> CleanedSpeech:
    """:func:`clean_speech`, and whether it took out words given to another speaker.

    `names`: the names the seat reads the table's speakers by beside the labels
    (:func:`~mafia_arena.agents.human.speaker_names`: the forum pseudonyms its view
    holds, its own among them), whose tags are given to another speaker as a seat's
    label is: the names a person's speech is refused for."""
    me = seat_label(seat)
    lines, impersonation = _speech_lines(text, me, names)
    speech = re.sub(r"\s+", " ", " ".join(lines)).strip()
    folded, origin = tag_form(speech)  # tags read as they look; cut where written
    cuts = [m for m in (INLINE_CUT.search(folded), INLINE_VOICE.search(folded)) if m]
    inline = min(cuts, key=lambda m: m.start(), default=None)
    if inline and origin[inline.start()] > 0:
        speech = speech[: origin[inline.start()]].strip()
        own = inline.re is INLINE_CUT and speaker(inline) == me
        impersonation = impersonation or not own
    named = next((at for at, _, _ in foreign_tags(speech, me, names, labels=False) if at), 0)
    if named:  # a sentence opened by another's name ("... Owl: ..."): the record goes on
        speech = speech[:named].strip()
        impersonation = True
    while len(speech) >= 2 and speech[0] in _QUOTES and speech[-1] in _QUOTES:
        speech = speech[1:-1].strip()
    speech = speech.strip(_QUOTES + " ") if speech.count('"') == 1 else speech
    speech = _unquote(_whole_sentences(speech))
    if len(speech) > max_chars:
        cut = speech[: max_chars + 1]
        space = cut.rfind(" ")
        speech = (cut[:space] if space > max_chars // 2 else cut[:max_chars]).rstrip(" ,;:-")
    return CleanedSpeech(speech[:max_chars], impersonation)


def _speech_lines(text: str, me: str, names: SpeakerNames) -> tuple[list[str], bool]:
    """The completion's lines that are the seat's speech, prefixes stripped, and
    whether any line was given to another speaker.

    Before any speech, a transcript tag or a player's name is an echo of the line the
    model was asked to write: stripped; a host line or a line opened by a voice of the
    game (``Host:``, ``**Moderator:**``, ``[System]``) is dropped whole. After it, a
    blank line, a line of another player, a tagged transcript line (``[D1] P5 was
    killed ...``), a host line (``--- Night 1 ---``, ``Game over: ...``) or a voice's
    line is the model writing the record on: the speech ends there. A line opened by
    another's name of `names` (a pseudonym it does not own, ``Owl:``) is such a line
    after the speech, and its name is stripped before it, as another player's label
    is. Every one of these but the seat's own name (and a role-play tag such as
    ``Assistant:``) gives words to another speaker."""
    kept: list[str] = []
    others = False
    for raw in text.replace("\r", "").split("\n"):
        line = clean_text(raw)  # what a reader of the page would not see goes
        if not line:
            if kept:
                break
            continue
        folded, origin = tag_form(line)  # read as it looks: "Ηost:" is "Host:"
        match = _PREFIX.match(folded)
        if match and _opening_tag(match, speaking=bool(kept)):
            who = speaker(match)
            other = who is not None and who != me
            # another seat's name, or a dated record line: not the seat's own, nor "Assistant:"
            others = others or other or not (match.group("who") or match.group("label"))
            if kept and (match.group("day") or other):
                break
            line = line[origin[match.end()] :].strip()
            if VOICE_LINE.match(tag_form(line)[0]):  # "[D2] Host: ..."
                if kept:
                    break
                others = True
                continue
        elif _HOST_LINE.match(folded) or VOICE_LINE.match(folded):
            others = True
            if kept:
                break
            continue
        bare = _without_names(line, me, names)
        if bare != line:  # "Owl: ...": another's name
            others = True
            if kept:
                break
            line = bare
        if line:
            kept.append(line)
    return kept, others


def _opening_tag(match: re.Match[str], *, speaking: bool) -> bool:
    """Whether a line's :data:`_PREFIX` match is a tag to strip or stop at: a seat's
    tag or a transcript's day tag wherever it opens a line; a role-play label
    (``Speech:``, ``My answer:``, ``You:``) only before any speech (not ``speaking``).

    Why: at the start of the reply a label names what follows; once the speech has
    begun, a line opened by such a word and a colon is the speaker's own sentence
    (``You: are lying, P3.``), and cutting the word would change what it says."""
    if match.group("who") or match.group("day"):
        return True
    return bool(match.group("label")) and not speaking


def _without_names(line: str, me: str, names: SpeakerNames) -> str:
    """`line` without the tags of names of `names` not `me`'s that open it, one after
    another (``Owl: Sparrow: ...``), with the markdown around them (``**Owl:**``)."""
    while names:
        opening = next(foreign_tags(line, me, names, labels=False), None)
        if opening is None or line[: opening[0]].strip(_MARKDOWN):
            break
        line = line[opening[1] :].lstrip(_MARKDOWN)
    return line


def _unquote(speech: str) -> str:
    """Remove one pair of quotes wrapping the whole speech (left once the sentence cut
    dropped what followed the closing quote)."""
    if len(speech) >= 2 and speech[0] in _QUOTES and speech[-1] in _QUOTES:
        return speech[1:-1].strip()
    return speech


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
