"""A role claimed by the name a player reads counts as a claim of its id for every
reader: the seats' folds (which the scripted players, the observation encoder and the
LLM prompts read), the omniscient state fold and the metrics all read it alike.

Dictator's "Citizen with a dark past" once read as a plain `citizen` claim in the seats'
folds while the metrics read `dark_past`; Palermo's "Known Mafioso A" was no claim at
all there.
"""

from __future__ import annotations

import random

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import SpeechMade
from mafia_arena.engine.choices import Choice, Speech
from mafia_arena.metrics import extract_facts
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.speech.claims import Claim
from mafia_arena.views import view_of


def _game_with_speech(variant: str, players: int, text: str) -> tuple[Game, int]:
    """A seeded game played with random choices, every speech (a forum's thread post)
    `text`, until the first public speech is made; the speaker's seat."""
    game, rng = Game(load_variant(variant), players, 3), random.Random(3)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            post = Choice("post")
            if request.kind == "speak":
                game.submit(seat, Speech(text))
            elif request.kind == "forum" and post in request.choices:
                game.submit(seat, Speech(text, post))
            else:
                game.submit(seat, rng.choice(request.choices))
            for event in reversed(game.events):
                if isinstance(event.fact, SpeechMade) and event.visibility.scope == "public":
                    return game, event.fact.seat
    raise AssertionError("the game ended before anyone spoke in public")


CASES = [
    ("dictator", 12, "I am a Citizen with a dark past.", "dark_past"),
    ("dictator", 12, "I am the Schutzengel.", "guardian_angel"),
    ("palermo", 16, "I am Known Mafioso A.", "known_a"),
    ("palermo", 16, "I'm a Simple Citizen.", "citizen"),
]


@pytest.mark.parametrize(("variant", "players", "text", "role"), CASES)
def test_a_role_claimed_by_its_name_reads_as_its_id_for_every_seat(
    variant: str, players: int, text: str, role: str
) -> None:
    game, speaker = _game_with_speech(variant, players, text)
    expected = Claim("claim_role", value=role)
    for seat in range(players):
        assert view_of(game, seat).knowledge.claims[speaker][-1] == expected, seat


@pytest.mark.parametrize(("variant", "players", "text", "role"), CASES)
def test_seats_and_metrics_read_the_same_claim(
    variant: str, players: int, text: str, role: str
) -> None:
    game, speaker = _game_with_speech(variant, players, text)
    seat_reads = [(s.seat, s.claim) for s in view_of(game, (speaker + 1) % players).knowledge.said]
    facts = extract_facts(GameLog.from_game(game))
    metric_reads = [(said.seat, c) for said in facts.speeches for c in said.claims]
    assert metric_reads == seat_reads
    assert (speaker, Claim("claim_role", value=role)) in metric_reads
