"""The heuristic only makes legal decisions, replays deterministically, and decides
from its view alone — across every bundled variant and several player counts."""

from __future__ import annotations

import pytest
from tests.agents.support import by_side, play_strict
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import RandomAgent, make_agent, scripted_agent_names
from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.runner import GameLog, play_match_sync
from mafia_arena.seat_seeds import seat_seed
from mafia_arena.views.view import view_of

COUNTS = {
    "simple": [3, 4, 6, 9, 13],
    "standard": [5, 6, 7, 9, 12],
    "classic": [7, 8, 9, 10, 13, 16],
}
CASES = [(v, n) for v, counts in COUNTS.items() for n in counts]


def strict() -> HeuristicAgent:
    return HeuristicAgent(strict=True)


def seating(variant: str, n: int, seed: int, mix: str) -> list:
    if mix == "all":
        return [strict() for _ in range(n)]
    if mix == "town":
        return by_side(variant, strict, RandomAgent, n)
    if mix == "mafia":
        return by_side(variant, RandomAgent, strict, n)
    # alternate heuristic and random seats, shifted by the seed
    return [HeuristicAgent(strict=True) if (i + seed) % 2 else RandomAgent() for i in range(n)]


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_every_decision_is_legal(variant: str, players: int) -> None:
    spec = load_variant(variant)
    games = 24 if players <= 10 else 10
    for seed in range(games):
        mix = ("all", "town", "mafia", "alternate")[seed % 4]
        agents = seating(variant, players, seed, mix)
        game = play_strict(Game(spec, players, seed), agents)
        assert game.over
        for agent in agents:
            assert agent.stats.extra.get("errors", 0) == 0
            assert agent.stats.fallbacks == 0


def test_registered_and_built_by_name() -> None:
    assert "heuristic" in scripted_agent_names()
    agent = make_agent("heuristic")
    assert isinstance(agent, HeuristicAgent) and agent.name == "heuristic"


@pytest.mark.parametrize("variant", sorted(COUNTS))
def test_same_seed_same_log(variant: str) -> None:
    players = COUNTS[variant][2]
    spec = load_variant(variant)

    def log(seed: int) -> str:
        agents = [HeuristicAgent() for _ in range(players)]
        return play_match_sync(spec, agents, seed, host_key=FIXED_HOST_KEY).log.to_jsonl()

    for seed in (1, 2, 3):
        assert log(seed) == log(seed)
    assert len({log(seed) for seed in (1, 2, 3)}) == 3


def test_reused_agents_replay_identically() -> None:
    """`reset` wipes everything a previous game left in the agent."""
    spec = load_variant("standard")
    agents = [HeuristicAgent() for _ in range(7)]
    first = play_match_sync(spec, agents, 5, host_key=FIXED_HOST_KEY).log.to_jsonl()
    play_match_sync(spec, agents, 6, host_key=FIXED_HOST_KEY)
    assert play_match_sync(spec, agents, 5, host_key=FIXED_HOST_KEY).log.to_jsonl() == first


@pytest.mark.parametrize("variant", sorted(COUNTS))
def test_decides_from_the_view_alone(variant: str) -> None:
    """Fresh views rebuilt from the log give the same decisions as tracked views."""
    players = COUNTS[variant][1]
    spec = load_variant(variant)
    for seed in range(3):
        agents = [HeuristicAgent() for _ in range(players)]
        tracked = play_match_sync(spec, agents, seed, host_key=FIXED_HOST_KEY)
        agents = [HeuristicAgent() for _ in range(players)]
        for seat, agent in enumerate(agents):
            agent.reset(seat, seat_seed(FIXED_HOST_KEY, seed, seat))
        game = Game(spec, players, seed)
        while not game.over:
            for seat in sorted(game.pending()):
                game.submit(seat, agents[seat].decide(view_of(game, seat)))
        assert GameLog.from_game(game).events == tracked.log.events


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        (
            "standard",
            {
                "mafia_chat_rounds": 1,
                "doctor_repeat": False,
                "doctor_self": False,
                "abstain": True,
                "vote_tie": "none",
            },
        ),
        ("standard", {"reveal_on_death": False, "discussion_rounds": 1}),
        ("simple", {"first_phase": "day", "mafia_win": "sole_survivors"}),
        ("classic", {"mafia_rounds": 1, "detective_rounds": 1, "discussion_rounds": 2}),
    ],
)
def test_legal_under_switches(variant: str, overrides: dict) -> None:
    spec = load_variant(variant, overrides)
    for seed in range(12):
        players = 9 if variant == "classic" else 8
        agents = seating(variant, players, seed, ("all", "alternate")[seed % 2])
        assert play_strict(Game(spec, players, seed), agents).over
