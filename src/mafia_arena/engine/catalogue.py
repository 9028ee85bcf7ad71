"""The event catalogue: one frozen class per kind of event the engine emits.

An event is an envelope (`engine.events.Event`: sequence number, day, phase, audience)
around one *fact* from this module. The engine emits only these facts and every
consumer reads their typed fields; nothing outside this module reads the stored JSON
form (`to_payload` / `fact_from_payload`), which is what a log file holds.

Each class documents what the fact means and who is shown it (its usual audience; the
emitting site sets the actual `Visibility`):

- *public*: every seat, alive or dead, and spectators;
- *seats*: the named seats only (a private result, a team channel resolved to its
  members when the fact happens);
- *host*: nobody at the table (true roles, random draws, raw decisions, passive traits).

Stored form: a flat JSON object of the fields. Seat-keyed maps are stored with string
keys (JSON objects), tuples as lists, and an optional field whose value is ``None`` is
left out. `LOG_VERSION` 2 unified the night-result and night-action targets
(``targets`` and ``seats`` are always lists); `fact_from_payload` still reads version 1
payloads (``target``, ``seat``, a watch result as a list of seats).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from mafia_arena.engine.frozen import fast_init

LOG_VERSION = 2


class Fact:
    """Base of every event kind. `KIND` is the stored kind name."""

    __slots__ = ()
    KIND: ClassVar[str] = ""
    _CODEC: ClassVar[tuple[tuple[str, Callable[[Any], Any], Callable[[Any], Any], bool], ...]] = ()

    def to_payload(self) -> dict[str, Any]:
        """The stored JSON form (for logs only; consumers read the fields)."""
        out: dict[str, Any] = {}
        for name, encode, _, optional in self._CODEC:
            value = getattr(self, name)
            if value is None and optional:
                continue
            out[name] = encode(value)
        return out


# ------------------------------------------------------------------ field codecs
def _same(value: Any) -> Any:
    return value


def _list(value: Any) -> Any:
    return list(value)


def _tuple(value: Any) -> Any:
    return tuple(value)


def _str_keys(value: Any) -> Any:
    return {str(k): v for k, v in value.items()}


def _int_keys(value: Any) -> Any:
    return {int(k): v for k, v in value.items()}


def _str_map(value: Any) -> Any:
    return dict(value)


def _optional(
    codec: tuple[Callable[[Any], Any], Callable[[Any], Any]],
) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    encode, decode = codec

    def enc(value: Any) -> Any:
        return None if value is None else encode(value)

    def dec(value: Any) -> Any:
        return None if value is None else decode(value)

    return enc, dec


_CODECS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "int": (_same, _same),
    "str": (_same, _same),
    "bool": (_same, _same),
    "Any": (_same, _same),
    "tuple[int, ...]": (_list, _tuple),
    "tuple[str, ...]": (_list, _tuple),
    "Mapping[int, str]": (_str_keys, _int_keys),
    "Mapping[int, int]": (_str_keys, _int_keys),
    "Mapping[int, int | None]": (_str_keys, _int_keys),
    "Mapping[str, int]": (_str_map, _str_map),
}

KINDS: dict[str, type[Fact]] = {}
F = TypeVar("F", bound=Fact)


def _fact(kind: str) -> Callable[[type[F]], type[F]]:
    """Register a fact class under `kind` and build its stored-form codec."""

    def register(cls: type[F]) -> type[F]:
        codec = []
        for f in fields(cls):  # type: ignore[arg-type]  # every fact is a dataclass
            annotation = str(f.type)
            nullable = annotation.endswith(" | None")
            base = annotation.removesuffix(" | None")
            pair = _CODECS[base]
            if nullable and base not in ("int", "str", "bool", "Any"):
                pair = _optional(pair)
            optional = nullable and f.default is None
            codec.append((f.name, pair[0], pair[1], optional))
        cls.KIND = kind
        cls._CODEC = tuple(codec)
        KINDS[kind] = cls
        return fast_init(cls)

    return register


def fact_from_payload(kind: str, payload: Mapping[str, Any]) -> Fact:
    """Read a stored payload of `kind` back into its fact (versions 1 and 2)."""
    cls = KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown event kind {kind!r}")
    upgrade = _UPGRADES.get(kind)
    data = upgrade(dict(payload)) if upgrade else payload
    args: dict[str, Any] = {}
    for name, _, decode, _ in cls._CODEC:
        if name in data:
            args[name] = decode(data[name])
    return cls(**args)


# ------------------------------------------------------------------ the catalogue
@_fact("setup")
@dataclass(frozen=True, slots=True)
class Setup(Fact):
    """public — the game starts: variant name, player count, the deck (role → count)."""

    variant: str
    players: int
    composition: Mapping[str, int]


@_fact("role")
@dataclass(frozen=True, slots=True)
class RoleDealt(Fact):
    """seats (the player) — the player's dealt role and faction.

    `faction` is None where the role is dealt without its party (the dictator's question
    mark, who learns his party only with his copy on Day 2: dictator.md OP-D14).
    """

    seat: int
    role: str
    faction: str | None


@_fact("allies")
@dataclass(frozen=True, slots=True)
class Allies(Fact):
    """seats (the player) — roles the player is told (fellow mafiosi, a new recruit)."""

    seat: int
    allies: Mapping[int, str]


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One night step's usage record as an heir takes it over (part of `RoleChange`).

    `uses`: how often the role's previous holder acted in `step`; `last` and
    `last_night`: the last target and the night of it (None when the step keeps no
    last target); `counts`: picks per target seat. These bind the heir's next picks
    (limits, no repeats), so the heir is told them with the role.

    Stored form: ``{"step", "uses", "last"?, "last_night"?, "counts": {seat: n}}``.
    """

    step: str
    uses: int = 0
    last: int | None = None
    last_night: int | None = None
    counts: Mapping[int, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "uses": self.uses}
        if self.last is not None:
            out["last"] = self.last
            out["last_night"] = self.last_night
        out["counts"] = {str(t): c for t, c in sorted(self.counts.items())}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UsageRecord:
        return cls(
            data["step"],
            data.get("uses", 0),
            data.get("last"),
            data.get("last_night"),
            {int(t): c for t, c in data.get("counts", {}).items()},
        )


def _records_out(value: Any) -> Any:
    return [record.to_json() for record in value]


def _records_in(value: Any) -> Any:
    return tuple(UsageRecord.from_json(record) for record in value)


_CODECS["tuple[UsageRecord, ...]"] = (_records_out, _records_in)


@_fact("role_change")
@dataclass(frozen=True, slots=True)
class RoleChange(Fact):
    """seats (the player) — the player's current role and faction changed (the card stays).

    `inherited`: the usage records the player takes over with the role (a club deputy
    inheriting a dead player's role, `engine.traits.inheritance`); None when the change
    carries none, and in logs written before the field existed.
    """

    seat: int
    role: str
    faction: str | None = None
    inherited: tuple[UsageRecord, ...] | None = None


@_fact("phase")
@dataclass(frozen=True, slots=True)
class PhaseStart(Fact):
    """public — a night or day begins (`number` is the round)."""

    phase: str
    number: int


@_fact("death")
@dataclass(frozen=True, slots=True)
class Death(Fact):
    """public — a player died (`cause`: night, execution, disqualification, …); `role`
    only when the card is shown, `manner` when the killers described it."""

    seat: int
    cause: str
    manner: str | None = None
    role: str | None = None


@_fact("reveal")
@dataclass(frozen=True, slots=True)
class Reveal(Fact):
    """public — a dead player's card is turned up later."""

    seat: int
    role: str


@_fact("no_death")
@dataclass(frozen=True, slots=True)
class NoDeath(Fact):
    """public — the morning announcement that nobody died."""

    text: str


@_fact("silenced")
@dataclass(frozen=True, slots=True)
class Silenced(Fact):
    """public — the players who may not speak today."""

    seats: tuple[int, ...]


@_fact("speech")
@dataclass(frozen=True, slots=True)
class SpeechMade(Fact):
    """public, or seats (a team channel) — words said; `kind` is the speaking turn
    (discussion, plea, defence, night_chat, describe, …), `act` the structured act."""

    seat: int
    text: str
    kind: str
    act: str | None = None


@_fact("floor")
@dataclass(frozen=True, slots=True)
class FloorGranted(Fact):
    """public — the ``bidding`` discussion protocol gives `seat` the next statement with
    the highest bid `bid`; `tied` lists every seat that bid as much (more than one: the
    tie went to a seat the previous statement named, else by draw). The other bids stay
    secret (they are in the host's decision records)."""

    seat: int
    bid: int
    tied: tuple[int, ...]


@_fact("vote_intentions")
@dataclass(frozen=True, slots=True)
class VoteIntentions(Fact):
    """host — synthetic votes: whom each living player would vote for now (None:
    undecided), asked by the discussion's ``intentions`` switch before the day's first
    statement (`after` empty) and after each statement (`after`: its speaker; every
    speaker of a ``parallel`` round). `statement` counts the day's statements so far.
    They never count as votes and no seat is shown them, so asking cannot sway the
    table; metrics read them to attribute vote swings to messages."""

    statement: int
    after: tuple[int, ...]
    intents: Mapping[int, int | None]


@_fact("nomination")
@dataclass(frozen=True, slots=True)
class Nomination(Fact):
    """public — `seat` nominates (or accuses) `target` in nomination round `round`.

    `tally` is the running total after this nomination (candidate → nominations so
    far), where the rules make it public as the names are given (club 6.1: the suspect
    raises a finger per vote against); None where only the round's closing
    `NominationTally` is published (classic 5.1)."""

    seat: int
    target: int
    round: int
    tally: Mapping[int, int] | None = None


@_fact("nomination_tally")
@dataclass(frozen=True, slots=True)
class NominationTally(Fact):
    """public — the nominations counted after a round (`places` to fill)."""

    round: int
    places: int
    tally: Mapping[int, int]


@_fact("runoff")
@dataclass(frozen=True, slots=True)
class Runoff(Fact):
    """public — a tie is settled by another round between `candidates`."""

    candidates: tuple[int, ...]
    places: int
    text: str


@_fact("nominees")
@dataclass(frozen=True, slots=True)
class Nominees(Fact):
    """public — who stands in the final vote (with their tally where one was kept)."""

    seats: tuple[int, ...]
    tally: Mapping[int, int] | None = None


@_fact("votes")
@dataclass(frozen=True, slots=True)
class Votes(Fact):
    """public — a vote's published ballots (voter → target, None abstains) and tally;
    `kind`: vote, final_vote, revote."""

    kind: str
    votes: Mapping[int, int | None]
    tally: Mapping[int, int]


@_fact("ballot")
@dataclass(frozen=True, slots=True)
class Ballot(Fact):
    """public — one ballot as it is cast, with the running tally.

    `total_public` is True where the rules make each running total public as the
    ballots are cast (club 6.1: the suspect raises one finger per vote against), so the
    transcript shows `tally` with the ballot; None elsewhere (Palermo's forum ballots,
    the sequential final votes of the other variants), where the transcript shows the
    ballot alone and the count comes with the closing `votes`. None is left out of the
    stored form, so those variants' ballots are stored as before."""

    seat: int
    target: int
    revote: bool
    tally: Mapping[int, int]
    total_public: bool | None = None


@_fact("no_execution")
@dataclass(frozen=True, slots=True)
class NoExecution(Fact):
    """public — nobody is executed today (`reason`; `tied` for a tie)."""

    reason: str
    tied: tuple[int, ...] | None = None


@_fact("last_dead_decision")
@dataclass(frozen=True, slots=True)
class LastDeadDecision(Fact):
    """public — the last dead player (or, with `chooser` None, a draw: no dead player
    yet, or no answer from the last dead) settled a tie."""

    purpose: str
    chooser: int | None
    chosen: tuple[int, ...]
    text: str


@_fact("group_picks")
@dataclass(frozen=True, slots=True)
class GroupPicks(Fact):
    """seats (the team) — each member's pick in one round of a team night step."""

    step: str
    round: int
    picks: Mapping[int, str]


@_fact("night_action")
@dataclass(frozen=True, slots=True)
class NightAction(Fact):
    """seats (the actors) — what the actor(s) chose at a night step (choice keys);
    `team` when a team chose together, `skill` the borrowed action of a copy."""

    step: str
    seats: tuple[int, ...]
    choices: tuple[str, ...]
    team: bool = False
    skill: str | None = None


@_fact("night_result")
@dataclass(frozen=True, slots=True)
class NightResult(Fact):
    """seats (the actor and observers) — what a night action learnt: `action` on
    `targets` gave `result`; a watch lists the `attackers` it saw."""

    action: str
    targets: tuple[int, ...]
    result: str
    step: str | None = None
    attackers: tuple[int, ...] | None = None


@_fact("blocked")
@dataclass(frozen=True, slots=True)
class Blocked(Fact):
    """seats (the actor or team) — the actor could not act at this step tonight."""

    step: str


@_fact("narration")
@dataclass(frozen=True, slots=True)
class Narration(Fact):
    """public — the host calls a night step (the same whether or not the role lives)."""

    step: str
    text: str


@_fact("protected")
@dataclass(frozen=True, slots=True)
class Protected(Fact):
    """public — the vote's winner is protected and is not executed (club's lawyer)."""

    seat: int
    text: str


@_fact("disqualified")
@dataclass(frozen=True, slots=True)
class Disqualified(Fact):
    """public — the host removed a player from the game."""

    seat: int
    reason: str
    text: str


@_fact("trigger")
@dataclass(frozen=True, slots=True)
class Trigger(Fact):
    """host — a passive trait fired (immunity, retaliation, succession, …)."""

    trait: str
    seat: int
    role: str | None = None
    victims: tuple[int, ...] | None = None


@_fact("rng")
@dataclass(frozen=True, slots=True)
class RandomDraw(Fact):
    """host — one draw of the game's random generator (options and result as JSON)."""

    purpose: str
    options: Any
    result: Any


@_fact("decision")
@dataclass(frozen=True, slots=True)
class DecisionRecord(Fact):
    """host — one decision as submitted (or a host action, with `host`), so a log replays."""

    seat: int
    kind: str
    choice: str | None = None
    text: str | None = None
    act: str | None = None
    fallback: str | None = None
    host: bool | None = None
    reason: str | None = None

    def record(self) -> dict[str, Any]:
        """The decision as the dict `Game.resubmit` takes."""
        return self.to_payload()


@_fact("game_over")
@dataclass(frozen=True, slots=True)
class GameEnded(Fact):
    """public — the game ended: the winning faction (None for a draw), every winner,
    why, and every seat's card and faction. `banned`: the seats barred from the next
    game by the rules (`GameState.banned`, e.g. Palermo's removal for absences), for the
    platform to act on; None when there are none (and in older logs)."""

    winner: str | None
    winners: tuple[int, ...]
    reason: str
    roles: Mapping[int, str]
    factions: Mapping[int, str]
    banned: tuple[int, ...] | None = None


# ------------------------------------------------------------------ forum channels
# The facts of the forum game (`engine.forum`, docs/rules/dictator.md 7). The author of
# an ad and the parties of a private message between others appear in no fact another
# seat is shown: an ad is published under its pseudonym alone, a message and a
# testament reach exactly their sender and recipients.


@_fact("status_message")
@dataclass(frozen=True, slots=True)
class StatusMessage(Fact):
    """seats (the player) — the game master's status message, in the source's exact
    wording (dictator.md 2.3), e.g. ("Du gehörst zu den Bürgern.",)."""

    seat: int
    lines: tuple[str, ...]


@_fact("private_message")
@dataclass(frozen=True, slots=True)
class PrivateMessage(Fact):
    """seats (the sender and the recipients) — a private message between players."""

    sender: int
    recipients: tuple[int, ...]
    text: str


@_fact("form_noted")
@dataclass(frozen=True, slots=True)
class FormNoted(Fact):
    """seats (the player) — the game master accepted one of the player's forms (an
    order, a ballot, an ad, a testament, a night action): `form` names it, `text` says
    what was recorded. A later form of the same kind replaces it until the deadline."""

    form: str
    text: str
    pseudonym: str | None = None
    """An ad's pseudonym (the author's own notice)."""


@_fact("form_refused")
@dataclass(frozen=True, slots=True)
class FormRefused(Fact):
    """seats (the player) — a form the game master could not accept when the phase
    applied it (another seat's form of the same moment took the pseudonym, say)."""

    form: str
    reason: str


@_fact("newspaper")
@dataclass(frozen=True, slots=True)
class Newspaper(Fact):
    """public — an edition of the newspaper: each ad's pseudonym and text, in a drawn
    order; authors are never named."""

    edition: str
    pseudonyms: tuple[str, ...]
    texts: tuple[str, ...]


@_fact("pseudonym_transfer")
@dataclass(frozen=True, slots=True)
class PseudonymTransfer(Fact):
    """seats (the old and the new owner) — a pseudonym changed hands, at once and for
    good."""

    pseudonym: str
    giver: int
    receiver: int


@_fact("testament")
@dataclass(frozen=True, slots=True)
class DeliveredTestament(Fact):
    """public (a public testament) or seats (its chosen recipients) — an eliminated
    player's testament. A private one's existence is told to nobody else."""

    author: int
    text: str
    public: bool


@_fact("status_shown")
@dataclass(frozen=True, slots=True)
class StatusShown(Fact):
    """public — the status announced for a player who left the game, as the reveal rules
    give it (a disguise, "Status unbekannt", "hatte eine dunkle Vergangenheit")."""

    seat: int
    status: str


@_fact("office")
@dataclass(frozen=True, slots=True)
class Office(Fact):
    """public — the dictatorship changed: `dictator` took office (None: vacant),
    `deposed` was overthrown (status hidden); never a count or a ballot."""

    dictator: int | None
    text: str
    deposed: int | None = None


@_fact("attack")
@dataclass(frozen=True, slots=True)
class SuicideAttack(Fact):
    """public — a terrorist blew himself up and took `victim` with him (dictator.md 3.7)."""

    attacker: int
    victim: int
    text: str


@_fact("gm_notice")
@dataclass(frozen=True, slots=True)
class GameMasterNotice(Fact):
    """seats (the player) — a private message of the game master: an investigation
    result, the terrorist's list of investigated names, a change of the kill
    authority, an inactivity warning, a post ruled irrelevant (``moderation``), a
    sanction's warning (``sanction``); `topic` names which."""

    seat: int
    topic: str
    text: str


# ------------------------------------------------------------------ player states and cards
@_fact("state")
@dataclass(frozen=True, slots=True)
class StateChanged(Fact):
    """public — a player's state changed (`engine.player_states`): `state` is the new
    one (``active``, ``ghost``, ``imprisoned``, ``out``), `cause` the cause *as
    announced* (a snitch's exit is announced as an assassination; the true cause is a
    host-only `trigger`), `text` the announcement. `role` and `card` are set only when
    the move reveals them (a permanent exit other than a snitch's), `activated` only for
    a revealed Rival Mafioso. `banned` is True on a removal for absences: the player is
    barred from the next game (palermo.md 7.2, OP-46), a platform-level flag, public as
    the removal is; None otherwise (and in logs written before the flag existed)."""

    seat: int
    state: str
    cause: str
    text: str
    role: str | None = None
    card: str | None = None
    activated: bool | None = None
    banned: bool | None = None


@_fact("card")
@dataclass(frozen=True, slots=True)
class CardDealt(Fact):
    """seats (the holder) — the intrigue card the player holds now; nobody else learns
    it. An empty `card` tells the holder the card is gone (played, or lost on leaving
    the game permanently)."""

    seat: int
    card: str


@_fact("card_played")
@dataclass(frozen=True, slots=True)
class CardPlayed(Fact):
    """public, or seats (the player) for a secret card — a card took effect: `text` is
    the announcement. `seat` names the player only where the effect names them anyway
    (self-effect cards) or the audience is the player alone; `target` is the seat the
    effect is about, if any."""

    card: str
    text: str
    seat: int | None = None
    target: int | None = None


@_fact("oracle")
@dataclass(frozen=True, slots=True)
class OracleAnswer(Fact):
    """seats (the asker) — Pythia's yes/no answer about `target`: `question` is
    ``mafia`` (formally a member of the mafia?) or a role name (is the role this?)."""

    seat: int
    target: int
    question: str
    answer: bool


@_fact("absence")
@dataclass(frozen=True, slots=True)
class Absence(Fact):
    """public — an obliged voter did not take part: the counters after this vote."""

    seat: int
    total: int
    consecutive: int


@_fact("cards_shown")
@dataclass(frozen=True, slots=True)
class CardsShown(Fact):
    """public — at the end of the game, every card still held, by seat."""

    cards: Mapping[int, str]


HOST_KINDS = frozenset({"trigger", "rng", "decision", "vote_intentions"})
"""Kinds that only the host ever sees."""


# ------------------------------------------------------------------ older payloads
def _night_result_v1(data: dict[str, Any]) -> dict[str, Any]:
    if "target" in data:
        data["targets"] = [data.pop("target")]
    if isinstance(data.get("result"), list):
        data["attackers"] = data["result"]
        data["result"] = "seen"
    return data


def _night_action_v1(data: dict[str, Any]) -> dict[str, Any]:
    if "team" in data:  # version 2
        return data
    if "seat" in data:
        data["seats"] = [data.pop("seat")]
    else:
        data["team"] = True
    return data


_UPGRADES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "night_result": _night_result_v1,
    "night_action": _night_action_v1,
}
