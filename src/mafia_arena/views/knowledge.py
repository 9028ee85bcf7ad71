"""One seat's knowledge: a single incremental fold of the seat's own event stream.

`KnowledgeFold` is the one place a seat's events are interpreted. It applies each new
`SeatEvent` once (callers feed it only the seat's stream, so it can hold nothing the
seat may not know) and keeps every fact as an immutable value that is *replaced* when
it changes. `snapshot()` therefore hands out a frozen `Knowledge` in O(fields) — no
copying of the game so far — and a snapshot never changes when later events arrive.

Readers of the fold, none of which rescans the seat's whole stream: the text view
(`transcript`, rendered once per event and shared), the numeric encoder (re-encodes a
block only when its fact object changed, and walks the append-only tuples from a
cursor), the heuristic player (dated records: `said`, `ballots`, `nominations`,
`deaths`, `team_picks`, `actions`, and for Palermo and the forum `outcomes`,
`ballots_cast`, `channel_said`, `messages`, `notices`, `offices`, `statuses`, … read
from a cursor per tuple), the LLM prompt builder (`Knowledge.tagged_lines`: the
transcript's lines with their tiers) and the web page (`vote_record`, `ended`,
`outcomes`, `messages`, `newspaper`, `testaments`).

Generic facts live here; what a strategy makes of them (its reading of message text,
its weights) stays with the strategy. A `Noted` record carries its entry's seat-local
index, so a reader can merge records of several kinds back into stream order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from functools import lru_cache
from operator import attrgetter
from types import MappingProxyType
from typing import Any, Generic, TypeVar, overload

from mafia_arena.engine.catalogue import (
    Allies,
    Ballot,
    Blocked,
    CardDealt,
    Death,
    DeliveredTestament,
    Fact,
    GameEnded,
    GameMasterNotice,
    GroupPicks,
    LastDeadDecision,
    Newspaper,
    NightAction,
    NightResult,
    NoDeath,
    NoExecution,
    Nomination,
    NominationTally,
    Nominees,
    Office,
    OracleAnswer,
    PhaseStart,
    PrivateMessage,
    Reveal,
    RoleChange,
    RoleDealt,
    Runoff,
    Setup,
    Silenced,
    SpeechMade,
    StateChanged,
    StatusShown,
    Votes,
)
from mafia_arena.engine.events import SeatEvent
from mafia_arena.engine.frozen import fast_init
from mafia_arena.speech.claims import Claim, extract_claims
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.transcript import Renders, Transcript, TranscriptLine

EMPTY: Mapping[Any, Any] = MappingProxyType({})
F = TypeVar("F", bound=Fact, covariant=True)  # a record of a result is a record of a fact
_F = TypeVar("_F", bound=Fact)


@dataclass(frozen=True, slots=True)
class Noted(Generic[F]):
    """One dated record: where the entry stands in the seat's stream (`at`, the
    seat-local index, so records of different kinds can be put back in stream order),
    the entry itself (day, phase, channel) and its fact, typed."""

    at: int
    entry: SeatEvent
    fact: F

    @property
    def day(self) -> int:
        return self.entry.day


@dataclass(frozen=True, slots=True)
class Said:
    """One claim read from one public speech: when, who, in which speaking turn."""

    day: int
    seat: int
    kind: str
    claim: Claim


class Entries(Sequence[SeatEvent]):
    """The first `length` entries of a seat's stream (an append-only list, shared)."""

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[SeatEvent], length: int) -> None:
        self._items = items
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> SeatEvent: ...
    @overload
    def __getitem__(self, index: slice) -> list[SeatEvent]: ...
    def __getitem__(self, index: int | slice) -> SeatEvent | list[SeatEvent]:
        if isinstance(index, slice):
            if index.step is None or index.step == 1:  # a plain range: no copy of the rest
                span = range(self._length)[index]
                return self._items[span.start : span.stop]
            return self._items[: self._length][index]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._items[index]

    def __iter__(self) -> Iterator[SeatEvent]:
        items = self._items
        for i in range(self._length):
            yield items[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entries):
            return NotImplemented
        return list(self) == list(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Entries({list(self)!r})"


@dataclass(frozen=True, slots=True)
class Knowledge:
    """An immutable snapshot of what one seat knows after its first `len(events)` events.

    Maps are read-only, sequences are tuples; `events` is the seat's own numbered
    stream so far. `last_event` is the seat-local index of the latest entry (-1 before
    any).
    """

    seat: int
    players: int
    role: str | None
    faction: str | None
    roles_in_play: tuple[str, ...]
    composition: Mapping[str, int]
    allies: Mapping[int, str]
    alive: tuple[bool, ...]
    revealed: Mapping[int, str]
    results: tuple[NightResult, ...]
    known_results: Mapping[int, str]
    checks: Mapping[int, str]
    said: tuple[Said, ...]
    team_chat: tuple[tuple[int, int, str], ...]
    ballots: tuple[tuple[int, Votes], ...]
    nominations: tuple[tuple[int, int, int, int], ...]
    nominations_today: tuple[tuple[int, int], ...]
    nominees: Mapping[int, tuple[int, ...]]
    deaths: tuple[tuple[int, int, str], ...]
    quiet_nights: frozenset[int]
    team_picks: tuple[tuple[int, GroupPicks], ...]
    latest_picks: Mapping[int, str]
    actions: tuple[tuple[int, NightAction], ...]
    day: int
    phase: str
    silenced: frozenset[int]
    winner: str | None
    over: bool
    states: tuple[str, ...]
    """Palermo: each seat's player state (`engine.player_states`) as announced; empty
    in variants without player states (there every seat is alive or dead)."""
    card: str | None
    """Palermo: the intrigue card this seat holds now (None: none, or used)."""
    vote_record: tuple[Noted[Fact], ...]
    """The public voting record (ballots, nominations, tallies, runoffs, no-execution,
    the last dead's decision; not at night) of the latest day that had one."""
    ballots_cast: Mapping[int, int]
    """Palermo: voter → target of the `Ballot`s cast on day `ballots_cast_day`, as
    cast (a later ballot replaces one); a voter who leaves Active loses his."""
    ballots_cast_day: int
    ended: GameEnded | None
    """The game's end as announced (every card, the winners), once it is over."""
    outcomes: tuple[Noted[NightResult | Blocked | OracleAnswer], ...]
    """The seat's own results, in order: night results, blocks, Pythia answers."""
    channel_said: tuple[tuple[int, int, str], ...]
    """(day, speaker, text) of each speech in a channel the seat is in."""
    messages: tuple[Noted[PrivateMessage], ...]
    """Forum: the private messages the seat sent or received."""
    newspaper: Newspaper | None
    """Forum: the latest newspaper edition."""
    testaments: tuple[Noted[DeliveredTestament], ...]
    """Forum: the testaments delivered to the seat (public ones and its own)."""
    notices: Mapping[str, tuple[Noted[GameMasterNotice], ...]]
    """Forum: the game master's private notices to the seat, by topic."""
    offices: tuple[Noted[Office], ...]
    """Forum: each change of the dictatorship (the holder is the latest's `dictator`)."""
    statuses: tuple[Noted[StatusShown], ...]
    """Forum: the status announced for each player who left the game."""
    events: Entries
    transcript: Transcript

    @property
    def claims(self) -> dict[int, tuple[Claim, ...]]:
        """The claims read from each seat's public speech, in order (from `said`)."""
        out: dict[int, list[Claim]] = {}
        for said in self.said:
            out.setdefault(said.seat, []).append(said.claim)
        return {seat: tuple(claims) for seat, claims in out.items()}

    @property
    def last_event(self) -> int:
        return len(self.events) - 1

    def living(self) -> list[int]:
        return [s for s, a in enumerate(self.alive) if a]

    def lines(self) -> list[str]:
        """The seat's transcript lines so far (rendered once, shared with the fold)."""
        return self.transcript.lines(len(self.events))

    def tagged_lines(self) -> list[TranscriptLine]:
        """`lines()` with each line's tier (see `TranscriptLine`)."""
        return self.transcript.tagged(len(self.events))

    def text(self) -> str:
        """The seat's transcript so far as one string (see `views.text`)."""
        return self.transcript.text(len(self.events))


class KnowledgeFold:
    """The one incremental fold of a seat's stream (see the module docstring)."""

    def __init__(
        self,
        seat: int,
        roles: Sequence[str] = (),
        renders: Renders | None = None,
        names: DisplayNames = PLAIN,
        role_names: Sequence[tuple[str, str]] = (),
    ) -> None:
        """`renders`: a line cache shared by the folds of one game; `names`: the game's
        readable names the transcript writes ids with (both: see `Transcript`);
        `role_names`: (name, role id) pairs a claim may call a role by
        (`Variant.role_names`), read as the metrics read them."""
        self.seat = seat
        self._roles = tuple(roles)  # the variant's roles: claims may name any of them
        self._vocabulary: tuple[str, ...] = self._roles
        self._role_names = tuple(role_names)
        self.entries: list[SeatEvent] = []
        self.transcript = Transcript(self.entries, seat, renders, names)
        self.players = 0
        self.role: str | None = None
        self.faction: str | None = None
        self.roles_in_play: tuple[str, ...] = ()
        self.composition: Mapping[str, int] = EMPTY
        self.allies: Mapping[int, str] = EMPTY
        self.alive: tuple[bool, ...] = ()
        self.revealed: Mapping[int, str] = EMPTY
        self.results: tuple[NightResult, ...] = ()
        self.known_results: Mapping[int, str] = EMPTY
        self.checks: Mapping[int, str] = EMPTY
        self.said: tuple[Said, ...] = ()
        self.team_chat: tuple[tuple[int, int, str], ...] = ()
        self.ballots: tuple[tuple[int, Votes], ...] = ()
        self.nominations: tuple[tuple[int, int, int, int], ...] = ()
        self.nominations_today: tuple[tuple[int, int], ...] = ()
        self.nominees: Mapping[int, tuple[int, ...]] = EMPTY
        self.deaths: tuple[tuple[int, int, str], ...] = ()
        self.quiet_nights: frozenset[int] = frozenset()
        self.team_picks: tuple[tuple[int, GroupPicks], ...] = ()
        self.latest_picks: Mapping[int, str] = EMPTY
        self.actions: tuple[tuple[int, NightAction], ...] = ()
        self.day = 0
        self.phase = "setup"
        self.silenced: frozenset[int] = frozenset()
        self.winner: str | None = None
        self.over = False
        self.states: tuple[str, ...] = ()
        self.card: str | None = None
        self.vote_record: tuple[Noted[Fact], ...] = ()
        self.ballots_cast: Mapping[int, int] = EMPTY
        self.ballots_cast_day = -1
        self.ended: GameEnded | None = None
        self.outcomes: tuple[Noted[NightResult | Blocked | OracleAnswer], ...] = ()
        self.channel_said: tuple[tuple[int, int, str], ...] = ()
        self.messages: tuple[Noted[PrivateMessage], ...] = ()
        self.newspaper: Newspaper | None = None
        self.testaments: tuple[Noted[DeliveredTestament], ...] = ()
        self.notices: Mapping[str, tuple[Noted[GameMasterNotice], ...]] = EMPTY
        self.offices: tuple[Noted[Office], ...] = ()
        self.statuses: tuple[Noted[StatusShown], ...] = ()
        self._snapshot: Knowledge | None = None

    @property
    def events(self) -> Sequence[SeatEvent]:
        """The seat's stream so far (the live list: read it, never write it). With it
        the fold offers every field a `Knowledge` snapshot has, so the numeric encoder
        reads the fold itself where no snapshot is needed (`env.session.observe`)."""
        return self.entries

    def apply(self, entry: SeatEvent) -> None:
        """Fold one entry of the seat's stream (in stream order)."""
        self.entries.append(entry)
        self._snapshot = None
        self.day, self.phase = entry.day, entry.phase
        handler = _HANDLERS.get(type(entry.fact))
        if handler is not None:
            handler(self, entry.fact, entry)

    def extend(self, entries: Sequence[SeatEvent]) -> None:
        """`apply` each entry in turn, in one loop: a seat's fold is advanced by a
        batch of new entries at every step, so the per-entry method call is saved (no
        handler reads `day` or `phase`, which are set once, from the last entry)."""
        if not entries:
            return
        own, handlers = self.entries, _HANDLERS
        self._snapshot = None
        for entry in entries:
            own.append(entry)
            fact = entry.fact
            handler = handlers.get(type(fact))
            if handler is not None:
                handler(self, fact, entry)
        last = entries[-1]
        self.day, self.phase = last.day, last.phase

    def snapshot(self) -> Knowledge:
        """The frozen facts now (cached until the next entry)."""
        snap = self._snapshot
        if snap is None:
            # a snapshot is taken for every seat after every new entry it sees: the
            # fields are read at C level and stored through the slots (`fast_init`)
            snap = self._snapshot = Knowledge(  # type: ignore[call-arg]  # the fields, in order
                *_fold_fields(self), Entries(self.entries, len(self.entries)), self.transcript
            )
        return snap


_KNOWN = [f.name for f in dataclass_fields(Knowledge)]
_fold_fields = attrgetter(*_KNOWN[: _KNOWN.index("events")])
assert _KNOWN[-2:] == ["events", "transcript"]
fast_init(Knowledge)


def _put(mapping: Mapping[Any, Any], key: Any, value: Any) -> Mapping[Any, Any]:
    return MappingProxyType({**mapping, key: value})


def _noted(k: KnowledgeFold, f: _F, e: SeatEvent) -> Noted[_F]:
    """`f` dated by its entry, the latest of the seat's stream (`apply` appended it)."""
    return Noted(len(k.entries) - 1, e, f)


def _vote_fact(k: KnowledgeFold, f: Fact, e: SeatEvent) -> None:
    """Keep the latest voting day's record: a later day's first fact starts it anew."""
    if e.phase == "night":
        return
    record = k.vote_record
    if not record or e.day > record[0].day:
        k.vote_record = (_noted(k, f, e),)
    elif e.day == record[0].day:
        k.vote_record = (*record, _noted(k, f, e))


# ---------------------------------------------------------------------- handlers
def _setup(k: KnowledgeFold, f: Setup, _: SeatEvent) -> None:
    k.players = f.players
    k.alive = (True,) * f.players
    k.composition = MappingProxyType(dict(f.composition))
    k.roles_in_play = tuple(f.composition)
    k._vocabulary = tuple(dict.fromkeys([*k.roles_in_play, *k._roles]))


def _role(k: KnowledgeFold, f: RoleDealt, _: SeatEvent) -> None:
    if f.seat == k.seat:
        k.role, k.faction = f.role, f.faction


def _role_change(k: KnowledgeFold, f: RoleChange, _: SeatEvent) -> None:
    if f.seat == k.seat:
        k.role = f.role
        k.faction = f.faction if f.faction is not None else k.faction


def _allies(k: KnowledgeFold, f: Allies, _: SeatEvent) -> None:
    k.allies = MappingProxyType({**k.allies, **f.allies})


def _death(k: KnowledgeFold, f: Death, e: SeatEvent) -> None:
    alive = list(k.alive)
    alive[f.seat] = False
    k.alive = tuple(alive)
    if f.role is not None:
        k.revealed = _put(k.revealed, f.seat, f.role)
    k.deaths = (*k.deaths, (e.day, f.seat, f.cause))


def _reveal(k: KnowledgeFold, f: Reveal, _: SeatEvent) -> None:
    k.revealed = _put(k.revealed, f.seat, f.role)


def _night_result(k: KnowledgeFold, f: NightResult, e: SeatEvent) -> None:
    k.results = (*k.results, f)
    k.outcomes = (*k.outcomes, _noted(k, f, e))
    if f.action == "check" and f.targets:
        k.checks = _put(k.checks, f.targets[0], f.result)
        if f.result in ("mafia", "innocent"):
            k.known_results = _put(k.known_results, f.targets[0], f.result)


def _speech(k: KnowledgeFold, f: SpeechMade, e: SeatEvent) -> None:
    if e.channel is not None:
        k.channel_said = (*k.channel_said, (e.day, f.seat, f.text))
    if f.kind == "night_chat":  # team talk is not a public claim
        k.team_chat = (*k.team_chat, (e.day, f.seat, f.text))
        return
    said = _said_in(e.day, f.seat, f.kind, f.text, k._vocabulary, k._role_names)
    if said:
        k.said = (*k.said, *said)


def _votes(k: KnowledgeFold, f: Votes, e: SeatEvent) -> None:
    k.ballots = (*k.ballots, (e.day, f))
    _vote_fact(k, f, e)


def _nomination(k: KnowledgeFold, f: Nomination, e: SeatEvent) -> None:
    k.nominations = (*k.nominations, (e.day, f.round, f.seat, f.target))
    k.nominations_today = (*k.nominations_today, (f.seat, f.target))
    _vote_fact(k, f, e)


def _nominees(k: KnowledgeFold, f: Nominees, e: SeatEvent) -> None:
    k.nominees = _put(k.nominees, e.day, f.seats)
    _vote_fact(k, f, e)


def _ballot(k: KnowledgeFold, f: Ballot, e: SeatEvent) -> None:
    if e.day != k.ballots_cast_day:
        k.ballots_cast, k.ballots_cast_day = MappingProxyType({f.seat: f.target}), e.day
    else:
        k.ballots_cast = _put(k.ballots_cast, f.seat, f.target)


def _no_death(k: KnowledgeFold, f: NoDeath, e: SeatEvent) -> None:
    k.quiet_nights = k.quiet_nights | {e.day}


def _group_picks(k: KnowledgeFold, f: GroupPicks, e: SeatEvent) -> None:
    k.team_picks = (*k.team_picks, (e.day, f))
    k.latest_picks = MappingProxyType(dict(f.picks))


def _night_action(k: KnowledgeFold, f: NightAction, e: SeatEvent) -> None:
    k.actions = (*k.actions, (e.day, f))


def _silenced(k: KnowledgeFold, f: Silenced, _: SeatEvent) -> None:
    k.silenced = frozenset(f.seats)


def _phase(k: KnowledgeFold, f: PhaseStart, _: SeatEvent) -> None:
    if k.nominations_today:
        k.nominations_today = ()
    if f.phase == "night":
        k.silenced = frozenset()
        if k.latest_picks:
            k.latest_picks = EMPTY


def _state(k: KnowledgeFold, f: StateChanged, e: SeatEvent) -> None:
    states = list(k.states or ("active",) * k.players)
    states[f.seat] = f.state
    k.states = tuple(states)
    alive = list(k.alive)
    alive[f.seat] = f.state == "active"
    k.alive = tuple(alive)
    if f.role is not None:
        k.revealed = _put(k.revealed, f.seat, f.role)
    if f.state != "active":
        k.deaths = (*k.deaths, (e.day, f.seat, f.cause))
        if e.day == k.ballots_cast_day and f.seat in k.ballots_cast:
            k.ballots_cast = MappingProxyType(
                {s: t for s, t in k.ballots_cast.items() if s != f.seat}
            )


def _card(k: KnowledgeFold, f: CardDealt, _: SeatEvent) -> None:
    if f.seat == k.seat:
        k.card = f.card or None


def _oracle(k: KnowledgeFold, f: OracleAnswer, e: SeatEvent) -> None:
    k.outcomes = (*k.outcomes, _noted(k, f, e))
    if f.question == "mafia":  # a yes/no on the formal team reads like a check
        result = "mafia" if f.answer else "innocent"
        k.checks = _put(k.checks, f.target, result)
        k.known_results = _put(k.known_results, f.target, result)


def _game_over(k: KnowledgeFold, f: GameEnded, _: SeatEvent) -> None:
    k.over, k.winner, k.ended = True, f.winner, f
    k.revealed = MappingProxyType({**k.revealed, **f.roles})


def _blocked(k: KnowledgeFold, f: Blocked, e: SeatEvent) -> None:
    k.outcomes = (*k.outcomes, _noted(k, f, e))


def _message(k: KnowledgeFold, f: PrivateMessage, e: SeatEvent) -> None:
    k.messages = (*k.messages, _noted(k, f, e))


def _newspaper(k: KnowledgeFold, f: Newspaper, _: SeatEvent) -> None:
    k.newspaper = f


def _testament(k: KnowledgeFold, f: DeliveredTestament, e: SeatEvent) -> None:
    k.testaments = (*k.testaments, _noted(k, f, e))


def _notice(k: KnowledgeFold, f: GameMasterNotice, e: SeatEvent) -> None:
    k.notices = _put(k.notices, f.topic, (*k.notices.get(f.topic, ()), _noted(k, f, e)))


def _office(k: KnowledgeFold, f: Office, e: SeatEvent) -> None:
    k.offices = (*k.offices, _noted(k, f, e))


def _status(k: KnowledgeFold, f: StatusShown, e: SeatEvent) -> None:
    k.statuses = (*k.statuses, _noted(k, f, e))


CHANGES: dict[type, frozenset[str]] = {
    Setup: frozenset({"players", "alive", "composition", "roles_in_play"}),
    RoleDealt: frozenset({"role", "faction"}),
    RoleChange: frozenset({"role", "faction"}),
    Allies: frozenset({"allies"}),
    Death: frozenset({"alive", "revealed", "deaths"}),
    Reveal: frozenset({"revealed"}),
    NightResult: frozenset({"results", "checks", "known_results", "outcomes"}),
    SpeechMade: frozenset({"team_chat", "said", "channel_said"}),
    Votes: frozenset({"ballots", "vote_record"}),
    Nomination: frozenset({"nominations", "nominations_today", "vote_record"}),
    Nominees: frozenset({"nominees", "vote_record"}),
    NominationTally: frozenset({"vote_record"}),
    Runoff: frozenset({"vote_record"}),
    NoExecution: frozenset({"vote_record"}),
    LastDeadDecision: frozenset({"vote_record"}),
    Ballot: frozenset({"ballots_cast", "ballots_cast_day"}),
    NoDeath: frozenset({"quiet_nights"}),
    GroupPicks: frozenset({"team_picks", "latest_picks"}),
    NightAction: frozenset({"actions"}),
    Silenced: frozenset({"silenced"}),
    PhaseStart: frozenset({"nominations_today", "silenced", "latest_picks"}),
    GameEnded: frozenset({"over", "winner", "revealed", "ended"}),
    StateChanged: frozenset({"states", "alive", "revealed", "deaths", "ballots_cast"}),
    CardDealt: frozenset({"card"}),
    OracleAnswer: frozenset({"checks", "known_results", "outcomes"}),
    Blocked: frozenset({"outcomes"}),
    PrivateMessage: frozenset({"messages"}),
    Newspaper: frozenset({"newspaper"}),
    DeliveredTestament: frozenset({"testaments"}),
    GameMasterNotice: frozenset({"notices"}),
    Office: frozenset({"offices"}),
    StatusShown: frozenset({"statuses"}),
}
"""The `Knowledge` fields each kind of fact may replace (besides `day`, `phase` and
`events`, which every entry sets). Readers that keep derived state (the numeric
encoder) look here to update only what a new entry can have changed; a test checks
the table against the handlers."""

_HANDLERS: dict[type, Any] = {
    Setup: _setup,
    RoleDealt: _role,
    RoleChange: _role_change,
    Allies: _allies,
    Death: _death,
    Reveal: _reveal,
    NightResult: _night_result,
    SpeechMade: _speech,
    Votes: _votes,
    Nomination: _nomination,
    Nominees: _nominees,
    NominationTally: _vote_fact,
    Runoff: _vote_fact,
    NoExecution: _vote_fact,
    LastDeadDecision: _vote_fact,
    Ballot: _ballot,
    NoDeath: _no_death,
    GroupPicks: _group_picks,
    NightAction: _night_action,
    Silenced: _silenced,
    PhaseStart: _phase,
    GameEnded: _game_over,
    StateChanged: _state,
    CardDealt: _card,
    OracleAnswer: _oracle,
    Blocked: _blocked,
    PrivateMessage: _message,
    Newspaper: _newspaper,
    DeliveredTestament: _testament,
    GameMasterNotice: _notice,
    Office: _office,
    StatusShown: _status,
}


@lru_cache(maxsize=8192)
def _said_in(
    day: int,
    seat: int,
    kind: str,
    text: str,
    roles: tuple[str, ...],
    names: tuple[tuple[str, str], ...],
) -> tuple[Said, ...]:
    """The dated claims of one speech, memoised: every seat that hears it reads the
    same text (claims are frozen, so seats share them)."""
    return tuple(Said(day, seat, kind, c) for c in _claims_in(text, roles, names))


@lru_cache(maxsize=8192)
def _claims_in(
    text: str, roles: tuple[str, ...], names: tuple[tuple[str, str], ...]
) -> tuple[Claim, ...]:
    """`extract_claims`, memoised (canonical sentences repeat across speeches and games)."""
    return tuple(extract_claims(text, roles, names))
