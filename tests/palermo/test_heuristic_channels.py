"""The heuristic in Palermo's private channels (2.4) and with a snitch to withdraw (8.1)."""

from __future__ import annotations

import re

from tests.agents.support import play_heuristic
from tests.palermo.table import P, Table

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine import Choice, Game
from mafia_arena.engine.catalogue import Narration, SpeechMade
from mafia_arena.rules import load_variant
from mafia_arena.views import view_of

VARIANT = load_variant("palermo")


def heuristic_game(players: int, seed: int, deal: list[str] | None = None) -> Game:
    """A game of heuristic seats only (strict: a strategy error fails the test)."""
    return play_heuristic(Game(VARIANT, players, seed, deal=deal))


def test_the_mafia_propose_a_victim_in_their_channel_and_kill_the_first_proposal() -> None:
    posts = {"mafia": 0, "roommates": 0}
    nights = 0
    for seed in range(4):
        game = heuristic_game((12, 16, 20, 24)[seed], seed)
        proposals: dict[int, dict[int, int]] = {}
        standing: dict[int, int] = {}
        for event in game.events:
            fact = event.fact
            if isinstance(fact, SpeechMade) and event.visibility.channel is not None:
                members = set(event.visibility.seats)
                assert fact.seat in members and len(members) < game.players
                posts[event.visibility.channel] += 1
                kill = re.search(r"\bkill P(\d+)\b", fact.text)
                if kill:
                    assert event.visibility.channel == "mafia"
                    proposals.setdefault(event.day, {})[fact.seat] = int(kill.group(1)) - 1
            if isinstance(fact, Narration) and fact.step == "assassination":
                target = re.search(r"assassination: P(\d+)", fact.text)
                assert target is not None
                standing[event.day] = int(target.group(1)) - 1
        for day, aims in proposals.items():
            if day in standing:
                nights += 1
                assert standing[day] == aims[min(aims)], (seed, day)
    assert posts["mafia"] > 0 and posts["roommates"] > 0 and nights >= 4


def test_a_snitcher_withdraws_a_declaration_that_became_a_sure_miss() -> None:
    t = Table(hands={16: "immediate_imprisonment"}, keep={3, 14, 16})
    agent = HeuristicAgent(7, strict=True)
    agent.reset(P(3), 7)
    t.until(3, "night_early")
    declared = Choice("snitch", P(14), "simple")
    # P3 declares, then P16's card imprisons the named player in the same move round
    t.step({3: declared.key, 16: f"immediate_imprisonment:{P(14)}"})
    assert P(3) in t.ps.declarations and t.state(14).value == "imprisoned"
    agent.notes["palermo_snitch"] = (declared, 3)  # what the agent notes when it declares
    decision = agent.decide(view_of(t.game, P(3)))
    assert decision == Choice("withdraw_snitch")
    assert t.state(16).value == "active"
    kept = HeuristicAgent(7, strict=True)
    kept.reset(P(3), 7)
    kept.notes["palermo_snitch"] = (Choice("snitch", P(16), "simple"), 3)
    assert kept.decide(view_of(t.game, P(3))) != Choice("withdraw_snitch")  # P16 is Active
