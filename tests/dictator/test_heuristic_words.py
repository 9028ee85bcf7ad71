"""The German forum texts of the heuristic: varied, and read back exactly as meant.

A town dictator acts on the private word "P<n> ist Mafioso." (`forum.GUILTY`) and
clears on "P<n> ist kein Mafioso." (`forum.INNOCENT`), the game master's own result
sentences: every phrasing of a passed-on result must hold its sentence for the named
seat, and no other text the heuristic writes may look like one — nor like a claim to
`extract_claims`.
"""

from __future__ import annotations

import itertools
import random

import pytest

from mafia_arena.agents.heuristic import forum_words as words
from mafia_arena.agents.heuristic.forum import GUILTY, INNOCENT
from mafia_arena.rules import load_variant
from mafia_arena.speech.claims import extract_claims
from mafia_arena.speech.phrasing import Phrasebook

ROLES = tuple(load_variant("dictator").roles)
T, S = "P7", "P12"


def read(text: str) -> tuple[list[int], list[int]]:
    return (
        [int(m.group(1)) - 1 for m in GUILTY.finditer(text)],
        [int(m.group(1)) - 1 for m in INNOCENT.finditer(text)],
    )


def test_every_passed_on_result_reads_back_as_that_result_and_nothing_else() -> None:
    for text in words.every(words.GUILTY_NOTES, t=T):
        assert read(text) == ([6], []), text
    for text in words.every(words.INNOCENT_NOTES, t=T):
        assert read(text) == ([], [6]), text
    joined = " ".join(
        words.every(words.GUILTY_NOTES, t=T)[:1] + words.every(words.INNOCENT_NOTES, t=S)[:1]
    )
    assert read(joined) == ([6], [11])


OTHER_TEXTS = [
    words.POSTS,
    words.SUSPECT_POSTS,
    *words.EXIT_POSTS.values(),
    words.REPLIES,
    words.REPLY_SUSPECTS,
    words.TEAM_NOTES,
    words.QUESTIONS,
    words.WATCH_ADS,
    words.ADS,
    words.DEATH_NOTES,
    words.LAST_WORDS,
]


@pytest.mark.parametrize("options", OTHER_TEXTS, ids=lambda o: o[0][:24])
def test_no_other_text_reads_as_a_result_or_a_claim(options: tuple[str, ...]) -> None:
    assert len(set(options)) >= 2
    for text in words.every(options, t=T, s=S):
        assert read(text) == ([], []), text
        assert extract_claims(text, ROLES) == [], text


def test_the_phrasebook_never_says_the_same_post_twice_running() -> None:
    book = Phrasebook(random.Random(3))
    said = [words.say(book, "post", words.POSTS) for _ in range(200)]
    assert all(a != b for a, b in itertools.pairwise(said))
    assert set(said) == set(words.POSTS)
