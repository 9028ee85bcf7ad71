"""`HumanAgent`: a seat played by a person through some interface (web page, terminal).

The agent is a mailbox. The interface turns what the person did into an `Action` (a
choice index into the request's `labels`, or free text) and `offer`s it; `act(view)`
waits for the next action of the current turn, checks it against the view's request
and returns the decision. Why a mailbox: the person's input arrives on another task (a
websocket handler, a stdin reader) at any time, while the engine asks at its own pace;
the queue decouples the two and the `turn` number drops clicks meant for an earlier
request (a vote button pressed just as the timer ran out must not answer the next one).

Timers, disconnections and replacements are the driver's business (`web/driver.py`):
`act` waits forever and is cancellation-safe.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from mafia_arena.agents.base import AgentBase
from mafia_arena.agents.look_alikes import visible
from mafia_arena.agents.speaker_tags import (
    NO_NAMES,
    ForeignTag,
    Named,
    SpeakerNames,
    foreign_tag,
    name_key,
    seat_label,
)
from mafia_arena.engine.choices import Choice, Decision, Request, Speech
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.pseudonyms import held_pseudonyms, pseudonyms_in
from mafia_arena.views.view import View

HUMAN_KIND = "human"
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Unicode categories a page shows as nothing (or as a break): controls, format
characters (zero-width, bidi overrides, the tag characters U+E0000-E007F, the BOM, the
soft hyphen), private use, surrogates, unassigned code points, line and paragraph
separators."""
_EMOJI_SELECTORS = frozenset("\ufe0e\ufe0f")
"""The two variation selectors that only choose text or emoji presentation."""


@lru_cache(maxsize=4096)
def _hidden(char: str) -> bool:
    """Whether `char` is invisible or breaks the line: see `clean_text`."""
    if unicodedata.category(char) in _HIDDEN_CATEGORIES:
        return True
    code = ord(char)
    variation = 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF
    return variation and char not in _EMOJI_SELECTORS


FORUM_KIND = "forum"  # the request kind of a forum's communication window
WRITTEN_VERBS = ("pm", "ad", "give", "testament")
"""The forum forms a person may write beyond the listed options (dictator.md 7.3-7.5):
a private message to several players, an ad under a pseudonym they own, the transfer
of a pseudonym, a testament to chosen players."""


@dataclass(frozen=True)
class Form:
    """A forum form the request does not list, as a person filled it in: its verb (one
    of `WRITTEN_VERBS`), the seats it names (0-based: a message's or a testament's
    recipients, a pseudonym's new owner) and the pseudonym it names (an ad, a transfer).
    `written_act` turns it into the engine's `Choice`."""

    verb: str
    seats: tuple[int, ...] = ()
    pseudonym: str | None = None


@dataclass(frozen=True)
class Action:
    """What a person did: `choice` (index into labels) or `text`, or both in a forum
    turn (the text is the content of the chosen form); or, in a forum turn, a written
    `form` with its `text` (`written_act`)."""

    turn: int
    choice: int | None = None
    text: str | None = None
    form: Form | None = None


def turn_mismatch(sent: int, current: int) -> str | None:
    """Why an action for turn `sent` is refused while the seat's turn is `current`
    (None: it is for the current turn). An earlier turn is a stale page or a double
    click; a later one is a client that made its turn number up."""
    if sent == current:
        return None
    if sent < current:
        return "that was for an earlier turn"
    return "that is for a turn you have not been asked yet"


def clean_text(text: str) -> str:
    """Speech as stored: characters a reader does not see become spaces, trimmed.

    Which: controls and line breaks, format characters (zero-width ones, bidi overrides,
    Unicode's tag characters, the BOM, the soft hyphen), private-use, surrogate and
    unassigned code points, and variation selectors other than the emoji ones (U+FE0E,
    U+FE0F).

    Why: the transcript is one line per event for LLM prompts and terminals; a newline
    or a right-to-left override in a human's speech could fake a system line. And an
    invisible character is a channel the other people at the table cannot read but a
    language model does: tag characters spell ASCII invisibly, runs of variation
    selectors encode bytes, so a person could whisper to the LLM players (or instruct
    them) in plain sight.
    """
    return " ".join("".join(" " if _hidden(c) else c for c in text).split())


def decision_for(request: Request, action: Action, names: SpeakerNames = NO_NAMES) -> Decision:
    """The decision an action means for `request`; `IllegalDecision` if it means none.

    Contract: a choice must index `request.choices`; text is accepted only where the
    request takes free text, is cleaned with `clean_text`, must be non-empty, at most
    `request.max_chars` long, and speak in the person's own name (`own_words`: no
    ``Host:``, another seat's ``P4:`` or another name of `names`' ``Ada:`` opening it
    or a sentence of it; `names` are the table's, `speaker_names`). The engine
    validates again on submit.
    """
    if action.form is not None:
        if action.choice is not None:
            raise IllegalDecision(request.seat, "send either a choice or a form")
        act = written_act(request, action.form)
        return _filled(request, act, action.text or "", names)
    if action.choice is None and action.text is None:
        raise IllegalDecision(request.seat, "send either a choice or a text")
    if action.choice is not None and action.text is not None:
        return _written_form(request, action.choice, action.text, names)
    if action.choice is not None:
        if not 0 <= action.choice < len(request.choices):
            raise IllegalDecision(request.seat, "that choice is not one of the options")
        return request.choices[action.choice]
    if not request.free_text:
        raise IllegalDecision(request.seat, "this decision needs one of the listed choices")
    text = clean_text(action.text or "")
    if not text:
        raise IllegalDecision(request.seat, "say something, or pick one of the options")
    if len(text) > request.max_chars:
        raise IllegalDecision(request.seat, f"at most {request.max_chars} characters")
    own_words(request.seat, action.text or "", names)
    return Speech(text)


def speaker_names(view: View, table: Sequence[str] = ()) -> SpeakerNames:
    """The names the seat of `view` reads its table's speakers by, beside the labels:
    `table`, each seat's display name by seat (the web page's: `HumanAgent.table`), and
    the forum pseudonyms its own view holds (`views.pseudonyms.pseudonyms_in`: the
    newspaper's, its own ads', those handed to or by it), those it owns now (its
    forum request's `owned_pseudonyms`) as its own; with no forum request open (a seat
    out of the game, writing in the dead chat), those its own events show it held
    last (`views.pseudonyms.held_pseudonyms`), so its own pseudonym is not refused as
    another speaker's.

    A display name that several seats go by (a web table's bots are each named after
    their agent: two ``heuristic bot`` seats) names all of them (``P2, P3``), so a
    refusal says every seat the words would read as, not the first that has the name
    (the speaker's own too: under such a name, the words read as another's as well).

    Why only these: a refusal tells the person that a name is known, so a name the
    seat cannot see (another seat's pseudonym never published) must not be in it. Built
    once per request, not per action or character (`speaker_tags.SpeakerNames`)."""
    request = view.request
    if request is not None and request.kind == FORUM_KIND:
        owned = owned_pseudonyms(request)
    else:
        owned = held_pseudonyms(view.seat, (event.fact for event in view.knowledge.events))
    return _names(table, view.knowledge, owned, seat_label(view.seat))


def watcher_names(knowledge: Knowledge, table: Sequence[str] = ()) -> SpeakerNames:
    """`speaker_names` for a reader with no seat (a spectator): `table`, and the
    pseudonyms of `knowledge`, the public events it reads; none is its own."""
    return _names(table, knowledge, (), "")


def _names(
    table: Sequence[str], knowledge: Knowledge, owned: Sequence[str], me: str
) -> SpeakerNames:
    """The display names of `table`, the pseudonyms `owned` as `me`'s, and the others
    that `knowledge` shows (`speaker_names`)."""
    seats: dict[str, list[str]] = {}
    for seat, shown in enumerate(table):
        seats.setdefault(name_key(shown), []).append(seat_label(seat))
    named = [Named(shown, ", ".join(seats[name_key(shown)])) for shown in table]
    named += [Named(pseudonym, me) for pseudonym in owned]
    seen = pseudonyms_in(event.fact for event in knowledge.events)
    named += [Named(pseudonym) for pseudonym in sorted(seen)]
    return SpeakerNames(named) if named else NO_NAMES


def own_words(seat: int, text: str, names: SpeakerNames = NO_NAMES) -> None:
    """Refuse (`IllegalDecision`) words of `seat` that a reader would take for another
    speaker's (`foreign_words` says why)."""
    refused = foreign_words(seat_label(seat), text, names)
    if refused is not None:
        raise IllegalDecision(seat, refused)


def foreign_words(me: str, text: str, names: SpeakerNames = NO_NAMES) -> str | None:
    """Why words of `me` (a seat's label; ``""`` for a writer with no seat, a
    spectator) would be taken for another speaker's, or None if they would not: a voice
    of the game's tag (``Host:``, ``Moderator:``, ``[System]``), another seat's
    (``P4:``, ``**Player 4:**``) or a name of `names` other than the writer's own
    (another seat's display name ``Ada:``, a pseudonym it does not own) opening a line
    or following a sentence's end (`speaker_tags.foreign_tag`). The reason quotes the
    tag as written and says whom it names, from `names`: the names the writer reads the
    table by, so it tells them none they have not seen.

    Why refused, not cut as an LLM player's speech is (`llm_prompts.cleaned_speech`): a
    person should know what the others will read; the reason says what to change and
    nothing is sent, so the page keeps the draft and the terminal asks again. The
    seat's own tag (``P3:`` from P3, its own display name, a pseudonym it owns) is kept
    as written: it gives the words to no one else. Each line of `text` is checked as
    typed and all of it as shown (`clean_text` joins the lines), each both with the
    invisible characters shown as the spaces `clean_text` makes of them and left out
    (as a reader runs ``Ho<zero width space>st:`` together), and tags are read as they
    look (`agents.look_alikes.tag_form`: a Greek ``Ηost:``, a fullwidth ``Ｐ４:``); so
    neither a line break, an invisible character nor a look-alike letter hides a tag.

    Why only where a line or a sentence starts, a sentence's end counting: the lines
    of a speech are shown joined (`clean_text`), so "Morning. P4: why?" reads on the
    page as "Morning." and "P4: why?" typed on two lines does, and must get the same
    answer; a tag inside a sentence ("I asked P4: why?") reads as prose.
    """
    for line in (text, *text.splitlines()):
        for shown in dict.fromkeys((clean_text(line), clean_text(visible(line)))):
            found = foreign_tag(shown, me, names)
            if found is not None:
                return (
                    f'"{found.tag}" would read as {_speaking(found)}, not you, so this was not'
                    " sent. Please rephrase it in your own words (to speak to someone, write"
                    ' "P4, ..." or "Host, ...").'
                )
    return None


def _speaking(found: ForeignTag) -> str:
    """Who a refused tag gives the words to: ``Ada (P2) speaking``, ``P4 speaking``,
    ``the pseudonym Sparrow speaking``, ``the game speaking``."""
    if found.name is not None and found.seat is not None:
        return f"{found.name} ({found.seat}) speaking"
    if found.seat is not None:
        return f"{found.seat} speaking"
    if found.name is not None:
        return f"the pseudonym {found.name} speaking"
    return "the game speaking"


def _written_form(request: Request, choice: int, text: str, names: SpeakerNames) -> Decision:
    """A forum form with its content: the option `choice` filled with `text`."""
    if not request.free_text or request.kind != FORUM_KIND:
        raise IllegalDecision(request.seat, "send either a choice or a text")
    if not 0 <= choice < len(request.choices):
        raise IllegalDecision(request.seat, "that choice is not one of the options")
    return _filled(request, request.choices[choice], text, names)


def _filled(request: Request, act: Choice, text: str, names: SpeakerNames) -> Speech:
    """`act` with `text` (cleaned, at most `request.max_chars`) as its content."""
    words = clean_text(text)
    if len(words) > request.max_chars:
        raise IllegalDecision(request.seat, f"at most {request.max_chars} characters")
    own_words(request.seat, text, names)
    return Speech(words, act)


def owned_pseudonyms(request: Request) -> list[str]:
    """The pseudonyms the seat owns now, as the forum request lists them (``info``)."""
    names = request.info.get("pseudonyms") if request.info else None
    return [str(n) for n in names] if isinstance(names, (list, tuple)) else []


def written_act(request: Request, form: Form) -> Choice:
    """The engine's act for `form` on the forum `request`; `IllegalDecision` if the
    form is malformed.

    Contract: only on a forum turn; a message or testament names at least one seat, a
    transfer exactly one; an ad or a transfer names a pseudonym of `owned_pseudonyms`
    (matched regardless of case, written as the game spells it). The act is built here
    from checked parts — seats as sorted distinct numbers joined by dots, the value
    `channels.seats_of` reads — never taken from the sender, so a page cannot slip
    another value in. Whether the engine accepts it now (recipients alive, one ad per
    pseudonym and edition, one testament change per round) is the engine's check on
    submit, the authority; its reason is shown as any refusal is.
    """
    seat = request.seat
    if not request.free_text or request.kind != FORUM_KIND:
        raise IllegalDecision(seat, "written forms are for the forum")
    if form.verb not in WRITTEN_VERBS:
        raise IllegalDecision(seat, f"unknown form {form.verb!r}")
    seats = sorted(set(form.seats))
    if any(s < 0 for s in seats):
        raise IllegalDecision(seat, "seats are numbered from 1")
    if form.verb in ("ad", "give"):
        name = _owned(request, form.pseudonym)
        if form.verb == "ad":
            return Choice("ad", None, name)
        if len(seats) != 1:
            raise IllegalDecision(seat, "a pseudonym goes to one player")
        return Choice("give", seats[0], name)
    if not seats:
        raise IllegalDecision(seat, f"name the {form.verb}'s recipients")
    if form.verb == "pm" and len(seats) == 1:
        return Choice("pm", seats[0])
    return Choice(form.verb, None, ".".join(str(s) for s in seats))


def _owned(request: Request, pseudonym: str | None) -> str:
    """The seat's own pseudonym `pseudonym` names, as the game spells it."""
    owned = owned_pseudonyms(request)
    key = (pseudonym or "").strip().casefold()
    for name in owned:
        if name.casefold() == key:
            return name
    yours = ", ".join(owned) if owned else "none yet"
    raise IllegalDecision(request.seat, f"not a pseudonym of yours (yours: {yours})")


class HumanAgent(AgentBase):
    """A person's seat. `kind` is ``human`` so results and leaderboards can tell.

    `turn` is set by the driver before each `act`; actions of other turns are refused
    through `on_reject(reason)` (the interface shows the reason to that person only).
    """

    kind = HUMAN_KIND

    def __init__(self, name: str = "human", *, inbox_size: int = 32) -> None:
        super().__init__()
        self.name = name
        self.turn = 0
        self.on_reject: Callable[[str], None] | None = None
        self.table: tuple[str, ...] = ()
        """The name each seat of the table goes by, by seat, as every page of it shows
        them (the web session's seat names, public); empty where seats go by their
        labels alone (the terminal). A speech may not open with another's
        (`speaker_names`)."""
        self._inbox: asyncio.Queue[Action] = asyncio.Queue(maxsize=inbox_size)

    def offer(self, action: Action) -> bool:
        """Queue an action; False (dropped) when the person floods the mailbox."""
        try:
            self._inbox.put_nowait(action)
        except asyncio.QueueFull:
            return False
        return True

    def discard(self) -> int:
        """Drop every queued action (the turn they were sent for is over); how many.

        Why: a second click on a turn that the first one answered stayed queued, and
        was refused only when the seat's next turn opened ("that was for an earlier
        turn"), shown under the new question as if a click on it had failed."""
        dropped = 0
        while not self._inbox.empty():
            self._inbox.get_nowait()
            dropped += 1
        return dropped

    def reject(self, reason: str) -> None:
        if self.on_reject is not None:
            self.on_reject(reason)

    async def act(self, view: View) -> Decision:
        """Wait for an action of the current turn that is legal for the view's request."""
        request = view.request
        if request is None:
            raise ValueError("act called without a request")
        names = speaker_names(view, self.table)
        while True:
            action = await self._inbox.get()
            wrong_turn = turn_mismatch(action.turn, self.turn)
            if wrong_turn:
                self.reject(wrong_turn)
                continue
            try:
                decision = decision_for(request, action, names)
            except IllegalDecision as exc:
                self.reject(exc.reason)
                continue
            self.stats.decisions += 1
            return decision
