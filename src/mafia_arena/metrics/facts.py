"""`GameFacts`: one pass over a `GameLog` into the facts every metric reads.

The metrics are pure functions of a log. Rather than each of them walking the events,
this module folds the log once into plain facts — who held which faction and side at
each moment, the day ballots with the voters' and targets' sides at that moment, the
executions and the ballot that decided each, check results, public speech with the
claims read from it, stated beliefs and intents, decisions — and the metric modules
compute from those.

Sides come from the variant (`FactionSpec.side`). The caller passes the `Variant` when
it has one (the tournament worker does); otherwise it is loaded from the log's header,
and if that fails a faction called ``mafia`` is taken as the mafia side and any other
as town, so a log from an unknown variant still yields numbers.
"""

from __future__ import annotations

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
    SpeechMade,
    VoteIntentions,
    Votes,
)
from mafia_arena.engine.events import Event
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.speech.claims import Claim, extract_claims

MAFIA, TOWN = "mafia", "town"
FORUM_KINDS = frozenset(
    {"private_message", "form_noted", "newspaper", "testament", "speech", "death"}
)


@dataclass(frozen=True)
class Ballot:
    """One published day vote (`votes` event): who voted whom, with everyone's side then."""

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
    """An investigation result shown to `seats` (the investigators)."""

    seq: int
    day: int
    seats: tuple[int, ...]
    target: int
    result: str
    target_side: str


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
    ballots: list[Ballot] = field(default_factory=list)
    nominations: list[tuple[int, int, str, str]] = field(default_factory=list)
    executions: list[Execution] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    speeches: list[Said] = field(default_factory=list)
    beliefs: list[tuple[int, int, dict[int, float], dict[int, str]]] = field(default_factory=list)
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


@lru_cache(maxsize=64)
def _variant_sides(name: str, overrides: str) -> tuple[dict[str, str], tuple[str, ...]]:
    import json

    variant = load_variant(name, json.loads(overrides))
    return {f: variant.side(f) for f in variant.factions}, tuple(variant.roles)


def variant_sides(
    log: GameLog, variant: Variant | None = None
) -> tuple[dict[str, str], tuple[str, ...]]:
    """(faction -> side, role names) for the log's variant; see the module docstring."""
    if variant is not None:
        return {f: variant.side(f) for f in variant.factions}, tuple(variant.roles)
    import json

    try:
        return _variant_sides(log.variant, json.dumps(log.overrides, sort_keys=True))
    except (ValueError, OSError):
        return {}, ()


def _side(sides: dict[str, str], faction: str | None) -> str:
    if faction is None:
        return TOWN
    return sides.get(faction, MAFIA if faction == MAFIA else TOWN)


def extract_facts(log: GameLog, variant: Variant | None = None) -> GameFacts:
    """Fold the log into `GameFacts` (see the module docstring)."""
    sides, roles_known = variant_sides(log, variant)
    facts = GameFacts(log.players, sides, agent_stats=list(log.meta.get("agent_stats", [])))
    role: dict[int, str] = {}
    faction: dict[int, str] = {}
    alive = set(range(log.players))
    roles = list(roles_known)
    last_ballot: Ballot | None = None

    def side(seat: int) -> str:
        return _side(sides, faction.get(seat))

    for event in log.events:
        f = event.fact
        if event.kind in FORUM_KINDS:
            facts.forum.append(event)
        if isinstance(f, Setup):
            if not roles:
                roles = list(f.composition)
        elif isinstance(f, RoleDealt | RoleChange):
            role[f.seat] = f.role
            if f.faction is not None:
                faction[f.seat] = f.faction
        elif isinstance(f, PhaseStart):
            last_ballot = None
        elif isinstance(f, Votes):
            last_ballot = Ballot(
                event.seq,
                event.day,
                f.kind,
                dict(f.votes),
                {s: side(s) for s in range(log.players)},
                frozenset(alive),
            )
            facts.ballots.append(last_ballot)
        elif isinstance(f, Nomination):
            facts.nominations.append((f.seat, f.target, side(f.seat), side(f.target)))
        elif isinstance(f, Death):
            alive.discard(f.seat)
            facts.death_day[f.seat] = event.day
            facts.death_cause[f.seat] = f.cause
            if f.cause == "execution":
                facts.executions.append(
                    Execution(event.seq, event.day, f.seat, side(f.seat), last_ballot)
                )
        elif isinstance(f, NightResult) and f.action == "check" and f.targets:
            seats = tuple(sorted(event.visibility.seats))
            target = f.targets[0]
            facts.checks.append(Check(event.seq, event.day, seats, target, f.result, side(target)))
        elif isinstance(f, SpeechMade) and event.visibility.scope == "public":
            claims = tuple(extract_claims(f.text, roles))
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


def _stated_beliefs(log: GameLog, facts: GameFacts) -> None:
    """Beliefs and intended votes that agents stated, from the log header's meta.

    Agents cannot write events (that would change what a replay reproduces), so the
    runner stores their statements in ``meta["beliefs"]`` with the last event the seat had
    seen (`seq`); they join the facts as if they were events at that point.
    """
    for stated in log.meta.get("beliefs", []):
        seq, seat = int(stated.get("seq", 0)), int(stated["seat"])
        probs = {int(s): float(v) for s, v in stated.get("probs", {}).items()}
        if probs:
            facts.beliefs.append((seq, seat, probs, dict(facts.final_side)))
        if stated.get("intent") is not None:
            facts.intents.append((seq, seat, int(stated["intent"]), int(stated.get("day", 0))))
    facts.beliefs.sort(key=lambda b: (b[0], b[1]))
    facts.intents.sort(key=lambda i: (i[0], i[1]))
