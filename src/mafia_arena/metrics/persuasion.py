"""Persuasion: how often a stated intended vote differs from the vote, and how far each
message moved the table's intended votes.

An intent is the `intent` of a belief an agent stated (the log's ``meta["beliefs"]``,
dated on the host's timeline). It is matched with the seat's vote in the first ballot
after it on the same day.

Vote swings come from the discussion's ``intentions`` polls (`VoteIntentions`): every
living seat's synthetic vote before the day's first statement and after each one. A
message's swing compares the poll after it with the poll before it, over the
*listeners* (seats polled both times, the speaker left out); a ``parallel`` round's poll
names all its speakers and counts only at the game level.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from mafia_arena.metrics.facts import MAFIA, TOWN, GameFacts, Poll
from mafia_arena.metrics.ratios import Counts, ratio

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
    per_seat: PerSeat = {
        s: {"intent_change_rate": changed.of(s), "intent_off_mafia_rate": off_mafia.of(s)}
        for s in range(f.players)
    }
    game: dict[str, Any] = {
        "intent_change_rate": changed.total(),
        "intent_off_mafia_rate": off_mafia.total(),
    }
    swings = vote_swings(f.polls)
    for seat in range(f.players):
        per_seat[seat].update(swings.of_speaker(seat))
    game.update(swings.totals())
    return per_seat, game


class _Swings:
    """Per-speaker and whole-game sums of the message swings (module docstring)."""

    def __init__(self) -> None:
        self.changed, self.pull, self.onto_mafia = Counts(), Counts(), Counts()
        self.all_changed = 0.0
        self.all_listeners = 0.0
        self.by_side: dict[str, list[float]] = {TOWN: [0.0, 0.0], MAFIA: [0.0, 0.0]}

    def of_speaker(self, seat: int) -> dict[str, float | None]:
        return {
            "vote_swing": self.changed.of(seat),
            "vote_pull": self.pull.of(seat),
            "swing_onto_mafia": self.onto_mafia.of(seat),
        }

    def totals(self) -> dict[str, float | None]:
        town, mafia = self.by_side[TOWN], self.by_side[MAFIA]
        return {
            "vote_swing_per_message": ratio(self.all_changed, self.all_listeners),
            "swing_onto_mafia_by_town": ratio(town[0], town[1]),
            "swing_onto_mafia_by_mafia": ratio(mafia[0], mafia[1]),
        }


def _on_mafia(poll: Poll, seat: int) -> bool:
    target = poll.intents[seat]
    return target is not None and poll.sides.get(target) == MAFIA


def vote_swings(polls: list[Poll]) -> _Swings:
    """Compare each poll with the one before it on the same day (module docstring)."""
    out = _Swings()
    for before, after in pairwise(polls):
        if before.day != after.day or not after.after:
            continue
        speakers = set(after.after)
        listeners = [s for s in after.intents if s in before.intents and s not in speakers]
        if not listeners:
            continue
        moved = sum(before.intents[s] != after.intents[s] for s in listeners)
        out.all_changed += moved
        out.all_listeners += len(listeners)
        if len(speakers) != 1:
            continue
        (speaker,) = speakers
        n = float(len(listeners))
        out.changed.add(speaker, moved, n)
        target = after.intents.get(speaker)
        if target is not None:
            drawn = sum(after.intents[s] == target for s in listeners)
            drawn -= sum(before.intents[s] == target for s in listeners)
            out.pull.add(speaker, drawn, n)

        net = sum(_on_mafia(after, s) for s in listeners) - sum(
            _on_mafia(before, s) for s in listeners
        )
        out.onto_mafia.add(speaker, net, n)
        side = after.sides.get(speaker, TOWN)
        tally = out.by_side.setdefault(side, [0.0, 0.0])
        tally[0] += net
        tally[1] += n
    return out
