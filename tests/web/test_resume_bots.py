"""Bots decide after a server restart exactly as they would have without one.

The same seeded all-bot game is played twice on the same host key: once straight
through, once stopped in the middle of a prompt (the driver cancelled, as a crash
would) and resumed by a fresh `GameManager` on the same live store. Every seat's
decisions must be the same in both, and the catch-up must have found every stored bot
decision reproduced.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for

from mafia_arena.web.db import LiveStore
from mafia_arena.web.manager import GameManager
from mafia_arena.web.session import GameSession
from mafia_arena.web.settings import GameSpec

pytestmark = pytest.mark.timeout(300)

SPEC = GameSpec(
    variant="standard",
    players=7,
    seats=[{"kind": "bot", "agent": "heuristic" if i % 3 else "random"} for i in range(7)],
    seed=11,
    overrides={"mafia_chat_rounds": 1},
)


def keep_key(path: Path) -> None:
    """Give a new live store the fixed host key (a server makes its own otherwise)."""
    store = LiveStore(path)
    store.db.execute(
        "INSERT INTO server (key, value) VALUES ('host_key', ?)", (FIXED_HOST_KEY.hex(),)
    )
    store.db.commit()
    store.close()


def per_seat(session: GameSession) -> dict[int, list[dict]]:
    assert session.game is not None
    seats: dict[int, list[dict]] = {}
    for record in session.game.decisions:
        seats.setdefault(record["seat"], []).append(record)
    return seats


async def until(check: object, limit: int = 2_000_000) -> None:
    for _ in range(limit):
        if check():  # type: ignore[operator]
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


async def play(manager: GameManager, stop_after: int | None = None) -> GameSession:
    manager.restore()
    created = manager.create(SPEC)
    session = manager.games[created["game_id"]]
    manager.start(session)
    if stop_after is None:
        await until(lambda: session.stored is not None)
    else:
        await until(lambda: len(session.game.decisions) >= stop_after)  # type: ignore[union-attr]
    await manager.shutdown()
    return session


async def resumed(manager: GameManager, game_id: str) -> GameSession:
    manager.restore()
    session = manager.games[game_id]
    await until(lambda: session.stored is not None)
    await manager.shutdown()
    return session


def test_the_host_key_survives_a_restart(tmp_path: Path) -> None:
    first = LiveStore(tmp_path / "live.sqlite").host_key()
    assert LiveStore(tmp_path / "live.sqlite").host_key() == first
    assert LiveStore(tmp_path / "other.sqlite").host_key() != first


@pytest.mark.parametrize("stop_after", [7, 16, 26])  # the game has 30 decisions
def test_bots_decide_the_same_after_a_restart(tmp_path: Path, stop_after: int) -> None:
    for name in ("a", "b"):  # the same key in both stores: the same seat seeds
        keep_key(tmp_path / f"{name}.sqlite")
    straight = GameManager(
        settings_for(
            tmp_path / "a", db=tmp_path / "a.sqlite", allowed_agents=("random", "heuristic")
        )
    )
    interrupted_settings = settings_for(
        tmp_path / "b", db=tmp_path / "b.sqlite", allowed_agents=("random", "heuristic")
    )
    first = GameManager(interrupted_settings)

    reference = asyncio.run(play(straight))
    assert len(reference.game.decisions) > stop_after  # type: ignore[union-attr]
    stopped = asyncio.run(play(first, stop_after))
    assert stopped.game is not None and not stopped.game.over
    before = len(stopped.game.decisions)

    again = asyncio.run(resumed(GameManager(interrupted_settings), stopped.id))
    assert again.game is not None and again.game.over
    assert len(again.game.decisions) > before  # the bots played on after the restart
    assert again.resume_differences == 0
    assert per_seat(again) == per_seat(reference)
    assert again.game.state.winner == reference.game.state.winner  # type: ignore[union-attr]
