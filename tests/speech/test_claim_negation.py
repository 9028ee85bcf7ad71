"""The claim reader must not turn a denial into an accusation."""

from __future__ import annotations

import pytest

from mafia_arena.speech.claims import Claim, extract_claims

ACCUSE_P3 = Claim("accuse", 2)


@pytest.mark.parametrize(
    "text",
    [
        "I don't think P3 is mafia.",
        "I do not think P3 is mafia.",
        "I would never vote for P3.",
        "I doubt P3 is mafia.",
        "I don't suspect P3 at all.",
        "P3 is not mafia.",
    ],
)
def test_denials_are_not_accusations(text: str) -> None:
    assert ACCUSE_P3 not in extract_claims(text)


@pytest.mark.parametrize(
    "text",
    [
        "I suspect P3 is mafia.",
        "P3 is mafia.",
        "I'm not sure about P5, but P3 is mafia.",
        "I don't trust anyone. P3 is mafia.",
        "I can't tell about P1; I vote for P3.",
    ],
)
def test_accusations_after_an_earlier_negated_clause_still_count(text: str) -> None:
    assert ACCUSE_P3 in extract_claims(text)
