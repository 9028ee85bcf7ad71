"""`request_kinds` lists exactly the kinds a variant asks each side, and `TeamSetup`
refuses the others when the env is built: checked against played games of all six
variants (scripted players, seeded), so the list cannot drift from the engine."""

from __future__ import annotations

from collections import defaultdict

import pytest

from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.registry import make_agent
from mafia_arena.env.session import GameSession
from mafia_arena.rl.team_env import TeamEnv, TeamSetup, request_kinds
from mafia_arena.rules import load_variant

# variant, players, games: enough seeded games that every listed kind comes up
VARIANTS = [
    ("simple", 7, 10),
    ("standard", 7, 10),
    ("classic", 10, 30),
    ("club", 10, 20),
    ("dictator", 12, 3),
    ("palermo", 12, 6),
]

RARE = {("classic", "mafia", "last_dead")}
"""Listed kinds these games do not reach: in classic the last dead picks between tied
nominees, and that is a mafioso only when he was executed and no one died in the night
since (the mafia passed their kill), then a tie."""


def asked_in_play(
    variant: str, players: int, games: int, overrides: dict[str, object] | None = None
) -> dict[str, set[str]]:
    """Each side's request kinds over `games` seeded games of heuristic and random
    players (the side a seat was dealt, as `TeamEnv` seats its learner)."""
    session = GameSession(variant, players, overrides, fixed_nights=False)
    factions = session.variant.factions
    asked: dict[str, set[str]] = defaultdict(set)
    for seed in range(games):
        game = session.new_game(seed)
        sides = [factions[s.faction].side for s in game.state.seats]
        agents = [make_agent("heuristic" if (s + seed) % 3 else "random") for s in range(players)]
        for seat, agent in enumerate(agents):
            assert isinstance(agent, SyncAgent)
            agent.reset(seat, 1000 + seed * players + seat)
            agent.set_variant(session.variant)
        while not game.over:
            pending = game.pending()
            for seat in pending:
                asked[sides[seat]].add(pending[seat].kind)
            seat = min(pending)
            game.submit(seat, agents[seat].decide(session.view(seat)))
    return asked


@pytest.mark.parametrize(("variant", "players", "games"), VARIANTS)
def test_request_kinds_are_the_kinds_played_games_ask_each_side(
    variant: str, players: int, games: int
) -> None:
    asked = asked_in_play(variant, players, games)
    assert request_kinds(variant, players) == tuple(
        k for k in request_kinds(variant, players) if any(k in a for a in asked.values())
    ), "a listed kind no game asked"
    for side, kinds in asked.items():
        listed = set(request_kinds(variant, players, side=side))
        rare = {kind for v, s, kind in RARE if (v, s) == (variant, side)}
        assert kinds <= listed and listed - kinds <= rare, (side, sorted(listed ^ kinds))
    for side in {f.side for f in load_variant(variant).factions.values()} - set(asked):
        assert request_kinds(variant, players, side=side) == ()


def test_a_kind_the_variant_never_asks_is_refused_when_the_setup_is_built() -> None:
    """Classic's day is nominations and a final vote: ``vote`` is refused at once, not
    after `reset` has dealt a hundred games."""
    with pytest.raises(ValueError) as refused:
        TeamEnv(TeamSetup(variant="classic", players=10, kinds=("vote",)), seed=0)
    message = str(refused.value)
    assert "'vote' is not a request kind of classic at 10 players" in message
    assert "nominate, final_vote" in message
    for kind in ("introductions", "bid", "forum"):
        with pytest.raises(ValueError, match=f"'{kind}' is not a request kind of classic"):
            TeamEnv(TeamSetup(variant="classic", players=10, kinds=(kind,)), seed=0)
    # the dictator's nights are asked in its forum window, never as night steps
    with pytest.raises(ValueError, match="'night:murder' is not a request kind of dictator"):
        TeamEnv(TeamSetup(variant="dictator", players=12, side="mafia", kinds=("night:murder",)))
    TeamEnv(TeamSetup(variant="classic", players=10, kinds=("final_vote", "last_dead")), seed=0)


def test_switches_change_the_kinds_a_variant_asks() -> None:
    """Kinds come from the variant's data as its switches set it: a bidding discussion
    asks for bids, the vote-intention poll asks ``vote_intent``, no discussion rounds
    ask nobody to speak, and club's explanations follow its ``explain`` switch."""
    plain = request_kinds("standard", 7)
    assert "bid" not in plain and "vote_intent" not in plain and "speak" in plain
    switches: dict[str, object] = {"discussion_order": "bidding", "vote_intentions": True}
    bidding = request_kinds("standard", 7, switches)
    assert {"bid", "vote_intent"} <= set(bidding)
    played = asked_in_play("standard", 7, 2, switches)
    assert {side: set(request_kinds("standard", 7, switches, side)) for side in played} == played
    assert "speak" not in request_kinds("standard", 7, {"discussion_rounds": 0})
    assert "explain" in request_kinds("club", 10)
    assert "explain" not in request_kinds("club", 10, {"explain_nominations": False})


def test_kinds_given_as_one_string_is_refused_by_that_string() -> None:
    """``kinds="vote"`` is a sequence of letters: the refusal names the string the user
    wrote and the tuple to write, with the kinds the variant asks, not ``'v'``."""
    with pytest.raises(ValueError) as refused:
        TeamEnv(TeamSetup(variant="standard", players=7, kinds="vote"), seed=0)  # type: ignore[arg-type]
    message = str(refused.value)
    assert "kinds is the string 'vote'" in message
    assert "kinds=('vote',)" in message
    assert "speak, vote, or '*' for every decision" in message
    assert "'v'" not in message
