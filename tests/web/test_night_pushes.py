"""What a page sees of a night must not depend on who else acts in it (issue 11, 5b/5c).

Whole games run through the real session and driver, with every seat's pushes
collected from its connection's outbox (the web message builder, without a browser):

- a seat's private night lines (its own night action, results, crossed arms) reach
  its page together with a request of its own (what it decides on) or at dawn, never
  in between: before, a doctor saw "your night action" at once when a later step had a
  living actor and only at dawn otherwise (a Palermo card played at night leaves the
  hand in the push that announces the play to every seat);
- an away human is replaced when the grace period ends, asked or not: before, the
  "bot playing for them" badge came with the seat's first turn, so at night it showed
  who holds a night role.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for

from mafia_arena.rules import available_variants, load_variant
from mafia_arena.web.session import Connection, GameSession
from mafia_arena.web.settings import GameSpec, SeatSpec

pytestmark = pytest.mark.timeout(300)

NIGHT_PRIVATE = {"night_action", "night_result", "blocked", "form_noted", "gm_notice", "card"}
"""A seat's own night lines: its action, results and crossed arms; a forum game's noted
forms and game-master notices; a Palermo card changing hands."""
NIGHT_PHASES = {"night", "night_early", "night_late"}
"""The night's phases: `night`, and Palermo's two halves around midnight."""
"""The host-side key the seats' seeds derive from (fixed: the games replay)."""


def _drain(conn: Connection) -> list[dict[str, Any]]:
    out = []
    while not conn.outbox.empty():
        message = conn.outbox.get_nowait()
        if message is not None:
            out.append(message)
    return out


async def _play(
    tmp_path: Path, variant: str, players: int, seed: int
) -> dict[int | None, list[dict]]:
    spec = GameSpec(variant=variant, players=players, seats=[SeatSpec(kind="bot")] * players)
    settings = settings_for(tmp_path, fixed_nights=True)  # instant bots: every slot lasts 0 s
    session = GameSession("g", spec, load_variant(variant), seed, settings, FIXED_HOST_KEY)
    conns = [Connection(seat, limit=100_000) for seat in range(players)]
    for conn in conns:
        session.attach(conn)
    session.start()
    assert session.task is not None
    await session.task
    return {conn.seat: _drain(conn) for conn in conns}


CASES = [(v, seed) for v in available_variants() for seed in (1, 2, 3, 4)]


@pytest.mark.parametrize(("variant", "seed"), CASES)
async def test_private_night_lines_come_with_an_own_request_or_at_dawn(
    tmp_path: Path, variant: str, seed: int
) -> None:
    rules = load_variant(variant)
    players = max(rules.min_players, 8)
    pushed = await _play(tmp_path, variant, players, seed)
    checked = 0
    for seat, messages in pushed.items():
        dawn_seen: set[int] = set()
        for message in messages:
            if message.get("type") != "state":
                continue
            new = message["lines"]
            for line in new:
                if line["kind"] == "phase" and line["phase"] not in NIGHT_PHASES | {"setup"}:
                    dawn_seen.add(line["day"])
            played = any(line["kind"] == "card_played" for line in new)
            for line in new:
                if line["kind"] not in NIGHT_PRIVATE or line["phase"] not in NIGHT_PHASES:
                    continue
                checked += 1
                at_dawn = line["day"] in dawn_seen or message.get("over")
                asked = message.get("request") is not None
                # a Palermo card played at night leaves its holder's hand in the push
                # that announces the play to everyone: a public moment
                with_play = line["kind"] == "card" and played
                assert at_dawn or asked or with_play, (seat, line["text"])
    assert checked > 0


async def test_an_away_human_is_replaced_when_the_grace_ends_even_if_not_asked(
    tmp_path: Path,
) -> None:
    variant = load_variant("standard")
    seed = next(
        s for s in range(100) if _card(variant, 7, s, 0) == "villager"
    )  # seat 0 has no night role: it is not asked during night 1
    settings = settings_for(tmp_path, grace=0.05, bot_delay=2.0)
    spec = GameSpec(variant="standard", players=7, seats=[SeatSpec(kind="human")])
    session = GameSession("g", spec, variant, seed, settings, FIXED_HOST_KEY)
    session.claim(0, "away")
    watcher = Connection(1, limit=100_000)
    session.attach(watcher)
    session.start()
    try:
        await asyncio.sleep(0.5)
        assert session.game is not None and session.game.state.phase == "night"
        assert not any(d["seat"] == 0 for d in session.game.decisions)
        assert session.slots[0].replaced
        shown = [
            p["replaced"]
            for m in _drain(watcher)
            if m.get("type") == "state"
            for p in m["players"]
            if p["seat"] == 0
        ]
        assert shown and shown[-1] is True
    finally:
        assert session.task is not None
        session.task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await session.task


def _card(variant: Any, players: int, seed: int, seat: int) -> str:
    from mafia_arena.engine import Game

    return Game(variant, players, seed).state.seats[seat].card
