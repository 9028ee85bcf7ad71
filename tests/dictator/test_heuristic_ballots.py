"""The heuristic town's office ballots in dictator: the citizens who hold the same
cleared results name one seat (the lowest cleared) instead of scattering, never a seat
they suspect, and without a clear each names himself."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import cast

from mafia_arena.agents.heuristic.context import Context
from mafia_arena.agents.heuristic.forum import Reading, ballot

SEATS = list(range(12))


def reading(cleared: set[int], guilty: dict[int, int] | None = None) -> Reading:
    """A reading with only what a ballot consults: results, suspicions, the office."""
    read = Reading.__new__(Reading)
    read.cleared = set(cleared)
    read.guilty = dict(guilty or {})
    read.own_guilty = []
    read.dictator = None
    read.citizen_executions = 0
    return read


def town_seat(me: int, seed: int, day: int = 0) -> Context:
    return cast(Context, SimpleNamespace(me=me, rng=random.Random(seed), town=True, day=day))


def test_every_citizen_holding_the_same_clears_elects_the_lowest_cleared_seat() -> None:
    read = reading({9, 5, 7})
    picks = {
        ballot(town_seat(me, seed), read, [], SEATS)
        for me in SEATS
        if me not in read.cleared
        for seed in range(20)
    }
    assert picks == {5}


def test_a_revolution_ballot_gathers_on_the_lowest_cleared_seat_too() -> None:
    read = reading({3, 8})
    read.dictator, read.citizen_executions = 0, 2
    targets = [s for s in SEATS if s != 0]
    picks = {
        ballot(town_seat(me, seed, day=3), read, [], targets) for me in (1, 6) for seed in range(20)
    }
    assert picks == {3}


def test_a_cleared_seat_the_citizen_suspects_is_passed_over() -> None:
    read = reading({2, 6}, guilty={2: 1})
    assert {ballot(town_seat(10, seed), read, [], SEATS) for seed in range(10)} == {6}


def test_without_a_clear_each_citizen_names_himself() -> None:
    read = reading(set())
    assert [ballot(town_seat(me, 0), read, [], SEATS) for me in SEATS] == SEATS
