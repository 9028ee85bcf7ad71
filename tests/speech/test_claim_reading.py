"""How the claim reader reads free speech: readable role names, typographic
apostrophes, quoted words of others, negated vouches, certainty, and several claims at
once. Each case is one a model or a person writes, and one the metrics and the scripted
players would misread otherwise."""

from __future__ import annotations

import pytest

from mafia_arena.speech.claims import Claim, extract_claims

ROLES = ["known_a", "corrupt_cop", "rival", "citizen", "detective", "doctor"]
NAMES = {
    "Known Mafioso A": "known_a",
    "Corrupt Cop": "corrupt_cop",
    "Rival Mafioso": "rival",
    "Simple Citizen": "citizen",
}


def role(value: str) -> Claim:
    return Claim("claim_role", None, value)


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("I am Known Mafioso A.", "known_a"),
        ("I'm a Simple Citizen, nothing more.", "citizen"),
        ("I am the Rival Mafioso", "rival"),
        ("I'm the corrupt cop", "corrupt_cop"),
        ("I am the corrupt_cop", "corrupt_cop"),
        ("I AM THE CORRUPT COP!", "corrupt_cop"),
    ],
)
def test_a_role_is_read_by_its_readable_name_and_answered_with_its_id(
    text: str, claimed: str
) -> None:
    assert extract_claims(text, ROLES, NAMES) == [role(claimed)]


def test_names_may_be_given_as_pairs() -> None:
    assert extract_claims("I am Known Mafioso A.", ROLES, tuple(NAMES.items())) == [role("known_a")]


def test_typographic_apostrophes_read_as_plain_ones() -> None:
    assert extract_claims("I\u2019m the doctor.", ROLES) == [role("doctor")]
    assert Claim("accuse", 2) not in extract_claims("I don\u2019t think P3 is mafia.")


def test_quoted_words_of_another_player_are_not_the_speakers_claims() -> None:
    text = 'P2 said "I am the doctor" and \u201cP5 is mafia\u201d, but I vote for P4.'
    assert extract_claims(text, ROLES) == [Claim("accuse", 3)]


def test_a_speech_wrapped_in_quotes_is_the_speakers_own() -> None:
    assert extract_claims('"I am the doctor. P3 is mafia."', ROLES) == [
        role("doctor"),
        Claim("accuse", 2),
    ]


@pytest.mark.parametrize(
    "text", ["I don't trust P3.", "I can't vouch for P3.", "I never trusted P3"]
)
def test_a_negated_vouch_is_no_vouch(text: str) -> None:
    assert Claim("vouch", 2) not in extract_claims(text)


@pytest.mark.parametrize("text", ["No doubt P3 is mafia.", "Without a doubt, P3 is mafia."])
def test_certainty_is_no_negation(text: str) -> None:
    assert extract_claims(text) == [Claim("accuse", 2)]


def test_believing_a_seat_is_mafia_is_no_vouch() -> None:
    assert extract_claims("I believe P3 is mafia.") == [Claim("accuse", 2)]
    assert extract_claims("I believe P3 is town.") == [Claim("vouch", 2)]
    assert extract_claims("I believe P3.") == [Claim("vouch", 2)]


def test_several_claims_in_one_message_in_order() -> None:
    text = "I'm the detective. I checked P3: mafia. P5 is town, and I suspect P6."
    assert extract_claims(text, ROLES) == [
        role("detective"),
        Claim("claim_result", 2, "mafia"),
        Claim("vouch", 4),
        Claim("accuse", 5),
    ]


def test_a_seat_zero_is_no_seat() -> None:
    assert extract_claims("P0 is mafia.") == []
