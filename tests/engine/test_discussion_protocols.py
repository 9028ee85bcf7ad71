"""Discussion protocols and ballots (issue 16 item 6), on the engine: round-robin, random
order, bidding for the floor, parallel statements, sequential public ballots, and the
per-statement vote intentions that never count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    Ballot,
    FloorGranted,
    PhaseStart,
    RandomDraw,
    SpeechMade,
    VoteIntentions,
    Votes,
)
from mafia_arena.engine.choices import Choice, Decision, Request, Speech
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog, replay
from mafia_arena.views.view import SeatTracker

Policy = Callable[[Game, int, Request], Decision]


def first_choice(game: Game, seat: int, request: Request) -> Decision:
    return request.choices[0]


def play_day_one(switches: dict[str, Any], policy: Policy = first_choice, seed: int = 1):
    """Play a 7-player standard game through Day 1's vote; returns the game, the pending
    maps seen during Day 1 and the seats alive when Day 1 began."""
    game = Game(load_variant("standard", {"discussion_rounds": 2, **switches}), 7, seed)
    seen: list[dict[int, Request]] = []
    living: set[int] = set()
    while not game.over:
        pending = game.pending()
        if game.state.day == 1 and game.state.phase == "day":
            if not seen:
                living = set(game.state.living())
            seen.append(dict(pending))
        for seat, request in sorted(pending.items()):
            game.submit(seat, policy(game, seat, request))
        if any(isinstance(e.fact, Votes) for e in game.events):
            break
    return game, seen, living


def day_one_speeches(game: Game) -> list[SpeechMade]:
    return [
        e.fact
        for e in game.events
        if isinstance(e.fact, SpeechMade) and e.day == 1 and e.fact.kind == "discussion"
    ]


def test_round_robin_is_seat_order_from_the_first_speaker_by_default() -> None:
    game, seen, living = play_day_one({})
    speakers = [f.seat for f in day_one_speeches(game)]
    first = game.state.first_speaker
    assert first is not None
    one_round = sorted(speakers[: len(speakers) // 2])
    order = [s for s in one_round if s >= first] + [s for s in one_round if s < first]
    assert speakers == order * 2 and set(order) <= set(living)
    assert all(len(p) == 1 for p in seen if "speak" in {r.kind for r in p.values()})


def test_random_order_draws_each_round_and_replays() -> None:
    orders = set()
    for seed in range(1, 6):
        game, _, _living = play_day_one({"discussion_order": "random"}, seed=seed)
        speakers = [f.seat for f in day_one_speeches(game)]
        half = len(speakers) // 2
        assert sorted(speakers[:half]) == sorted(speakers[half:])  # each speaks once a round
        orders.add(tuple(speakers[:half]))
        draws = [
            e.fact
            for e in game.events
            if isinstance(e.fact, RandomDraw) and "speaking order" in e.fact.purpose
        ]
        assert len(draws) == 2 and draws[0].result == speakers[:half]
        again = replay(GameLog.from_game(game))
        assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
    assert len(orders) > 1  # not the seat order every time


def test_bidding_gives_the_floor_to_the_highest_bid_and_ties_to_the_named() -> None:
    def policy(game: Game, seat: int, request: Request) -> Decision:
        if request.kind == "bid":
            assert [c.key for c in request.choices][:2] == ["pass", "bid::1"]
            assert request.labels == ("bid 0", "bid 1", "bid 2", "bid 3", "bid 4")
            top = request.choices[-1]
            return top if seat in (high, named) else request.choices[0]
        if request.kind == "speak":
            return Speech(f"I think P{named + 1} is worth hearing.")
        return request.choices[0]

    game = Game(load_variant("standard", {"discussion_order": "bidding"}), 7, 1)
    while game.state.phase != "day":
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, request.choices[0])
    living = sorted(game.state.living())
    high, named = living[-1], living[0]
    floors: list[FloorGranted] = []
    while not any(isinstance(e.fact, Votes) for e in game.events):
        pending = game.pending()
        if all(r.kind == "bid" for r in pending.values()):
            assert set(pending) == set(game.state.living())  # every speaker bids at once
        for seat, request in sorted(pending.items()):
            game.submit(seat, policy(game, seat, request))
        floors = [e.fact for e in game.events if isinstance(e.fact, FloorGranted)]
    assert len(floors) == 2 * len(living)  # as many statements as speakers, each round
    assert floors[0].tied == (named, high) and floors[0].bid == 4
    # the first statement: nobody was named yet, so the tie is drawn; from then on every
    # statement names `named`, who takes every tie
    assert all(f.seat == named for f in floors[1:])
    public = [e for e in game.events if isinstance(e.fact, FloorGranted)]
    assert all(e.visibility.scope == "public" for e in public)


def test_parallel_statements_are_asked_at_once_and_published_together() -> None:
    game, seen, living = play_day_one({"discussion_order": "parallel"})
    speak_rounds = [p for p in seen if p and all(r.kind == "speak" for r in p.values())]
    assert len(speak_rounds) == 2
    assert all(set(p) == living for p in speak_rounds)
    speeches = day_one_speeches(game)
    half = len(speeches) // 2
    assert [f.seat for f in speeches[:half]] == sorted(f.seat for f in speeches[:half])
    # nothing of a round was published before every statement of it was in
    kinds = [e.kind for e in game.events if e.day == 1 and e.phase == "day"]
    first = kinds.index("speech")
    assert kinds[first : first + half] == ["speech"] * half


def test_sequential_ballots_are_public_one_voter_at_a_time() -> None:
    game, seen, _living = play_day_one({"ballot": "sequential"})
    votes = [p for p in seen if p and all(r.kind == "vote" for r in p.values())]
    assert votes and all(len(p) == 1 for p in votes)  # one voter at a time
    voters = [next(iter(p)) for p in votes]
    first = game.state.first_speaker
    assert voters[0] == first
    ballots = [e for e in game.events if isinstance(e.fact, Ballot) and e.day == 1]
    assert [e.fact.seat for e in ballots] == voters  # nobody abstains in standard
    assert all(e.visibility.scope == "public" for e in ballots)
    tallies = [sum(e.fact.tally.values()) for e in ballots]
    assert tallies == list(range(1, len(ballots) + 1))  # the running tally
    final = next(e.fact for e in game.events if isinstance(e.fact, Votes))
    assert {s: t for s, t in final.votes.items()} == {e.fact.seat: e.fact.target for e in ballots}
    # the second voter's view, at its turn, shows the first ballot
    tracker = SeatTracker(voters[1])
    lines = tracker.view(game).knowledge.text()
    assert f"P{voters[0] + 1} votes against P{ballots[0].fact.target + 1}." in lines


def test_the_simultaneous_ballot_is_asked_of_everyone_at_once() -> None:
    game, seen, living = play_day_one({})
    votes = [p for p in seen if p and all(r.kind == "vote" for r in p.values())]
    assert len(votes) == 1 and set(votes[0]) == living
    assert not any(isinstance(e.fact, Ballot) for e in game.events)


def test_vote_intentions_follow_every_statement_host_only() -> None:
    def policy(game: Game, seat: int, request: Request) -> Decision:
        if request.kind == "vote_intent":
            assert request.labels[0] == "undecided"
            return request.choices[1 + seat % (len(request.choices) - 1)]
        return request.choices[0]

    game, seen, living = play_day_one({"vote_intentions": True}, policy)
    polls = [e for e in game.events if isinstance(e.fact, VoteIntentions)]
    speeches = day_one_speeches(game)
    assert len(polls) == len(speeches) + 1
    assert polls[0].fact.after == () and polls[0].fact.statement == 0
    assert [p.fact.after for p in polls[1:]] == [(f.seat,) for f in speeches]
    assert [p.fact.statement for p in polls] == list(range(len(polls)))
    for poll in polls:
        assert poll.visibility.scope == "host"
        assert set(poll.fact.intents) == living
        assert all(t is None or (t in living and t != s) for s, t in poll.fact.intents.items())
    asked = [p for p in seen if p and all(r.kind == "vote_intent" for r in p.values())]
    assert len(asked) == len(polls) and all(set(p) == living for p in asked)
    for seat in range(7):  # no seat is ever shown a poll
        knowledge = SeatTracker(seat).view(game).knowledge
        assert not any(isinstance(e.fact, VoteIntentions) for e in knowledge.events)
    again = replay(GameLog.from_game(game))
    assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]


def test_intentions_after_a_parallel_round_name_every_speaker() -> None:
    game, _, living = play_day_one({"vote_intentions": True, "discussion_order": "parallel"})
    polls = [e.fact for e in game.events if isinstance(e.fact, VoteIntentions)]
    assert len(polls) == 3  # before, and after each of the two rounds
    assert polls[1].after == tuple(sorted(living))


def test_protocol_switches_keep_whole_games_legal() -> None:
    import random

    for switches in (
        {"discussion_order": "bidding", "ballot": "sequential", "vote_intentions": True},
        {"discussion_order": "random", "abstain": True, "ballot": "sequential"},
    ):
        for seed in range(3):
            game = Game(load_variant("standard", switches), 8, seed)
            rng = random.Random(seed)
            while not game.over:
                for seat, request in sorted(game.pending().items()):
                    choice: Choice = rng.choice(request.choices)
                    game.submit(seat, choice)
            assert any(isinstance(e.fact, PhaseStart) for e in game.events)
            again = replay(GameLog.from_game(game))
            assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
