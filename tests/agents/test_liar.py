"""`heuristic:liar`: as mafia it claims an investigator's role and fakes check results."""

from __future__ import annotations

from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.catalogue import GameEnded, SpeechMade
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync
from mafia_arena.speech.claims import extract_claims


def claims_by_side(agent: str, games: int = 30) -> dict[str, dict[str, int]]:
    variant = load_variant("standard")
    counts = {"town": {"role": 0, "false_role": 0}, "mafia": {"role": 0, "false_role": 0}}
    counts["mafia"]["framed_town"] = 0
    for seed in range(games):
        agents = [make_agent(agent) for _ in range(7)]
        result = play_match_sync(variant, agents, seed, host_key=b"test_liar host key, fixed: 0123")
        game_over = next(e for e in result.log.events if e.kind == "game_over")
        assert isinstance(game_over.fact, GameEnded)
        roles = dict(game_over.fact.roles)
        for event in result.log.events:
            if event.kind != "speech" or event.visibility.scope != "public":
                continue
            fact = event.fact
            assert isinstance(fact, SpeechMade)
            seat = fact.seat
            side = "mafia" if roles[seat] == "mafioso" else "town"
            for claim in extract_claims(fact.text, variant.roles):
                if claim.kind == "claim_role":
                    counts[side]["role"] += 1
                    counts[side]["false_role"] += claim.value != roles[seat]
                if claim.kind == "claim_result" and side == "mafia":
                    assert claim.target is not None
                    target_side = "mafia" if roles[claim.target] == "mafioso" else "town"
                    framed = claim.value == "mafia" and target_side == "town"
                    counts["mafia"]["framed_town"] += framed
    return counts


def test_the_liar_claims_falsely_as_mafia_and_frames_town_players() -> None:
    counts = claims_by_side("heuristic:liar")
    assert counts["mafia"]["false_role"] >= 20
    assert counts["mafia"]["framed_town"] >= 20


def test_the_liar_as_town_never_claims_a_role_it_does_not_hold() -> None:
    counts = claims_by_side("heuristic:liar")
    assert counts["town"]["false_role"] == 0
