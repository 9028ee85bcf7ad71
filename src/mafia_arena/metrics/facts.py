"""`GameFacts`: one pass over a `GameLog` into the facts every metric reads.

The metrics are pure functions of a log. Rather than each of them walking the events,
this module folds the log once into plain facts — who held which faction and side at
each moment, the day ballots with the voters' and targets' sides at that moment, the
executions and the ballot that decided each, check results, public speech with the
claims read from it, stated beliefs and intents, decisions — and the metric modules
compute from those.

Who is in the game: most variants know alive and dead (`death` events); Palermo's
players leave and come back through states (`state` events, `engine.player_states`).
A move to ``ghost`` or ``out`` is a departure like a death (by the vote: an execution;
by an assassination: a night kill), a move back to ``active`` (resurrection, a failed
assassination) a return. A ballot's `Ballot.alive` are the seats that could have
voted: in the game, and neither imprisoned (Palermo) nor silenced for the day (a
`silenced` event: the club's lover), unless the seat voted all the same (the
nominate-and-final-vote procedure lets the silenced vote). A vote on a seat that was
no longer in the game when the ballot was published (Palermo publishes the ballots on
a player who left during the day; its count ignores them) is void: `Ballot.votes`
holds None for it, like an abstention.

An investigation is any `night_result` of action ``check`` (a detective's or a
commissar's check) or ``investigate`` (Palermo's Detective and Medium); `Check.living`
tells one of a player in the game from the Medium's of a ghost.

A seat's faction is the one its `role` event deals it, changed by a `role_change`
(told to the seat) or by the dictator's question mark copying a status at the end of
Night 0 (a host `trigger`: he counts for the copied party from then on, though he is
told it only on Day 2). Sides come from the variant (`FactionSpec.side`). The caller
passes the `Variant` when it has one (the tournament worker does); otherwise it is
loaded from the log's header (the file it records for a researcher's own variant,
``meta["variant_file"]``, else the bundled variant of its name), and if that fails a
faction called ``mafia`` is taken as the mafia side and any other as town, so a log
from an unknown variant still yields numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mafia_arena.engine.catalogue import (
    Death,
    DecisionRecord,
    GameEnded,
    NightResult,
    Nomination,
    PhaseStart,
    RoleChange,
    RoleDealt,
    Setup,
    Silenced,
    SpeechMade,
    StateChanged,
    Trigger,
    VoteIntentions,
    Votes,
)
from mafia_arena.engine.events import Event
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner.log import GameLog, variant_source
from mafia_arena.speech.claims import Claim, extract_claims

MAFIA, TOWN = "mafia", "town"
#: `night_result` actions that answer an investigation of one target.
CHECK_ACTIONS = frozenset({"check", "investigate"})
#: Death causes of a night kill: the engine's night (``night``), the forum game's murder
#: (``murder``), Palermo's assassination (a `state` move to ghost).
NIGHT_CAUSES = frozenset({"night", "murder", "assassination"})
#: Palermo states (`engine.player_states.PlayerState`) that take a player out of the game.
GONE_STATES = frozenset({"ghost", "out"})
FORUM_KINDS = frozenset(
    {"private_message", "form_noted", "newspaper", "testament", "speech", "death"}
)


@dataclass(frozen=True)
class Ballot:
    """One published day vote (`votes` event): who voted whom, with everyone's side then;
    `alive`: the seats in the game and free to vote then. In `votes` an abstention and
    a void vote (on a seat already out of the game) are None (module docstring)."""

    seq: int
    day: int
    kind: str
    votes: dict[int, int | None]
    sides: dict[int, str]
    alive: frozenset[int]


@dataclass(frozen=True)
class Poll:
    """One vote-intention poll (`vote_intentions` event): the synthetic votes after the
    statement(s) of `after` (none: before the day's first), with everyone's side then."""

    day: int
    after: tuple[int, ...]
    intents: dict[int, int | None]
    sides: dict[int, str]


@dataclass(frozen=True)
class Execution:
    """A day elimination and the last ballot published before it that day (if any)."""

    seq: int
    day: int
    seat: int
    side: str
    ballot: Ballot | None


@dataclass(frozen=True)
class Check:
    """An investigation result shown to `seats` (the investigators). `living`: the
    target was in the game then (Palermo's Medium questions ghosts instead)."""

    seq: int
    day: int
    seats: tuple[int, ...]
    target: int
    result: str
    target_side: str
    living: bool = True


@dataclass(frozen=True)
class Said:
    """Claims read from one public speech."""

    seq: int
    day: int
    seat: int
    side: str
    role: str
    claims: tuple[Claim, ...]


@dataclass
class GameFacts:
    players: int
    sides: dict[str, str]
    roles: dict[int, str] = field(default_factory=dict)
    factions: dict[int, str] = field(default_factory=dict)
    final_side: dict[int, str] = field(default_factory=dict)
    winner: str | None = None
    winners: frozenset[int] = frozenset()
    length_days: int = 0
    death_day: dict[int, int] = field(default_factory=dict)
    death_cause: dict[int, str] = field(default_factory=dict)
    #: every departure in log order: (day, seat, cause); a Palermo player who came back
    #: and left again has two
    departures: list[tuple[int, int, str]] = field(default_factory=list)
    ballots: list[Ballot] = field(default_factory=list)
    nominations: list[tuple[int, int, str, str]] = field(default_factory=list)
    executions: list[Execution] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    speeches: list[Said] = field(default_factory=list)
    #: stated beliefs: (seq, seat, probabilities, every seat's side at `seq`)
    beliefs: list[tuple[int, int, dict[int, float], dict[int, str]]] = field(default_factory=list)
    #: sides after each change of faction: (seq of the change, every seat's side then)
    side_history: list[tuple[int, dict[int, str]]] = field(default_factory=list)
    intents: list[tuple[int, int, int | None, int]] = field(default_factory=list)
    #: vote-intention polls (`VoteIntentions`) in log order: (day, after, intents, the
    #: side of every seat then)
    polls: list[Poll] = field(default_factory=list)
    decisions: dict[int, int] = field(default_factory=dict)
    fallbacks: dict[int, int] = field(default_factory=dict)
    agent_stats: list[dict[str, Any]] = field(default_factory=list)
    #: the forum game's channel events in log order (private messages, ads noted to
    #: their author, editions, testaments, thread posts, deaths): `metrics.channels`
    forum: list[Event] = field(default_factory=list)

    def side_of(self, seat: int) -> str:
        return self.final_side.get(seat, TOWN)

    def survived(self, seat: int) -> bool:
        return seat not in self.death_day

    def seats_on(self, side: str) -> list[int]:
        return [s for s in range(self.players) if self.side_of(s) == side]


VariantInfo = tuple[dict[str, str], tuple[str, ...], tuple[tuple[str, str], ...], dict[str, str]]


def _info(variant: Variant) -> VariantInfo:
    """(faction -> side, role ids, (readable name, role id) pairs, role -> faction)."""
    sides = {f: variant.side(f) for f in variant.factions}
    factions = {r: spec.faction for r, spec in variant.roles.items()}
    return sides, tuple(variant.roles), variant.role_names(), factions


@lru_cache(maxsize=64)
def _variant_info(name_or_file: str, overrides: str) -> VariantInfo:
    import json

    return _info(load_variant(name_or_file, json.loads(overrides)))


def variant_info(log: GameLog, variant: Variant | None = None) -> VariantInfo:
    """(faction -> side, role ids, (readable name, role id) pairs, role -> faction) of
    the log's variant: the names are each role's `display` and `title`, so a claim made
    with the name a player reads ("Known Mafioso A") counts as a claim of the id; see
    the module docstring for a variant that cannot be loaded."""
    if variant is not None:
        return _info(variant)
    import json

    try:
        source = str(variant_source(log))  # a researcher's own file, else the name
        return _variant_info(source, json.dumps(log.overrides, sort_keys=True))
    except (ValueError, OSError):
        return {}, (), (), {}


def variant_sides(
    log: GameLog, variant: Variant | None = None
) -> tuple[dict[str, str], tuple[str, ...]]:
    """(faction -> side, role ids) for the log's variant; see the module docstring."""
    sides, roles, _names, _factions = variant_info(log, variant)
    return sides, roles


def _side(sides: dict[str, str], faction: str | None) -> str:
    if faction is None:
        return TOWN
    return sides.get(faction, MAFIA if faction == MAFIA else TOWN)


def extract_facts(log: GameLog, variant: Variant | None = None) -> GameFacts:
    """Fold the log into `GameFacts` (see the module docstring)."""
    sides, roles_known, role_names, role_factions = variant_info(log, variant)
    facts = GameFacts(log.players, sides, agent_stats=list(log.meta.get("agent_stats", [])))
    role: dict[int, str] = {}
    faction: dict[int, str] = {}
    alive = set(range(log.players))
    imprisoned: set[int] = set()
    silenced: set[int] = set()
    roles = list(roles_known)
    last_ballot: Ballot | None = None

    def side(seat: int) -> str:
        return _side(sides, faction.get(seat))

    def sides_changed(seq: int) -> None:
        facts.side_history.append((seq, {s: side(s) for s in range(log.players) if s in faction}))

    def depart(seq: int, day: int, seat: int, cause: str) -> None:
        alive.discard(seat)
        facts.death_day[seat] = day
        facts.death_cause[seat] = cause
        facts.departures.append((day, seat, cause))
        if cause == "execution":
            facts.executions.append(Execution(seq, day, seat, side(seat), last_ballot))

    for event in log.events:
        f = event.fact
        if event.kind in FORUM_KINDS:
            facts.forum.append(event)
        if isinstance(f, Setup):
            if not roles:
                roles = list(f.composition)
        elif isinstance(f, RoleDealt | RoleChange):
            role[f.seat] = f.role
            dealt = f.faction
            if dealt is None and isinstance(f, RoleDealt):  # dealt without his party
                dealt = role_factions.get(f.role)  # (OP-D14): the role's own, the truth
            if dealt is not None:
                faction[f.seat] = dealt
                sides_changed(event.seq)
        elif isinstance(f, Trigger) and f.trait == "copy" and f.role in role_factions:
            # the dictator's question mark copies a status at the end of Night 0 and
            # counts for the copied party from then on, though he is told only on Day 2
            faction[f.seat] = role_factions[f.role]
            sides_changed(event.seq)
        elif isinstance(f, PhaseStart):
            last_ballot = None
            silenced.clear()
        elif isinstance(f, Silenced):
            silenced.update(f.seats)
        elif isinstance(f, Votes):
            last_ballot = Ballot(
                event.seq,
                event.day,
                f.kind,
                _standing(f.votes, alive),
                {s: side(s) for s in range(log.players)},
                frozenset((alive - imprisoned - silenced) | (alive & set(f.votes))),
            )
            facts.ballots.append(last_ballot)
        elif isinstance(f, Nomination):
            facts.nominations.append((f.seat, f.target, side(f.seat), side(f.target)))
        elif isinstance(f, Death):
            depart(event.seq, event.day, f.seat, f.cause)
        elif isinstance(f, StateChanged):
            imprisoned.discard(f.seat)
            if f.state in GONE_STATES:
                if f.seat in alive:  # a ghost robbed of his grave left already
                    depart(event.seq, event.day, f.seat, _cause(f.cause))
            elif f.state == "imprisoned":
                imprisoned.add(f.seat)
            elif f.seat not in alive:  # back in the game: resurrected, survived
                alive.add(f.seat)
                facts.death_day.pop(f.seat, None)
                facts.death_cause.pop(f.seat, None)
        elif isinstance(f, NightResult) and f.action in CHECK_ACTIONS and f.targets:
            seats = tuple(sorted(event.visibility.seats))
            target = f.targets[0]
            facts.checks.append(
                Check(event.seq, event.day, seats, target, f.result, side(target), target in alive)
            )
        elif isinstance(f, SpeechMade) and event.visibility.scope == "public":
            claims = tuple(extract_claims(f.text, roles, role_names))
            facts.speeches.append(
                Said(event.seq, event.day, f.seat, side(f.seat), role.get(f.seat, ""), claims)
            )
        elif isinstance(f, VoteIntentions):
            sides_now = {s: side(s) for s in range(log.players)}
            facts.polls.append(Poll(event.day, tuple(f.after), dict(f.intents), sides_now))
        elif isinstance(f, DecisionRecord) and not f.host:  # a host action is no seat's
            facts.decisions[f.seat] = facts.decisions.get(f.seat, 0) + 1
            if f.fallback:
                facts.fallbacks[f.seat] = facts.fallbacks.get(f.seat, 0) + 1
        elif isinstance(f, GameEnded):
            facts.winner = f.winner
            facts.winners = frozenset(f.winners)
            facts.length_days = event.day
            facts.roles.update(f.roles)
            faction.update(f.factions)
    for seat in range(log.players):
        facts.roles.setdefault(seat, role.get(seat, ""))
        facts.factions[seat] = faction.get(seat, "")
        facts.final_side[seat] = side(seat)
    if facts.length_days == 0 and log.events:
        facts.length_days = max(e.day for e in log.events)
    _stated_beliefs(log, facts)
    return facts


def _standing(votes: Mapping[int, int | None], in_game: set[int]) -> dict[int, int | None]:
    """The ballot's votes with a vote on a seat no longer in the game made void (None).

    Palermo publishes every ballot cast during the day, also those on a player who left
    before the count (the engine does not count them); such a vote picked nobody, so
    crediting it (a town vote "on a mafioso" who was already gone) would be wrong. It
    reads like an abstention. Votes on an imprisoned player stay: he is in the game.
    """
    return {v: t if t is None or t in in_game else None for v, t in votes.items()}


def _cause(announced: str) -> str:
    """A Palermo departure's cause in the words of `death` events: the vote is an
    execution; any other (``assassination``, ``snitch``, ``grave_robbing``...) as is."""
    return "execution" if announced == "vote" else announced


def sides_at(facts: GameFacts, seq: int) -> dict[int, str]:
    """Every seat's side just after event `seq`: the last faction change at or before
    it, the final side for a seat not dealt a faction by then."""
    then: dict[int, str] = {}
    for changed, sides in facts.side_history:
        if changed > seq:
            break
        then = sides
    return {s: then.get(s, facts.side_of(s)) for s in range(facts.players)}


def _stated_beliefs(log: GameLog, facts: GameFacts) -> None:
    """Beliefs and intended votes that agents stated, from the log header's meta.

    Agents cannot write events (that would change what a replay reproduces), so the
    runner stores their statements in ``meta["beliefs"]`` with the last event the seat had
    seen (`seq`); they join the facts as if they were events at that point, and a
    belief is scored against the sides at that point (a seat converted later was not
    mafia when the belief was stated).
    """
    for stated in log.meta.get("beliefs", []):
        seq, seat = int(stated.get("seq", 0)), int(stated["seat"])
        probs = {int(s): float(v) for s, v in stated.get("probs", {}).items()}
        if probs:
            facts.beliefs.append((seq, seat, probs, sides_at(facts, seq)))
        if stated.get("intent") is not None:
            facts.intents.append((seq, seat, int(stated["intent"]), int(stated.get("day", 0))))
    facts.beliefs.sort(key=lambda b: (b[0], b[1]))
    facts.intents.sort(key=lambda i: (i[0], i[1]))
