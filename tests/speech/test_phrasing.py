"""Every phrasing a scripted player may say reads back as the act it was made from."""

from __future__ import annotations

import itertools
import random

import pytest

from mafia_arena.engine.choices import PASS, Choice
from mafia_arena.engine.speech_acts import render_act
from mafia_arena.rules import load_variant
from mafia_arena.speech.claims import Claim, extract_claims
from mafia_arena.speech.phrasing import (
    CONNECTORS,
    PHRASINGS,
    REASONS,
    Phrasebook,
    Reason,
    _lower_first,
    phrasings,
    reason_sentences,
    role_name,
    with_article,
)

ROLES = ["detective", "doctor", "commissar", "villager", "mafioso", "citizen", "civilian"]
ACTS = [
    PASS,
    Choice("accuse", 2),
    Choice("vouch", 11),
    *(Choice("claim_role", None, role) for role in ("detective", "doctor", "commissar")),
    *(Choice("claim_result", 6, value) for value in ("mafia", "innocent")),
]


def intended(act: Choice) -> Claim | None:
    return None if act.verb == "pass" else Claim(act.verb, act.target, act.value)


def implied(act: Choice) -> set[Claim]:
    """What a result claim also says about its target (the canonical sentence "My
    check: P7 is mafia." is read as an accusation too)."""
    if act.verb != "claim_result":
        return set()
    return {Claim("accuse" if act.value == "mafia" else "vouch", act.target)}


def said_as(act: Choice) -> list[str]:
    """Every sentence for `act`, alone and continued after every connector."""
    alone = phrasings(act)
    return alone + [f"{c} {_lower_first(s)}" for c in CONNECTORS for s in alone]


def test_every_verb_has_several_phrasings_starting_with_the_canonical_one() -> None:
    for act in ACTS:
        options = phrasings(act)
        assert len(options) >= 4 and len(set(options)) == len(options)
        assert options[0] == render_act(act)
    assert set(PHRASINGS) == {"pass", "accuse", "vouch", "claim_role", "claim_result"}


@pytest.mark.parametrize("act", ACTS, ids=lambda a: a.key)
def test_every_phrasing_round_trips_to_its_act(act: Choice) -> None:
    want = intended(act)
    for sentence in said_as(act):
        claims = extract_claims(sentence, ROLES)
        if want is None:
            assert claims == [], sentence
            continue
        assert want in claims, sentence
        assert set(claims) <= {want} | implied(act), (sentence, claims)


@pytest.mark.parametrize("kind", sorted(REASONS))
def test_reasons_make_no_claims_of_their_own(kind: str) -> None:
    for today in (2, 3, 5):
        for sentence in reason_sentences(Reason(kind, 2, 4, 1, "villager"), today):
            assert extract_claims(sentence, ROLES) == [], sentence


def test_a_speech_of_reasons_and_acts_reads_back_as_exactly_its_acts() -> None:
    acts = [Choice("claim_role", None, "detective"), Choice("claim_result", 4, "mafia")]
    acts += [Choice("accuse", 2), Choice("vouch", 6)]
    reasons = {acts[2]: Reason("voted_town", 2, 5, 1, "doctor")}
    for seed in range(40):
        text = Phrasebook(random.Random(seed)).speech(acts, reasons, 2)
        claims = set(extract_claims(text, ROLES))
        wanted = {intended(a) for a in acts}
        assert wanted <= claims <= wanted | implied(acts[1]), text
        assert "P3 voted for P6 yesterday" in text or "voted for P6 yesterday;" in text


def test_a_speaker_never_repeats_a_phrasing_twice_running() -> None:
    book = Phrasebook(random.Random(0))
    said = [book.say(Choice("accuse", 3)) for _ in range(30)]
    assert all(a != b for a, b in itertools.pairwise(said))
    assert len(set(said)) >= 4


@pytest.mark.parametrize(
    "text",
    [
        "P3 is not mafia, as far as I can tell.",
        "I don't think P3 is mafia.",
        "I would never vote for P3 today.",
        "Two people cannot both hold that card. I trust P3.",
        "I doubt P3 must be mafia.",
    ],
)
def test_negated_phrasings_are_not_accusations(text: str) -> None:
    assert Claim("accuse", 2) not in extract_claims(text, ROLES)


@pytest.mark.parametrize(
    ("word", "said"),
    [
        ("immortal", "an immortal"),
        ("active psychopath", "an active psychopath"),
        ("elder", "an elder"),
        ("doctor", "a doctor"),
        ("unique card", "a unique card"),
        ("one-off", "a one-off"),
        ("Inspector", "an Inspector"),
    ],
)
def test_the_article_follows_how_the_word_begins(word: str, said: str) -> None:
    assert with_article(word) == said


def test_revealed_roles_are_said_by_name_with_the_right_article() -> None:
    for variant in ("standard", "classic", "club", "palermo", "dictator"):
        roles = load_variant(variant).roles
        for role in roles:
            for sentence in reason_sentences(Reason("voted_town", 2, 4, 1, role), 2):
                assert "_" not in sentence, sentence
                for vowel in "aeio":
                    assert f" a {vowel}" not in sentence, sentence
                assert extract_claims(sentence, roles) == [], sentence
    said = reason_sentences(Reason("voted_town", 8, 3, 1, "immortal"), 2)
    assert said[0] == "P9 voted for P4 yesterday, and P4 was an immortal."
    assert said[1].endswith("P4 turned out to be an immortal.")


def test_a_role_claim_says_the_roles_words_and_reads_back_as_its_id() -> None:
    roles = [*ROLES, "active_psychopath"]
    act = Choice("claim_role", None, "active_psychopath")
    for sentence in said_as(act):
        assert "active_psychopath" not in sentence and role_name("active_psychopath") in sentence
        assert extract_claims(sentence, roles) == [act_claim(act)], sentence
    assert extract_claims("I am the active_psychopath.", roles) == [act_claim(act)]


def act_claim(act: Choice) -> Claim:
    return Claim(act.verb, act.target, act.value)
