"""Suspicion: a score per seat, folded from what a seat has seen.

Positive means "probably mafia", negative "probably town". Hard facts (revealed cards,
own check results, the seat's own allegiance) pin a seat to ±`HARD`; everything else
adds evidence in roughly log-odds units:

- role claims: counter-claims of a role with too few cards, claims of roles not in
  play, or claims contradicted by a card turned up mark a liar;
- check-result claims move their targets by `CHECK_WEIGHT` times the claimer's
  credibility, which grows when earlier claims match revealed cards;
- accusations, vouches, nominations and votes are judged against the cards turned up
  since (vouching for a revealed mafioso is damning, voting one out is reassuring);
  a vote for a town player counts little when most of the table made it;
- the night victims' accusations point at their likely killers.

Today's pressure (`momentum`) is a separate, weaker signal: who the table is pressing.
Before there is any evidence at all (`grounded`), accusations are hunches and add at
most `HUNCH_CAP` to one seat, however many seats repeat them — otherwise the first
name spoken snowballs into a bandwagon that no fact supports.

`private=False` gives the public reading a town player without secrets would have; the
mafia use it to blend in and pick scapegoats.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from mafia_arena.agents.heuristic.memory import Memory
from mafia_arena.agents.heuristic.rulebook import RuleBook
from mafia_arena.views.knowledge import Knowledge

HARD = 100.0
CHECK_WEIGHT = 3.0
LIAR = 4.0
HUNCH = 0.3
HUNCH_CAP = 0.6
"""The most pressure accusations put on one seat before there is any evidence."""


@dataclass
class Assessment:
    """Scores and the facts behind them, for one seat at one moment."""

    sus: list[float]
    guilty: set[int] = field(default_factory=set)
    cleared: set[int] = field(default_factory=set)
    role_claims: dict[int, str] = field(default_factory=dict)
    results: dict[int, dict[int, str]] = field(default_factory=dict)
    liars: set[int] = field(default_factory=set)
    confirmed: set[int] = field(default_factory=set)
    conflicted: set[int] = field(default_factory=set)
    credibility: dict[int, float] = field(default_factory=dict)

    def claimers(self, roles: frozenset[str], alive: Sequence[bool]) -> list[int]:
        """Living seats that claimed one of `roles` and are not known liars."""
        return [
            s
            for s, r in self.role_claims.items()
            if r in roles and alive[s] and s not in self.liars
        ]

    def credible_checkers(self, alive: Sequence[bool]) -> list[int]:
        return [
            s for s, c in self.credibility.items() if c >= 0.8 and alive[s] and s not in self.liars
        ]


def evil_looks(book: RuleBook) -> frozenset[str]:
    """Check results that mean "kill this one" in this variant (computed once per book)."""
    cached = _EVIL_LOOKS.get(id(book))
    if cached is not None and cached[0] is book:
        return cached[1]
    looks = _evil_looks(book)
    _EVIL_LOOKS[id(book)] = (book, looks)
    return looks


_EVIL_LOOKS: dict[int, tuple[RuleBook, frozenset[str]]] = {}


def _evil_looks(book: RuleBook) -> frozenset[str]:
    town = {book.appearance(r) for r in book.roles if not book.is_evil(r)}
    evil = {book.appearance(r) for r in book.roles if book.is_evil(r)}
    return frozenset(({"mafia"} | evil) - (town - {"mafia"}) - {"innocent"})


def assess(k: Knowledge, mem: Memory, book: RuleBook, *, private: bool) -> Assessment:
    """Score every seat from `k` and `mem` (with the seat's secrets if `private`)."""
    a = Assessment([0.0] * k.players)
    looks = evil_looks(book)
    for seat, role in k.revealed.items():
        (a.guilty if book.is_evil(role) else a.cleared).add(seat)
    if private:
        _private_facts(k, book, a, looks)
    order = _read_claims(k, mem, book, a, private)
    _conflicts(k, a, order)
    _credibility(k, book, a, looks, private)
    _apply_results(a, looks)
    _social(mem, a)
    _night_victims(mem, a)
    for seat in a.guilty:
        a.sus[seat] = HARD
    for seat in a.cleared - a.guilty:
        a.sus[seat] = -HARD
    return a


def _private_facts(k: Knowledge, book: RuleBook, a: Assessment, looks: frozenset[str]) -> None:
    if book.side_of_faction(k.faction) == "town":
        a.cleared.add(k.seat)
        a.cleared.update(s for s, r in k.allies.items() if not book.is_evil(r))
    for result in k.results:
        if result.action != "check" or not result.targets:
            continue
        target = result.targets[0]
        if result.result in looks:
            a.guilty.add(target)
        elif result.result != "no result":
            a.cleared.add(target)


def _read_claims(
    k: Knowledge, mem: Memory, book: RuleBook, a: Assessment, private: bool
) -> dict[int, int]:
    """Fill role claims and claimed results; mark liars by roles. Returns claim order."""
    order: dict[int, int] = {}
    for index, said in enumerate(mem.said):
        claim = said.claim
        if claim.kind == "claim_role" and claim.value:
            a.role_claims[said.seat] = claim.value
            order.setdefault(said.seat, index)
        elif claim.kind == "claim_result" and claim.target not in (None, said.seat):
            a.results.setdefault(said.seat, {})[claim.target] = claim.value or ""
            order.setdefault(said.seat, index)
    checker = min(book.checker_roles, default="detective")
    for seat in a.results:
        a.role_claims.setdefault(seat, checker)
    for seat, role in a.role_claims.items():
        if private and seat == k.seat:
            continue
        true_role = k.revealed.get(seat)
        if true_role is not None:
            (a.confirmed if true_role == role else a.liars).add(seat)
        elif book.is_evil(role):
            a.sus[seat] += 3.0  # confessed to an evil role: odd, but believe it mostly
        elif (
            k.composition.get(role, 0) == 0
            or seat in a.guilty
            or (seat in a.results and role not in book.checker_roles)
        ):
            a.liars.add(seat)  # a role not in play, a known mafioso, results without a check
        elif private and role == k.role and seat not in k.allies:
            held = 1 + sum(1 for r in k.allies.values() if r == role)
            if held >= k.composition.get(role, 0):
                a.liars.add(seat)
    return order


def _conflicts(k: Knowledge, a: Assessment, order: dict[int, int]) -> None:
    """More claimers than cards: all unconfirmed claimers are doubtful, late ones more."""
    by_role: dict[str, list[int]] = defaultdict(list)
    for seat, role in a.role_claims.items():
        if seat not in a.liars:
            by_role[role].append(seat)
    for role, seats in by_role.items():
        confirmed = [s for s in seats if s in a.confirmed]
        rest = sorted((s for s in seats if s not in a.confirmed), key=lambda s: order[s])
        free = k.composition.get(role, 0) - len(confirmed)
        if free <= 0:
            a.liars.update(rest)
        elif len(rest) > free:
            for index, seat in enumerate(rest):
                a.conflicted.add(seat)
                a.sus[seat] += 1.5 + (0.5 if index >= free else 0.0)


def _credibility(
    k: Knowledge, book: RuleBook, a: Assessment, looks: frozenset[str], private: bool
) -> None:
    known: dict[int, str] = {s: book.appearance(r) for s, r in k.revealed.items()}
    if private:
        for result in k.results:
            if result.action == "check" and result.targets:
                known.setdefault(result.targets[0], result.result)
    for seat, role in a.role_claims.items():
        if role not in book.checker_roles or (private and seat == k.seat):
            continue
        support = 0
        for target, value in a.results.get(seat, {}).items():
            truth = known.get(target)
            if truth is None or truth == "no result":
                continue
            if (value in looks) != (truth in looks):
                a.liars.add(seat)
            else:
                support += 1
        cred = 0.4 if seat in a.conflicted else 1.0
        if seat in a.cleared:
            cred = 2.0
        elif support:
            cred = max(cred, 1.5)
        a.credibility[seat] = 0.0 if seat in a.liars else cred
    for seat in a.liars:
        if k.alive[seat]:
            a.sus[seat] += LIAR


def _apply_results(a: Assessment, looks: frozenset[str]) -> None:
    for seat, results in a.results.items():
        cred = a.credibility.get(seat, 0.0)
        if cred <= 0.0:
            if seat in a.guilty:  # a mafioso's lies point the other way
                for target, value in results.items():
                    a.sus[target] += -0.8 if value in looks else 0.6
            continue
        weight = CHECK_WEIGHT * cred * (3.0 if seat in a.confirmed else 1.0)
        for target, value in results.items():
            a.sus[target] += weight if value in looks else -weight


def _truths(a: Assessment) -> list[int]:
    """Per seat: 1 known evil, -1 known town, 0 unknown (guilt wins over clearance)."""
    truth = [0] * len(a.sus)
    for seat in a.cleared:
        truth[seat] = -1
    for seat in a.guilty:
        truth[seat] = 1
    return truth


def _judge(
    a: Assessment, truth: list[int], actor: int, target: int, hit: float, miss: float, tell: float
) -> None:
    """`actor` acted on `target`: judge the actor by the target's card and vice versa."""
    if truth[target] > 0:
        a.sus[actor] += hit
    elif truth[target] < 0:
        a.sus[actor] += miss
    if truth[actor] > 0:
        a.sus[target] += tell


def _social(mem: Memory, a: Assessment) -> None:
    truth = _truths(a)
    seen: set[tuple[int, int, str, int]] = set()
    for said in mem.said:
        claim, target = said.claim, said.claim.target
        if target is None or target == said.seat:
            continue
        key = (said.day, said.seat, claim.kind, target)
        if key in seen:
            continue
        seen.add(key)
        if claim.kind == "accuse":
            _judge(a, truth, said.seat, target, -0.4, 0.2, -0.4)
        elif claim.kind == "vouch":
            _judge(a, truth, said.seat, target, 1.0, -0.1, 0.6)
    rounds: dict[tuple[int, int], Counter[int]] = defaultdict(Counter)
    for day, round_no, _, target in mem.nominations:
        rounds[(day, round_no)][target] += 1
    for day, round_no, seat, target in mem.nominations:
        tally = rounds[(day, round_no)]
        share = tally[target] / max(1, sum(tally.values()))
        _judge(a, truth, seat, target, -0.5, 0.3 * (1.0 - share), -0.4)
    for ballot in mem.ballots:
        cast = [t for t in ballot.votes.values() if t is not None]
        tally = Counter(cast)
        evil_tally = [(other, count) for other, count in tally.items() if truth[other] > 0]
        for voter, target in ballot.votes.items():
            if target is None:
                continue
            share = tally[target] / len(cast)
            _judge(a, truth, voter, target, -0.8, 0.4 * (1.0 - share), -0.5)
            for other, count in evil_tally:  # stood apart from a vote on a mafioso
                if other != target:
                    a.sus[voter] += 0.3 * count / len(cast)


def _night_victims(mem: Memory, a: Assessment) -> None:
    """The mafia kill those who hunt them: the victims' targets become suspects."""
    victims = set(mem.killed_at_night())
    hunted: set[tuple[int, int]] = set()
    for said in mem.said:
        if said.seat in victims and said.claim.kind == "accuse" and said.claim.target is not None:
            hunted.add((said.seat, said.claim.target))
    for ballot in mem.ballots:
        hunted.update((v, t) for v, t in ballot.votes.items() if v in victims and t is not None)
    for _, target in hunted:
        a.sus[target] += 0.3


def grounded(mem: Memory, k: Knowledge) -> bool:
    """Is there any public evidence yet: a ballot cast, a card turned up, a death at
    night, a role or check claimed? (Before that, every accusation is a hunch.)"""
    if mem.ballots or k.revealed or mem.killed_at_night():
        return True
    return any(said.claim.kind in ("claim_role", "claim_result") for said in mem.said)


def momentum(mem: Memory, day: int, a: Assessment, *, evidence: bool = True) -> dict[int, float]:
    """Today's pressure on each seat: accusations and nominations by trusted seats.

    Without `evidence` (see `grounded`) the accusations on one seat count for at most
    `HUNCH_CAP` together."""
    pressure: dict[int, float] = defaultdict(float)
    hunches: dict[int, float] = defaultdict(float)
    seen: set[tuple[int, int, str]] = set()
    for said in mem.today(day):
        claim = said.claim
        if claim.target is None or (said.seat, claim.target, claim.kind) in seen:
            continue
        seen.add((said.seat, claim.target, claim.kind))
        weight = 1.0 if a.sus[said.seat] < 1.0 else 0.2
        if claim.kind == "accuse" and day <= 1:
            weight *= HUNCH  # a first-day accusation is a hunch: no facts behind it yet
        if claim.kind == "accuse" and not evidence:
            hunches[claim.target] += weight
        elif claim.kind in ("accuse", "claim_result"):
            sign = -1.0 if claim.kind == "claim_result" and claim.value == "innocent" else 1.0
            pressure[claim.target] += sign * weight
        elif claim.kind == "vouch":
            pressure[claim.target] -= 0.5 * weight
    for nom_day, _, seat, target in mem.nominations:
        if nom_day == day and (seat, target, "nominate") not in seen:
            seen.add((seat, target, "nominate"))
            pressure[target] += 1.0 if a.sus[seat] < 1.0 else 0.2
    for target, weight in hunches.items():
        pressure[target] += min(HUNCH_CAP, weight)
    return pressure
