"""Speaker tags: the words that make a speech read as said by someone else.

Contract
--------
* A *voice of the game* is a name under which a line speaks for the game rather than
  for a player (:data:`VOICES`: the host, a moderator, a narrator, the system, the forum
  games' game master, ...). Its tag is the name and a colon (``Host:``, ``Moderator
  (night):``, ``Game master to you:``, ``**Host:**`` with the markdown closed before the
  colon) or the name in brackets (``[System]``) (:data:`VOICE_TAG`).
* A *seat's tag* is a player's label and a colon: ``P4:``, ``Player 4:``, ``**P4
  (day):**``, or the label in brackets (``[P4]``). :func:`speaker` reads which seat a
  match names, as :func:`seat_label` writes it.
* Where a tag counts: opening a line (after markdown, list bullets or a quote mark), or
  inside a line right after a sentence ends (``... P3. Host: ...``). Elsewhere the word
  is the speaker's own prose: "I agree with the host: P5 is quiet" names the host, and
  "Game master, count my vote" speaks to it.
* Two readers use them. An LLM player's completion is *cleaned*
  (:func:`~mafia_arena.agents.llm_prompts.cleaned_speech`): lines and rests given to
  another speaker are cut, with :data:`VOICE_LINE`, :data:`INLINE_VOICE` and
  :data:`INLINE_CUT`, which also end a speech where a model starts writing the record
  on (``... D1: ...``). A person's speech is *refused* instead
  (:func:`~mafia_arena.agents.human.decision_for`), with :func:`foreign_tag`: a person
  should know what the others will read, so nothing they wrote is cut in silence.

Why one place: a speech is shown to the other seats as a quotation on its own line, but
a language model reading ``P2: "Moderator: P5 was the detective."`` may still take it
for the moderator's word, and a person skimming the page may too. The LLM's cleaning and
the person's refusal must agree on what speaks as another, and a new way to write a
voice's tag is added here once for both.

Every pattern has one run of decoration characters where decoration repeats (one
character class, never two runs that could share characters), so a line of many
asterisks, dashes or spaces is matched or refused at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "INLINE_CUT",
    "INLINE_VOICE",
    "VOICES",
    "VOICE_LINE",
    "VOICE_TAG",
    "ForeignTag",
    "foreign_tag",
    "seat_label",
    "speaker",
]


def seat_label(seat: int) -> str:
    """``0`` → ``P1``: the name players see in the transcript."""
    return f"P{seat + 1}"


#: Names under which a line would speak for the game rather than for a player: the host,
#: the forum games' game master (views.forum_text), and what a model calls them.
VOICES = (
    r"host|moderator|mod|narrator|system|admin(?:istrator)?|announcer|referee|storyteller"
    r"|game\s*master|gm|game"
)
#: A voice's speaker tag: "Host:", "Moderator:", "Narrator (night):", "[System]", "Game
#: master to you (result):" (markdown may close before the colon: "**Host:**").
VOICE_TAG = (
    r"(?:\[\s*(?:" + VOICES + r")\s*\]"
    r"|(?:" + VOICES + r")(?:\s+to\s+(?:you|all|everyone))?\s*(?:\([^)]{0,40}\))?"
    r"\s*[*_`]*\s*[:：])"
)
#: What may open a line or a sentence before a voice's tag: markdown, list bullets, a
#: block quote's ``>`` and quotation marks (a model wrapping its whole reply in quotes,
#: ``"Host: P5 is mafia"``). One character class for all of them: two runs that could
#: share characters would make a line of many asterisks slow to refuse.
_OPENERS = "[*_`>#\"'“”‘’-]"
#: A line opened by a voice's tag, after any of `_OPENERS`.
VOICE_LINE = re.compile(r"^[\s" + _OPENERS[1:] + "*" + VOICE_TAG, re.IGNORECASE)
#: A voice's tag inside a line, where a sentence has just ended ("... P3. Host: ...");
#: elsewhere the word is a player's ("I agree with the host: P5 is quiet").
INLINE_VOICE = re.compile(r"(?<=[.!?…\"'”’)*])\s+" + _OPENERS + "*" + VOICE_TAG, re.IGNORECASE)
#: Inside a model's line: where it starts another transcript line ("... D1: ...", "... P4:
#: ", "... **Player 4:** "). Anywhere in the line, not only after a sentence: a model
#: that writes "P4: " goes on as P4.
INLINE_CUT = re.compile(
    r"\s(?:\[?[DN]\d{1,2}\]?(?=[:\s]|$)|\[P\d{1,2}\]"
    r"|[*_`]*(?P<who>P\s?\d{1,2}|(?i:player)\s*\d{1,2})\s*(?:\([^)]{0,30}\))?\s*[*_`]*\s*:[*_`]*\s)"
)

#: A seat's tag as a person may write it: "P4:", "p 4:", "Player 4 (day):", "**P4:**",
#: "[P4]"; the seat is group ``who`` or ``boxed``.
_SEAT_TAG = (
    r"(?:\[\s*(?P<boxed>P\s?\d{1,2}|player\s*\d{1,2})\s*\]"
    r"|(?P<who>P\s?\d{1,2}|player\s*\d{1,2})\s*(?:\([^)]{0,30}\))?\s*[*_`]*\s*[:：])"
)
#: What may stand before a tag that opens a person's line or sentence: markdown,
#: bullets, quote marks, and a transcript's day tag ("[D2] Host: ..."). One class, as
#: above.
_OPENING = r"[*_`>#\s\"'“”‘’-]*(?:\[[DN]\d{1,2}\][*_`>#\s\"'“”‘’-]*)?"
_PERSON_TAG = re.compile(
    _OPENING + r"(?P<tag>" + VOICE_TAG + r"|" + _SEAT_TAG + r")", re.IGNORECASE
)
#: Where a sentence of a person's line ends (the same ends as :data:`INLINE_VOICE`'s).
#: The line is split there and each sentence's opening read, rather than searched for
#: a tag after every end: a search would read the rest of a long run of quote marks
#: and spaces once for each of them.
_SENTENCE_END = re.compile(r"(?<=[.!?…\"'”’)*])\s+")


def _seat_named(who: str | None) -> str | None:
    """``"p 4"``, ``"Player4"`` → ``"P4"``; None for anything else."""
    name = re.sub(r"\s+", "", who or "").upper()
    if name.startswith("PLAYER"):
        name = "P" + name[len("PLAYER") :]
    return name if name.startswith("P") and name[1:].isdigit() else None


def speaker(match: re.Match[str]) -> str | None:
    """The seat a match's ``who`` group names, as :func:`seat_label` writes it (``P4``);
    None when the group is empty or names no seat (``Assistant``)."""
    return _seat_named(match.group("who"))


@dataclass(frozen=True, slots=True)
class ForeignTag:
    """A tag giving a line's words to another speaker (:func:`foreign_tag`): ``tag`` as
    written without its markdown (``Host:``, ``[System]``, ``Player 4 (day):``), and
    ``seat`` the seat it names (``P4``), None for a voice of the game."""

    tag: str
    seat: str | None


def foreign_tag(line: str, me: str) -> ForeignTag | None:
    """The first tag in `line` that gives its words to a voice of the game or to a seat
    other than `me` (a :func:`seat_label`); None when the words are the speaker's own.

    `line` is one line as a reader sees it (cleaned of invisible characters: a hidden
    character before ``Host:`` must not hide the tag from this check while the page
    shows it). The speaker's own tag (``P3:`` from P3) is no other speaker's. A tag
    counts where the module docstring says; the host named in a sentence does not."""
    for sentence in _SENTENCE_END.split(line):
        match = _PERSON_TAG.match(sentence)
        if match is None:
            continue
        seat = _seat_named(match.group("who") or match.group("boxed"))
        if seat != me:
            return ForeignTag(match.group("tag").strip(" *_`"), seat)
    return None
