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
* A *name's tag* is a name a reader knows a speaker by beside the seat labels, and a
  colon: a seat's display name on the web page (``Ada:``, ``**Ada (P2):**``; the page
  lists "P2 Ada"), or a forum game's pseudonym (``Owl:``, as the newspaper prints its
  ads, in the prompts and on the page alike). People choose them, so
  :class:`SpeakerNames` matches them literally (escaped, any case), one pattern for a
  table's names; :func:`foreign_tag` reads them where it reads the other tags. A name
  is the speaker's own where it is its display name or a pseudonym it owns. Display
  names are checked in a person's words only: the LLM players' prompts name every
  seat by its label (``P<n>``), so no model knows a display name to write; the forum's
  pseudonyms, which the prompts print, in both.
* Tags are read as they look: in a line's
  :func:`~mafia_arena.agents.look_alikes.tag_form` (``Ηost:`` with a Greek Eta,
  fullwidth ``Ｐ４：``, ``Ho<zero width space>st:``), and quoted or cut where they were
  written.
* Two readers use them. An LLM player's completion is *cleaned*
  (:func:`~mafia_arena.agents.llm_prompts.cleaned_speech`): lines and rests given to
  another speaker are cut, with :data:`VOICE_LINE`, :data:`INLINE_VOICE` and
  :data:`INLINE_CUT`, which also end a speech where a model starts writing the record
  on (``... D1: ...``), and with :func:`foreign_tags` for the pseudonyms. A person's
  words are *refused* instead (:func:`~mafia_arena.agents.human.foreign_words`: a
  speech, a forum form's words, a table chat line), with :func:`foreign_tag`: a person
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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from mafia_arena.agents.look_alikes import tag_form

__all__ = [
    "INLINE_CUT",
    "INLINE_VOICE",
    "NO_NAMES",
    "VOICES",
    "VOICE_LINE",
    "VOICE_TAG",
    "ForeignTag",
    "Named",
    "SpeakerNames",
    "foreign_tag",
    "foreign_tags",
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

#: What closes a seat's or a name's tag: an aside in brackets ("P4 (day):", "Ada (P2):"),
#: markdown closed before the colon ("**P4:**"), and the colon.
_TAG_END = r"\s*(?:\([^)]{0,30}\))?\s*[*_`]*\s*[:：]"
#: A seat's tag as a person may write it: "P4:", "p 4:", "Player 4 (day):", "**P4:**",
#: "[P4]"; the seat is group ``who`` or ``boxed``.
_SEAT_TAG = (
    r"(?:\[\s*(?P<boxed>P\s?\d{1,2}|player\s*\d{1,2})\s*\]"
    r"|(?P<who>P\s?\d{1,2}|player\s*\d{1,2})" + _TAG_END + ")"
)
#: What may stand before a tag that opens a person's line or sentence: markdown,
#: bullets, quote marks, and a transcript's day tag ("[D2] Host: ..."). One class, as
#: above.
_OPENING = r"[*_`>#\s\"'“”‘’-]*(?:\[[DN]\d{1,2}\][*_`>#\s\"'“”‘’-]*)?"
_OPENING_RUN = re.compile(_OPENING)
#: The characters of `_OPENING`'s runs at the start of a name: a name's tag is read
#: after the opening, which takes them (see :class:`SpeakerNames`).
_NAME_LEAD = re.compile(r"^[*_`>#\s\"'“”‘’-]+")
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
    written without its markdown (``Host:``, ``[System]``, ``Player 4 (day):``,
    ``Ada:``), ``seat`` the seat it names (``P4``; ``P2, P3`` for a display name several
    seats go by), None for a voice of the game or a pseudonym, and ``name`` the display
    name or pseudonym it names, as the table writes it (``Ada``), None for a voice or a
    seat's label."""

    tag: str
    seat: str | None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Named:
    """A name the table shows a speaker under beside the seat labels, as it writes it:
    a seat's display name (``seat`` its label, ``P2``; the labels of every seat that
    goes by it, ``P2, P3``, where several do) or a forum pseudonym (``seat`` None: who
    writes under it is not the reader's to know; the speaker's own label for one the
    speaker owns)."""

    name: str
    seat: str | None = None


@lru_cache(maxsize=64)
def _names_tag(keys: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern matching a tag of any of `keys` (one group each, in order) at a
    position: compiled once for a table's names, not per line or per character."""
    names = "|".join("(" + re.escape(key) + ")" for key in keys)
    return re.compile("(?:" + names + ")" + _TAG_END, re.IGNORECASE)


class SpeakerNames:
    """The names a seat's readers know the table's speakers by (see :class:`Named`),
    as tags: ``Ada:``, ``**Ada (P2):**``, a name opening the words or a sentence as
    a seat's label would (:func:`foreign_tag`).

    A name is matched literally (escaped: a name's ``.`` or ``(`` is that character)
    and in any case, whole up to the tag's colon, so "Adam:" is no tag of Ada's; both
    the name and the line are read as they look
    (:func:`~mafia_arena.agents.look_alikes.tag_form`), so a Cyrillic ``Аda:`` is
    Ada's tag, and so is ``Ａｄａ:``. A name
    that holds another (``Ada``, ``Ada Lovelace``) is tried first. The characters an
    opening may hold (quote marks, hyphens, markdown) are left off a name's start: the
    opening takes them before the name is read, so ``'Ada`` is read as ``Ada``; a name
    of such characters alone is no tag. Where two names read alike, the first given
    counts (a seat's display name before a pseudonym).

    Why one pattern per table: a speech is checked at every sentence, and a table of
    forty seats with long names must still answer at once."""

    __slots__ = ("_named", "_pattern")

    def __init__(self, names: Iterable[Named] = ()) -> None:
        by_key: dict[str, tuple[str, Named]] = {}
        for named in names:
            key = _NAME_LEAD.sub("", tag_form(named.name)[0]).strip()
            if key and key.casefold() not in by_key:
                by_key[key.casefold()] = (key, named)
        ordered = sorted(by_key.values(), key=lambda entry: -len(entry[0]))
        self._named = tuple(named for _, named in ordered)
        self._pattern = _names_tag(tuple(key for key, _ in ordered)) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def tag(self, line: str, at: int) -> tuple[ForeignTag, int] | None:
        """The name's tag that starts at `at` in `line` (a line's
        :func:`~mafia_arena.agents.look_alikes.tag_form`, its opening read already),
        with the name's seat, and where it ends; None where none does."""
        if self._pattern is None:
            return None
        match = self._pattern.match(line, at)
        if match is None or match.lastindex is None:
            return None
        named = self._named[match.lastindex - 1]
        return ForeignTag(match.group().strip(" *_`"), named.seat, named.name), match.end()


def name_key(name: str) -> str:
    """What `SpeakerNames` matches a name by: without the characters an opening may
    hold at its start, trimmed, in any case. Names of one key read alike, and where
    several are given, the first counts."""
    return _NAME_LEAD.sub("", name).strip().casefold()


NO_NAMES = SpeakerNames()
"""No names beside the seat labels: a table where every seat goes by ``P<n>``."""


def _sentences(line: str) -> Iterator[tuple[int, int]]:
    """Where each sentence of `line` starts and ends (see `_SENTENCE_END`)."""
    start = 0
    for end in _SENTENCE_END.finditer(line):
        yield start, end.start()
        start = end.end()
    yield start, len(line)


def foreign_tags(
    line: str, me: str, names: SpeakerNames = NO_NAMES, *, labels: bool = True
) -> Iterator[tuple[int, int, ForeignTag]]:
    """Each tag in `line` that gives its words to a voice of the game, to a seat other
    than `me` (a :func:`seat_label`; ``""`` for a reader who has no seat, for whom every
    seat is another), or to a name of `names` that is not `me`'s (another seat's
    display name, a pseudonym `me` does not own), in order: where in `line` the
    sentence it opens starts, where the tag ends, and the tag (``tag`` as written in
    `line`). With `labels` False only the names' tags are read (an LLM player's
    cleaning reads the others with its own patterns).

    The tags are read in the line's :func:`~mafia_arena.agents.look_alikes.tag_form`:
    ``Ηost:`` with a Greek Eta, fullwidth ``Ｐ４：`` and ``A<zero width joiner>da:``
    read as the ``Host:``, ``P4:`` and ``Ada:`` a page shows. A tag counts where the module
    docstring says; the host named in a sentence does not. A name is read from the
    sentence's opening on, and may run past what looks like a sentence's end ("J. R.
    Smith:")."""
    folded, origin = tag_form(line)
    for start, end in _sentences(folded):
        found: ForeignTag | None = None
        match = _PERSON_TAG.match(folded, start, end) if labels else None
        if match is not None:
            seat = _seat_named(match.group("who") or match.group("boxed"))
            if seat == me:
                continue
            tag_start, tag_end = match.span("tag")
            found = ForeignTag("", seat)
        elif names:
            opening = _OPENING_RUN.match(folded, start, end)
            tag_start = opening.end() if opening is not None else start
            named = names.tag(folded, tag_start)
            if named is not None and named[0].seat != me:
                found, tag_end = named
        if found is not None:
            written = line[origin[tag_start] : origin[tag_end - 1] + 1].strip(" *_`")
            yield origin[start], origin[tag_end - 1] + 1, replace(found, tag=written)


def foreign_tag(line: str, me: str, names: SpeakerNames = NO_NAMES) -> ForeignTag | None:
    """The first of :func:`foreign_tags` in `line`; None when the words are the
    speaker's own.

    `line` is one line as a reader sees it (cleaned of invisible characters: a hidden
    character before ``Host:`` must not hide the tag from this check while the page
    shows it). The speaker's own tag (``P3:`` from P3, its own display name) is no
    other speaker's."""
    return next((found for _, _, found in foreign_tags(line, me, names)), None)
