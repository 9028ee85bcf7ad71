"""Which transcript lines a stand-in made: the speech and votes of a seat's stand-in.

The log marks every decision with who made it (``decided_by``: ``player``, ``bot``,
``stand-in``, ``timeout``; `GameSession.marks`). A decision's visible effect is a later
event: the seat's speech, its nomination or ballot, or the published votes that hold
its ballot. `StandInMoves` pairs them: a seat's last decision stays open until the
seat's next one, and the speech (for a speaking decision) or vote events (for a choice)
of that seat in between are the stand-in's when the open decision was. A seat's
speech or vote always follows a decision of its own, so nothing is credited to the
stand-in that the person made.

Keys are the facts' identities (`id`): the facts are shared by the host's events and
every seat's view of them (`SeatEvent.fact`), so a seat's page, the replay and the
moderator's view look lines up the same way. The tag is public: who plays for an absent
person is a public notice, and a tagged line is one the seat could already read.

`round_answers` reads the same marks for a round of team picks: how each member asked
answered (their own pick, a stand-in's, a default for a timeout or an absence), which
the request for the next round says to the team (`views.people_text.team_round_prompt`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from mafia_arena.engine.catalogue import (
    Ballot,
    DecisionRecord,
    Fact,
    GroupPicks,
    Nomination,
    SpeechMade,
    Votes,
)
from mafia_arena.engine.events import Event
from mafia_arena.views.text import name

TAG = " (stand-in)"

Moves = Mapping[int, Collection[int]]
"""`id(fact)` → the seats whose part of that fact a stand-in made."""


def _actors(fact: Fact) -> tuple[int, ...]:
    """The seats whose own decision a speech or vote event shows."""
    if isinstance(fact, SpeechMade | Ballot | Nomination):
        return (fact.seat,)
    if isinstance(fact, Votes):
        return tuple(fact.votes)
    return ()


class StandInMoves:
    """The stand-in's speech and vote facts of one game, found as the log grows.

    `update` reads the events not read yet; it stops before a decision whose mark is
    not recorded yet (and reads on from there next time)."""

    def __init__(self) -> None:
        self.cursor = 0
        self.decision = 0
        self.open: dict[int, bool] = {}
        """Seats whose last decision was the stand-in's → whether it was a speech."""
        self.moves: dict[int, set[int]] = {}

    def update(self, events: Sequence[Event], marks: Sequence[str]) -> Moves:
        while self.cursor < len(events):
            fact = events[self.cursor].fact
            if isinstance(fact, DecisionRecord):
                if self.decision >= len(marks):
                    break  # its mark comes with the next `GameSession.record`
                by = marks[self.decision]
                self.decision += 1
                if not fact.host:
                    if by == "stand-in":
                        self.open[fact.seat] = fact.text is not None
                    else:
                        self.open.pop(fact.seat, None)
            else:
                for seat in _actors(fact):
                    speech = self.open.get(seat)
                    if speech is not None and speech == isinstance(fact, SpeechMade):
                        self.moves.setdefault(id(fact), set()).add(seat)
            self.cursor += 1
        return self.moves


def stand_in_moves(events: Sequence[Event], marks: Sequence[str]) -> Moves:
    """The stand-in's facts of a whole log (the replay, the moderator's view)."""
    return StandInMoves().update(events, marks)


def tag(text: str, fact: Fact, moves: Moves | None) -> str:
    """`text` (the rendering of `fact`) with " (stand-in)" after each seat a stand-in
    played in it: the speaker, nominator or voter."""
    seats = moves.get(id(fact)) if moves else None
    if not seats:
        return text
    for seat in sorted(seats):
        label = re.escape(name(seat))
        if isinstance(fact, Votes):  # "P3→P1": the voter, before the arrow
            text = re.sub(rf"\b{label}(?=→)", name(seat) + TAG, text, count=1)
        else:  # the acting seat is the first one named
            text = re.sub(rf"\b{label}(?!\d)", name(seat) + TAG, text, count=1)
    return text


def round_answers(
    events: Sequence[Event], marks: Sequence[str], picks: Fact
) -> dict[int, str] | None:
    """How each member asked in the round of team picks `picks` answered
    (`views.people_text.Answered`): its mark (``player``, ``bot``, ``stand-in``) or the
    reason its default was played (``timeout``, ``absent``, a bot's fallback), and
    ``removed`` for a member disqualified after answering; None where `picks` is not in
    `events`.

    Read from the host's records of the round: the decisions of the step's kind before
    its `GroupPicks` event, back to the previous round's picks or a decision of another
    kind (the night's talk, an earlier step). A member's latest record counts: one whose
    pick named a player removed meanwhile is asked again. Who was asked comes from the
    records alone, never from the picks: a blocked teammate is not asked and has none."""
    at = next((i for i in range(len(events) - 1, -1, -1) if events[i].fact is picks), None)
    if at is None or not isinstance(picks, GroupPicks):
        return None
    kind = f"night:{picks.step}"
    decided = sum(isinstance(e.fact, DecisionRecord) for e in events[:at])
    how: dict[int, str] = {}
    for event in reversed(events[:at]):
        fact = event.fact
        if isinstance(fact, GroupPicks) and fact.step == picks.step:
            break
        if not isinstance(fact, DecisionRecord):
            continue
        decided -= 1  # this record's place among the decisions, and so its mark
        if fact.host:
            if fact.kind == "disqualify":
                how.setdefault(fact.seat, "removed")
            continue
        if fact.kind != kind:
            break
        mark = marks[decided] if decided < len(marks) else "player"
        how.setdefault(fact.seat, fact.fallback or mark)
    return how
