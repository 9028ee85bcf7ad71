"""Persuasion: how often a stated intended vote differs from the vote.

An intent is the `intent` of a belief an agent stated (the log's ``meta["beliefs"]``,
dated on the host's timeline). It is matched with the seat's vote in the first ballot
after it on the same day.
"""

from __future__ import annotations

from typing import Any

from mafia_arena.metrics.facts import MAFIA, TOWN, GameFacts
from mafia_arena.metrics.ratios import Counts

PerSeat = dict[int, dict[str, Any]]


def persuasion(f: GameFacts) -> tuple[PerSeat, dict[str, Any]]:
    changed, off_mafia = Counts(), Counts()
    for seq, seat, target, day in f.intents:
        ballot = next(
            (b for b in f.ballots if b.seq > seq and b.day == day and seat in b.votes), None
        )
        if ballot is None:
            continue
        vote = ballot.votes[seat]
        changed.add(seat, vote != target)
        if ballot.sides[seat] == TOWN and target is not None and ballot.sides.get(target) == MAFIA:
            off_mafia.add(seat, vote is None or ballot.sides.get(vote) != MAFIA)
    per_seat = {
        s: {"intent_change_rate": changed.of(s), "intent_off_mafia_rate": off_mafia.of(s)}
        for s in range(f.players)
    }
    game = {"intent_change_rate": changed.total(), "intent_off_mafia_rate": off_mafia.total()}
    return per_seat, game
