"""Every phrasing the Palermo heuristic says reads back as the act it was made from.

Palermo's good camp votes on public check claims (`palermo_claims.named_mafia` reads
the claims `extract_claims` finds in each post, with the variant's role names), and
the channels follow "kill P<n>" / "vote P<n>" proposals (`palermo._PROPOSAL`): a
phrasing that one of them misread would change how the table plays.
"""

from __future__ import annotations

import random

import pytest

from mafia_arena.agents.heuristic.palermo import _PROPOSAL, CHANNEL_LINES
from mafia_arena.engine.choices import Choice
from mafia_arena.engine.palermo.roles import DETECTIVE, MEDIUM, RIVAL
from mafia_arena.rules import load_variant
from mafia_arena.speech.claims import Claim, extract_claims
from mafia_arena.speech.phrasing import CONNECTORS, Phrasebook, Reason, _lower_first, phrasings

ROLES = tuple(load_variant("palermo").roles)
TARGET = 13
ACTS = [
    Choice("accuse", TARGET),
    *(Choice("claim_role", None, role) for role in (DETECTIVE, MEDIUM, RIVAL)),
    *(Choice("claim_result", TARGET, value) for value in ("mafia", "innocent")),
]


def said_as(act: Choice) -> list[str]:
    alone = phrasings(act)
    return alone + [f"{c} {_lower_first(s)}" for c in CONNECTORS for s in alone]


@pytest.mark.parametrize("act", ACTS, ids=lambda a: a.key)
def test_every_public_phrasing_reads_back_as_its_act_with_palermo_roles(act: Choice) -> None:
    want = Claim(act.verb, act.target, act.value)
    implied = (
        {Claim("accuse" if act.value == "mafia" else "vouch", act.target)}
        if act.verb == "claim_result"
        else set()
    )
    for sentence in said_as(act):
        claims = extract_claims(sentence, ROLES)
        assert want in claims, sentence
        assert set(claims) <= {want} | implied, (sentence, claims)


@pytest.mark.parametrize("kind", ["counter_claim", "pressure", "vote"])
def test_a_post_with_its_reason_reads_back_as_exactly_its_acts(kind: str) -> None:
    """The posts `_post` builds: a counter-claim after the impostor's claim, a backed
    frame after the table's doubts, an accusation after the target's ballot today."""
    acts = [Choice("claim_role", None, DETECTIVE), Choice("claim_result", TARGET, "mafia")]
    if kind != "counter_claim":
        acts = [Choice("accuse", TARGET)]
    reasons = {acts[0]: Reason(kind, 4 if kind == "counter_claim" else TARGET, None, 3)}
    for seed in range(40):
        text = Phrasebook(random.Random(seed)).speech(acts, reasons, 3)
        claims = {c for c in extract_claims(text, ROLES) if c.kind != "vouch"}
        wanted = {Claim(a.verb, a.target, a.value) for a in acts}
        assert wanted <= claims <= wanted | {Claim("accuse", TARGET)}, text


@pytest.mark.parametrize("kind", sorted(CHANNEL_LINES))
def test_every_channel_proposal_names_its_aim_as_the_channel_reads_it(kind: str) -> None:
    lines = CHANNEL_LINES[kind]
    assert len(set(lines)) >= 4
    for line in lines:
        match = _PROPOSAL.search(line.format(n=TARGET + 1))
        assert match is not None, line
        assert (match.group(1), int(match.group(2)) - 1) == (kind, TARGET), line
        assert extract_claims(line.format(n=TARGET + 1), ROLES) in ([], [Claim("accuse", TARGET)])
