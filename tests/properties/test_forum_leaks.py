"""Differential leak tests of the forum channels (dictator): worlds that differ only in
who wrote an ad, who wrote privately to whom, and whether a private testament exists
must look the same to every other seat, in everything the env shows it (its stream,
text, numeric observation, mask and info: `differential.observed`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from tests.dictator.table import C1, C2, C3, C5, C6, C8, c, w
from tests.properties.differential import observed

from mafia_arena import env as mafia_env
from mafia_arena.engine import PASS, Speech
from mafia_arena.engine.choices import Decision
from mafia_arena.env.session import GameSession

Script = Callable[[GameSession, int], list[Decision]]


def play(script: Script, phases: int = 4) -> GameSession:
    """A seeded 18-seat game: each seat's decisions per phase come from `script`, then
    a post and done (Night 0: everyone votes C1)."""
    env = mafia_env.raw_parallel_env("dictator", 18)
    env.reset(seed=7)
    session = env.session
    game = session.current
    for _ in range(phases):
        where = (game.state.phase, game.state.day)
        queues = {s: list(script(session, s)) for s in range(18)}
        if where == ("night", 0):
            for s in range(18):
                queues[s].insert(0, c("ballot", C1))
        posted: set[int] = set()
        while (game.state.phase, game.state.day) == where and not game.over:
            for seat in sorted(game.pending()):
                if queues[seat]:
                    decision = queues[seat].pop(0)
                elif seat not in posted:
                    decision = Speech("Here.", c("post"))
                    posted.add(seat)
                else:
                    decision = PASS
                session.submit(seat, decision)
            session.close_turn()
    return session


def same_for_others(a: Script, b: Script, insiders: set[int]) -> None:
    worlds = play(a), play(b)
    for seat in set(range(18)) - insiders:
        seen_a, seen_b = (observed(s, seat) for s in worlds)
        for key in seen_a:
            assert seen_a[key] == seen_b[key], f"P{seat + 1} tells the worlds apart by {key}"


def on(phase: str, day: int, seat: int, decisions: list[Decision]) -> Script:
    def script(session: GameSession, who: int) -> list[Decision]:
        state = session.current.state
        return decisions if who == seat and (state.phase, state.day) == (phase, day) else []

    return script


@pytest.mark.parametrize("pseudonym", ["Phantom", "new"])
def test_an_ads_author_is_never_shown(pseudonym: str) -> None:
    ad = w("The boss is quiet.", "ad", None, pseudonym)
    same_for_others(on("day", 1, C2, [ad]), on("day", 1, C5, [ad]), {C2, C5})


def test_private_messages_between_others_are_never_shown() -> None:
    same_for_others(
        on("day", 1, C2, [w("Trust me.", "pm", C3)]),
        on("day", 1, C5, [w("Trust me.", "pm", C6)]),
        {C2, C3, C5, C6},
    )


def test_a_private_testaments_existence_is_never_shown() -> None:
    def with_will(session: GameSession, seat: int) -> list[Decision]:
        state = session.current.state
        if (state.phase, state.day) != ("day", 1):
            return []
        if seat == C2:
            return [w("P1 is the boss.", "testament", None, f"{C3}")]
        return [c("execute", C2)] if seat == C1 else []

    def without(session: GameSession, seat: int) -> list[Decision]:
        state = session.current.state
        at_day_1 = (state.phase, state.day) == ("day", 1)
        return [c("execute", C2)] if seat == C1 and at_day_1 else []

    same_for_others(with_will, without, {C2, C3})
    assert C8 not in {C2, C3}
