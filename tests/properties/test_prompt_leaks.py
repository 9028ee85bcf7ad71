"""Differential leak test of the LLM player's prompts: a seat's prompts are the same in
worlds it cannot tell apart.

See `tests/properties/prompts.py` for the method and `tests/properties/differential.py`
for the worlds. A seat's view reaches an LLM player by two routes, and both are
compared: the match runner's (a tracker of the seat over the whole game, `run_prompts`,
the games played through the Parallel env) and the AEC env's own (`raw_env.view`, a
night shown slot by slot, `run_prompts_aec`). The default run plays `PER_SETTING` cases
of every setting of `SETTINGS` (every variant) by the first route and `AEC_PER_SETTING`
by the second, refined around the cards shown like the stream comparison
(`run_refined`), plus a few Palermo cases whose intrigue cards move too; every variant
must render the templates its play asks for (`REACHED`) by either route.
``MAFIA_PROMPT_GAMES=N`` and ``MAFIA_PROMPT_AEC_GAMES=N`` play N cases per setting;
``MAFIA_SLOW=1`` runs the `slow` test (100 more per setting, by both routes).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace

import pytest
from tests.properties import prompts
from tests.properties.differential import (
    SETTINGS,
    Leak,
    Runner,
    Worlds,
    card_case,
    describe,
    random_case,
    run_aec,
    run_refined,
)
from tests.properties.prompts import Recorder, run_prompts, run_prompts_aec

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_prompts import seat_label
from mafia_arena.env.aec import raw_env
from mafia_arena.views.view import View

PER_SETTING = int(os.environ.get("MAFIA_PROMPT_GAMES", "2"))
"""Cases per setting of `SETTINGS` in the default run (about 0.7 s a case on one CPU,
each played about twice over where cards are shown)."""
AEC_PER_SETTING = int(os.environ.get("MAFIA_PROMPT_AEC_GAMES", "1"))
"""Cases per setting played by the AEC env's route in the default run (as long as the
first route's): the first of the first route's cases, which reach every template of
`REACHED` by this route too."""
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


ROUTES: dict[str, Runner] = {"runner": run_prompts, "aec": run_prompts_aec}
"""How a seat's view reaches the LLM player: by the match runner's tracker over the
game, or by the AEC env's `view`."""


def _play(cases: list[int], route: str, seen: Counter[str] | None = None) -> int:
    compared = 0
    for index in cases:
        worlds, policy_seed = random_case(index)
        try:
            compared += run_refined(ROUTES[route], worlds, policy_seed, seen)
        except Leak as leak:
            raise AssertionError(f"case {index} ({describe(worlds)}, {route}): {leak}") from None
    return compared


def _assert_reached(variant: str, seen: Counter[str]) -> None:
    missing = sorted(REACHED[variant] - set(seen))
    assert not missing, f"no {variant} case rendered {missing}: {dict(seen)}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seats_prompts_are_the_same_in_worlds_it_cannot_tell_apart(variant: str) -> None:
    seen: Counter[str] = Counter()
    assert _play(_cases(variant, range(PER_SETTING)), "runner", seen) > 0
    _assert_reached(variant, seen)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_prompts_of_the_aec_envs_views_are_the_same_in_worlds_a_seat_cannot_tell_apart(
    variant: str,
) -> None:
    """The view an LLM player consuming the AEC env is handed (`raw_env.view`)."""
    seen: Counter[str] = Counter()
    assert _play(_cases(variant, range(AEC_PER_SETTING)), "aec", seen) > 0
    _assert_reached(variant, seen)


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
@pytest.mark.parametrize("route", list(ROUTES))
def test_hundreds_of_worlds_prompt_the_same(variant: str, route: str) -> None:
    assert _play(_cases(variant, range(SLOW_FIRST, SLOW_FIRST + SLOW_PER)), route) > 0


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
    for route in ROUTES.values():
        made.clear()
        with pytest.raises(Leak, match="system message"):
            route(worlds, policy_seed, None)


def test_the_aec_route_catches_a_leak_in_the_view_the_env_hands_an_agent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mutation check: the AEC env's `view` that tells the observer, in its request's
    prompt, the true card of a seat it does not know. The env's own observations
    (stream, arrays, info, text) never read that view, nor does the match runner's
    route: only the comparison of the prompts of the AEC route can see it."""
    worlds, policy_seed = random_case(3)
    moved = next(s for s in sorted(worlds.sigma) if worlds.deal_a[s] != worlds.deal_b[s])
    real_view = raw_env.view

    def leaky(env: raw_env, agent: str) -> View:
        view = real_view(env, agent)
        if view.request is None or env.session.deal is None:
            return view
        told = f"{view.request.prompt} ({seat_label(moved)} is the {env.session.deal[moved]}.)"
        return replace(view, request=replace(view.request, prompt=told))

    monkeypatch.setattr(raw_env, "view", leaky)
    assert run_prompts(worlds, policy_seed) > 0
    assert run_aec(worlds, policy_seed) > 0
    with pytest.raises(Leak, match=r"aec prompt step \d+: request \d+, human message, .* is the "):
        run_prompts_aec(worlds, policy_seed)
