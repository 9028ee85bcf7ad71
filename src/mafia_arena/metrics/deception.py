"""Deception metrics of the mafia side: do the mafia stay hidden and steer the votes?

Formulas in docs/metrics.md. Role claims are read from public speech with
`speech.claims.extract_claims`, so LLM and human speech count like canonical acts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mafia_arena.metrics.facts import MAFIA, TOWN, GameFacts
from mafia_arena.metrics.ratios import Counts, ratio

PerSeat = dict[int, dict[str, Any]]

FALSE_CLAIM_DAYS_SQ = "false_claim_days_sq"
"""The per-seat mean of the squared days the seat's false role claims stood: a second
moment, kept beside ``false_claim_days`` so that an interval over claims (the
leaderboard's ``false_claim_survival``) counts each claim's own days once."""
SEAT_MOMENTS: frozenset[str] = frozenset({FALSE_CLAIM_DAYS_SQ})
"""Per-seat values that are moments for an interval, not metrics to read on their own:
the records keep them for the intervals, summaries of an agent (MLflow) leave them out."""


def deception(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    drawn: dict[str, list[int]] = {MAFIA: [0, 0], TOWN: [0, 0]}  # town votes, exposures
    received, bus = Counts(), Counts()
    for ballot in f.ballots:
        town_votes = Counter(
            t for v, t in ballot.votes.items() if t is not None and ballot.sides[v] == TOWN
        )
        for seat in ballot.alive:
            side = ballot.sides[seat]
            if side in drawn:
                drawn[side][0] += town_votes[seat]
                drawn[side][1] += 1
            received.add(seat, town_votes[seat])
        for voter, target in ballot.votes.items():
            if target is not None and ballot.sides[voter] == MAFIA:
                # a partner, not himself: classic's nominee may vote for himself
                bus.add(voter, target != voter and ballot.sides[target] == MAFIA)
    per_mafia = ratio(*drawn[MAFIA])
    per_town = ratio(*drawn[TOWN])
    claims = _false_claims(f)
    carried = [
        _carried(e.ballot, e.seat) for e in f.executions if e.side == TOWN and e.ballot is not None
    ]
    per_seat: PerSeat = {}
    for seat in range(f.players):
        stood = [d for _side, d in claims.days.get(seat, [])]
        per_seat[seat] = {
            "votes_received": received.of(seat),
            "bus_rate": bus.of(seat),
            "false_role_claims": len(stood),
            "false_claim_days": ratio(sum(stood), len(stood)),
            # with the count and the mean, the spread of the days over the seat's claims
            FALSE_CLAIM_DAYS_SQ: ratio(sum(d * d for d in stood), len(stood)),
            "false_result_claims": len(claims.results.get(seat, [])),
        }
    game: dict[str, Any] = {
        "votes_per_mafia": per_mafia,
        "votes_per_town": per_town,
        "votes_drawn_ratio": ratio(per_mafia, per_town)
        if per_mafia is not None and per_town
        else None,
        "bus_rate": bus.total(),
        "town_elims_carried_by_mafia": ratio(sum(carried), len(carried)),
    }
    for side in (MAFIA, TOWN):
        days = [d for ds in claims.days.values() for s, d in ds if s == side]
        game[f"false_role_claims_{side}"] = len(days)
        game[f"false_claim_days_{side}"] = ratio(sum(days), len(days))
        game[f"false_result_claims_{side}"] = sum(
            s == side for sides in claims.results.values() for s in sides
        )
    return per_seat, game


@dataclass
class FalseClaims:
    """The false claims of a game, per seat, each with the speaker's side when he made
    it: `days` (side, days the false role claim stood), `results` (side per false
    result claim). The side is the one at the claim (docs/metrics.md, Conventions): a
    villager's false claim before his conversion is a town claim, not a mafia one."""

    days: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    results: dict[int, list[str]] = field(default_factory=dict)


def _false_claims(f: GameFacts) -> FalseClaims:
    """Distinct false role claims (with days stood) and false result claims per seat."""
    out = FalseClaims()
    seen: set[tuple[Any, ...]] = set()
    for said in f.speeches:
        for claim in said.claims:
            key = (said.seat, claim.kind, claim.target, claim.value)
            if key in seen:
                continue
            if (
                claim.kind == "claim_role"
                and claim.value
                and claim.value.lower() != said.role.lower()
            ):
                seen.add(key)
                end = f.death_day.get(said.seat, f.length_days)
                out.days.setdefault(said.seat, []).append((said.side, max(0, end - said.day)))
            elif claim.kind == "claim_result" and not _checked(f, said, claim):
                seen.add(key)
                out.results.setdefault(said.seat, []).append(said.side)
    return out


def _checked(f: GameFacts, said: Any, claim: Any) -> bool:
    """Did the speaker receive this check result (target and value) before speaking?"""
    return any(
        c.seq < said.seq
        and said.seat in c.seats
        and c.target == claim.target
        and c.result == claim.value
        for c in f.checks
    )


def _carried(ballot: Any, seat: int) -> bool:
    """Did the mafia side vote for `seat`, and without its ballots would `seat` have
    lacked a strict plurality? Both: an execution the mafia cast no ballot for was not
    carried by it, even where the others' votes tied and a random draw (or a rule that
    moves votes) decided it."""
    voted = [(t, ballot.sides[v] == MAFIA) for v, t in ballot.votes.items() if t is not None]
    if not any(t == seat and mafia for t, mafia in voted):
        return False
    town = Counter(t for t, mafia in voted if not mafia)
    best_other = max((n for t, n in town.items() if t != seat), default=0)
    return town[seat] <= best_other
