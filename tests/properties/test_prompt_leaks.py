"""Differential leak test of the LLM player's prompts: a seat's prompts are the same in
worlds it cannot tell apart.

See `tests/properties/prompts.py` for the method and `tests/properties/differential.py`
for the worlds. The default run plays `PER_SETTING` cases of every setting of
`SETTINGS` (every variant), refined around the cards shown like the stream comparison
(`run_refined`), plus a few Palermo cases whose intrigue cards move too; every variant
must render the templates its play asks for (`REACHED`). ``MAFIA_PROMPT_GAMES=N`` plays
N cases per setting; ``MAFIA_SLOW=1`` runs the `slow` test (100 more per setting).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from tests.properties import prompts
from tests.properties.differential import (
    SETTINGS,
    Leak,
    Worlds,
    card_case,
    describe,
    random_case,
    run_refined,
)
from tests.properties.prompts import Recorder, run_prompts

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_prompts import seat_label
from mafia_arena.views.view import View

PER_SETTING = int(os.environ.get("MAFIA_PROMPT_GAMES", "2"))
"""Cases per setting of `SETTINGS` in the default run (about 0.7 s a case on one CPU,
each played about twice over where cards are shown)."""
CARD_CASES = 4
SLOW_FIRST, SLOW_PER = 100, 100
"""The slow batch: rounds 100 to 199 of the seeded sequence, one case per setting each."""
RUN_SLOW = os.environ.get("MAFIA_SLOW") == "1"

VARIANTS = list(dict.fromkeys(variant for variant, _ in SETTINGS))

REACHED: dict[str, frozenset[str]] = {
    "simple": frozenset({"decide_vote"}),
    "standard": frozenset({"speak", "decide", "decide_vote", "beliefs"}),
    "classic": frozenset(
        {"speak", "decide", "speak_night_chat", "speak_describe", "speak_plea", "beliefs"}
    ),
    "club": frozenset({"speak", "decide", "speak_defence", "speak_last_word", "beliefs"}),
    "dictator": frozenset({"decide", "speak"}),  # the forum's forms and their content
    "palermo": frozenset({"speak", "decide", "decide_turn", "decide_change_vote", "beliefs"}),
}
"""Per variant: the templates the default run's players must have rendered (`beliefs`:
the belief questions, each seat's and the intended vote's included), so that the
comparison covers every kind of request the variant makes."""


def _cases(variant: str, rounds: range) -> list[int]:
    """The case numbers of `variant`'s settings in the seeded sequence's `rounds` (round
    k holds cases k * len(SETTINGS) to the next round's, one per setting)."""
    settings = [i for i, (v, _) in enumerate(SETTINGS) if v == variant]
    return [k * len(SETTINGS) + s for k in rounds for s in settings]


def _play(cases: list[int], seen: Counter[str] | None = None) -> int:
    compared = 0
    for index in cases:
        worlds, policy_seed = random_case(index)
        try:
            compared += run_refined(run_prompts, worlds, policy_seed, seen)
        except Leak as leak:
            raise AssertionError(f"case {index} ({describe(worlds)}): {leak}") from None
    return compared


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seats_prompts_are_the_same_in_worlds_it_cannot_tell_apart(variant: str) -> None:
    seen: Counter[str] = Counter()
    assert _play(_cases(variant, range(PER_SETTING)), seen) > 0
    missing = sorted(REACHED[variant] - set(seen))
    assert not missing, f"no {variant} case rendered {missing}: {dict(seen)}"


def test_a_seats_prompts_do_not_tell_who_holds_the_other_intrigue_cards() -> None:
    """Palermo: world B moves every intrigue card but the observer's, on top of the
    permuted roles (`card_case`); the prompts (the seat's situation and card included)
    must not differ."""
    compared, index, played = 0, 0, 0
    while played < CARD_CASES:
        case = card_case(index)
        index += 1
        if case is None:
            continue
        played += 1
        worlds, policy_seed = case
        try:
            compared += run_refined(run_prompts, worlds, policy_seed)
        except Leak as leak:
            raise AssertionError(f"cards case {index - 1} ({describe(worlds)}): {leak}") from None
    assert compared > 0


@pytest.mark.slow
@pytest.mark.skipif(not RUN_SLOW, reason="hundreds of games: set MAFIA_SLOW=1")
@pytest.mark.parametrize("variant", VARIANTS)
def test_hundreds_of_worlds_prompt_the_same(variant: str) -> None:
    assert _play(_cases(variant, range(SLOW_FIRST, SLOW_FIRST + SLOW_PER))) > 0


def test_the_prompt_comparison_catches_a_leaked_role(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation check: a system message that names another seat's true card (a renderer
    reading past the seat's knowledge, here the deal its world was played with) must be
    caught at the observer's first decision, while the same case passes unharmed."""
    worlds, policy_seed = random_case(3)  # standard, the first decisions before any death
    assert worlds.variant == "standard"
    assert run_prompts(worlds, policy_seed) > 0
    moved = next(s for s in sorted(worlds.sigma) if worlds.deal_a[s] != worlds.deal_b[s])
    made: list[LLMAgent] = []
    real_player, real_system = prompts.make_player, LLMAgent._system_message

    def player(case: Worlds) -> tuple[LLMAgent, Recorder]:
        agent, recorder = real_player(case)
        made.append(agent)  # world A's player first, then world B's
        return agent, recorder

    def leaky(agent: LLMAgent, view: View) -> str:
        world = next(i for i, a in enumerate(made) if a is agent)
        card = (worlds.deal_a, worlds.deal_b)[world][moved]
        return real_system(agent, view) + f"\n{seat_label(moved)} holds the {card}."

    monkeypatch.setattr(prompts, "make_player", player)
    monkeypatch.setattr(LLMAgent, "_system_message", leaky)
    with pytest.raises(Leak, match="system message"):
        run_prompts(worlds, policy_seed)
