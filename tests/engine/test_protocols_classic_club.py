"""The discussion-protocol and ballot switches of `classic` and `club` (issue 16 item 6):
each switch on, a whole game with random players plays to the end, the protocol shows
in the game's log, and the log replays to the same events."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    Ballot,
    FloorGranted,
    GameEnded,
    RandomDraw,
    VoteIntentions,
    Votes,
)
from mafia_arena.engine.choices import Choice, Request
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog, replay

Pending = list[dict[int, Request]]


def play(variant: str, switches: dict[str, Any], seed: int) -> tuple[Game, Pending]:
    """A 10-player game of random players to the end; returns it and every pending map."""
    game = Game(load_variant(variant, switches), 10, seed)
    rng = random.Random(seed)
    seen: Pending = []
    while not game.over:
        pending = game.pending()
        seen.append(dict(pending))
        for seat, request in sorted(pending.items()):
            choice: Choice = rng.choice(request.choices)
            game.submit(seat, choice)
    return game, seen


def _drawn_order(game: Game, seen: Pending) -> bool:
    return any(
        isinstance(e.fact, RandomDraw) and "speaking order" in e.fact.purpose for e in game.events
    )


def _floor(game: Game, seen: Pending) -> bool:
    return any(isinstance(e.fact, FloorGranted) for e in game.events)


def _parallel(game: Game, seen: Pending) -> bool:
    speak = [p for p in seen if p and all(r.kind == "speak" for r in p.values())]
    return any(len(p) > 1 for p in speak)  # a discussion round asked of everyone at once


def _polls(game: Game, seen: Pending) -> bool:
    polls = [e for e in game.events if isinstance(e.fact, VoteIntentions)]
    return bool(polls) and all(e.visibility.scope == "host" for e in polls)


def _public_ballots(game: Game, seen: Pending) -> bool:
    finals = [p for p in seen if p and all(r.kind == "final_vote" for r in p.values())]
    return (
        any(isinstance(e.fact, Ballot) for e in game.events)
        and bool(finals)
        and all(len(p) == 1 for p in finals)
    )


def _secret_ballots(game: Game, seen: Pending) -> bool:
    finals = [p for p in seen if p and all(r.kind == "final_vote" for r in p.values())]
    votes = [e.fact for e in game.events if isinstance(e.fact, Votes) and e.fact.kind]
    return (
        not any(isinstance(e.fact, Ballot) for e in game.events)
        and any(len(p) > 1 for p in finals)
        and any(v.kind == "final_vote" for v in votes)
    )


Check = Callable[[Game, Pending], bool]
SWITCHES: dict[str, tuple[dict[str, Any], Check]] = {
    "random order": ({"discussion_order": "random"}, _drawn_order),
    "bidding": ({"discussion_order": "bidding"}, _floor),
    "parallel": ({"discussion_order": "parallel"}, _parallel),
    "intentions": ({"vote_intentions": True}, _polls),
}
BALLOTS: dict[str, tuple[str, Check]] = {
    "classic": ("sequential", _public_ballots),
    "club": ("simultaneous", _secret_ballots),
}


@pytest.mark.parametrize("variant", ["classic", "club"])
@pytest.mark.parametrize("protocol", [*SWITCHES, "other ballot"])
def test_each_protocol_switch_plays_a_whole_game_and_shows_in_the_log(
    variant: str, protocol: str
) -> None:
    if protocol == "other ballot":
        ballot, check = BALLOTS[variant]
        switches: dict[str, Any] = {"ballot": ballot}
    else:
        switches, check = SWITCHES[protocol]
    for seed in (1, 2):
        game, seen = play(variant, switches, seed)
        assert game.over and isinstance(game.events[-1].fact, GameEnded)
        assert check(game, seen), (variant, protocol, seed)
        again = replay(GameLog.from_game(game))
        assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]


@pytest.mark.parametrize("variant", ["classic", "club"])
def test_the_rule_books_ballot_is_the_default(variant: str) -> None:
    game, _seen = play(variant, {}, 3)
    public = any(isinstance(e.fact, Ballot) for e in game.events)
    # classic 5.2: a show of hands, published once all are in; club 6.5: public in turn
    assert public is (variant == "club")
