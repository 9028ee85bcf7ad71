"""Scripted players in the dictator game: whole games end, and the heuristic player
uses every channel and plays every role's forms."""

from __future__ import annotations

from collections import Counter

import pytest
from tests.dictator.table import C2, C3, Table, w
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import make_agent
from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.forum_words import REPLIES, every
from mafia_arena.engine import PASS, Game, Speech
from mafia_arena.engine.catalogue import (
    DecisionRecord,
    DeliveredTestament,
    GameEnded,
    Newspaper,
    PrivateMessage,
    PseudonymTransfer,
)
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.views import SeatTracker


def heuristic_game(players: int, seed: int) -> Game:
    variant = load_variant("dictator")
    game = Game(variant, players, seed)
    agents = [HeuristicAgent(strict=True) for _ in range(players)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, seed * 1000 + seat)
        agent.set_variant(variant)
    trackers = [SeatTracker(s) for s in range(players)]
    while not game.over:
        for seat in sorted(game.pending()):
            game.submit(seat, agents[seat].decide(trackers[seat].view(game)))
    return game


@pytest.mark.parametrize("players", [12, 18, 24])
def test_heuristic_games_end_with_a_winner_or_a_draw(players: int) -> None:
    for seed in range(3):
        game = heuristic_game(players, seed)
        assert isinstance(game.events[-1].fact, GameEnded)


def test_the_heuristic_player_uses_every_channel_and_role_form() -> None:
    used: Counter[str] = Counter()
    for seed in range(8):
        for event in heuristic_game(18, seed).events:
            fact = event.fact
            if isinstance(fact, PrivateMessage):
                used["group message" if len(fact.recipients) > 1 else "private message"] += 1
            elif isinstance(fact, Newspaper) and fact.texts:
                used["ad"] += 1
            elif isinstance(fact, PseudonymTransfer):
                used["transfer"] += 1
            elif isinstance(fact, DeliveredTestament):
                used["public testament" if fact.public else "private testament"] += 1
            elif isinstance(fact, DecisionRecord) and fact.kind == "forum":
                key = fact.choice or fact.act or ""
                used[key.split(":")[0]] += 1
    channels = {"private message", "group message", "ad", "transfer"}
    channels |= {"public testament", "private testament"}
    forms = {"ballot", "revolution", "execute", "murder", "point", "copy_status", "protect"}
    forms |= {"mark", "passport", "query", "compare", "successor", "post"}
    assert channels | forms <= set(used), (channels | forms) - set(used)


def test_random_players_finish_through_the_runner() -> None:
    variant = load_variant("dictator")
    result = play_match_sync(
        variant, [make_agent("random") for _ in range(12)], seed=5, host_key=FIXED_HOST_KEY
    )
    assert result.log.events[-1].kind == "game_over"


def test_the_heuristic_player_answers_a_private_message() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("Hello P13, whom do you trust?", "pm", C3)).phase()
    variant = t.game.variant
    agent = HeuristicAgent(strict=True)
    agent.reset(C3, 5)
    agent.set_variant(variant)
    tracker = SeatTracker(C3)
    replies = []
    while t.where == ("night", 1):
        for seat in sorted(t.game.pending()):
            if seat == C3:
                decision = agent.decide(tracker.view(t.game))
                replies.append(decision)
            else:
                decision = PASS
            t.game.submit(seat, decision)
    sent = [
        d for d in replies if isinstance(d, Speech) and d.act is not None and d.act.verb == "pm"
    ]
    assert sent
    first = sent[0]
    assert first.act is not None
    assert first.act.target == C2 and any(
        first.text.startswith(reply) for reply in every(REPLIES, s="P12")
    )
