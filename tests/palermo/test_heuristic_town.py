"""The heuristic's good camp in Palermo: it uses what it knows and votes together."""

from __future__ import annotations

from tests.palermo.table import S16, P
from tests.palermo.test_heuristic_channels import heuristic_game

from mafia_arena.engine.catalogue import Ballot
from mafia_arena.engine.palermo.roles import KNOWN_A, KNOWN_B, RIVAL
from mafia_arena.views import SeatTracker

MAFIA_CAMP = {"known_a", "known_b", "hidden", "archmafioso", "corrupt_cop", "prostitute"}


def test_the_introduced_mafiosi_are_named_on_day_one_and_the_good_camp_votes_one() -> None:
    """The Informant names Known Mafioso A and the Rival Mafioso names Known Mafioso B in
    the first morning; by VOTE CLOSE every good-camp ballot stands on one of the two,
    the same one (the first named), not spread over the table."""
    informant, rival = S16.index("informant"), S16.index(RIVAL)
    known_a, known_b = S16.index(KNOWN_A), S16.index(KNOWN_B)
    for seed in range(3):
        game = heuristic_game(16, seed, deal=S16)
        said = SeatTracker(P(14)).view(game).knowledge.said  # a Simple Citizen's reading
        named = {
            (s.seat, s.claim.target, s.claim.value)
            for s in said
            if s.day == 1 and s.claim.kind == "claim_result"
        }
        assert {(informant, known_a, "mafia"), (rival, known_b, "mafia")} <= named, seed
        final: dict[int, int] = {}
        for event in game.events:
            if event.day == 1 and isinstance(event.fact, Ballot):
                final[event.fact.seat] = event.fact.target
        good = [s for s, role in enumerate(S16) if role not in MAFIA_CAMP and s in final]
        assert len(good) >= 8, seed
        aims = {final[s] for s in good if s not in (known_a, known_b)}
        assert len(aims) == 1 and aims <= {known_a, known_b}, (seed, final)


def test_a_rival_named_by_a_check_says_what_he_is() -> None:
    rival = S16.index(RIVAL)
    claimed = 0
    for seed in range(12):
        game = heuristic_game(16, seed, deal=S16)
        said = SeatTracker(P(14)).view(game).knowledge.said
        named = [
            s.day
            for s in said
            if s.claim.kind == "claim_result" and s.claim.target == rival and s.seat != rival
        ]
        roles = [s.day for s in said if s.seat == rival and s.claim.kind == "claim_role"]
        assert all(
            s.claim.value == RIVAL for s in said if s.seat == rival and s.claim.kind == "claim_role"
        )
        if named and roles:
            assert roles[0] >= named[0], seed
            claimed += 1
        else:
            assert not roles, seed
    assert claimed > 0
