"""The after-game replay is computed once per game, in a worker thread, and kept for
the newest games: a finished game's log never changes, and a replay of a large table
takes about 100 ms, which in the request handler would stall every live table."""

from __future__ import annotations

import asyncio
import json
import threading

from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.registry import make_agent
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog
from mafia_arena.runner.match import play_match_sync
from mafia_arena.web import replay_cache
from mafia_arena.web.replay_cache import ReplayCache
from mafia_arena.web.storage import replay_views


def finished_game(seed: int) -> GameLog:
    agents = [make_agent("random") for _ in range(7)]
    return play_match_sync(load_variant("standard"), agents, seed, host_key=FIXED_HOST_KEY).log


def test_the_body_is_the_replay_encoded_and_is_kept_per_game() -> None:
    cache = ReplayCache(size=2)
    logs = {f"g{seed}": finished_game(seed) for seed in (1, 2, 3)}

    async def ask(game_id: str) -> bytes:
        return await cache.body(game_id, logs[game_id])

    first = asyncio.run(ask("g1"))
    assert json.loads(first) == json.loads(json.dumps(replay_views(logs["g1"])))
    assert asyncio.run(ask("g1")) is first  # kept, not computed again
    asyncio.run(ask("g2"))
    asyncio.run(ask("g1"))  # g1 asked last: g2 is the oldest now
    asyncio.run(ask("g3"))
    assert list(cache._bodies) == ["g1", "g3"]


def test_the_replay_is_computed_off_the_event_loop(monkeypatch) -> None:
    """The event loop keeps running while a replay is computed: the computation runs on
    another thread than the loop's."""
    threads: list[threading.Thread] = []
    real = replay_cache.replay_views

    def recording(stored: GameLog) -> dict:
        threads.append(threading.current_thread())
        return real(stored)

    monkeypatch.setattr(replay_cache, "replay_views", recording)
    log = finished_game(4)

    async def ask() -> threading.Thread:
        await ReplayCache().body("g4", log)
        return threading.current_thread()

    loop_thread = asyncio.run(ask())
    assert threads and threads[0] is not loop_thread
