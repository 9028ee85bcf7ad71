"""The after-game replay is computed once per game, in a worker thread, one at a time,
and kept for the newest games: a finished game's log never changes, and a replay of a
large table takes about 100 ms, which in the request handler would stall every live
table."""

from __future__ import annotations

import asyncio
import json
import threading
import time

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


def test_requests_at_once_compute_each_replay_once_and_one_at_a_time(monkeypatch) -> None:
    """Pages that ask at once for a replay not yet kept wait for one computation, and
    replays of different games are computed one after another: computed once per
    request, forty requests at once stalled every live table for seconds."""
    calls: list[int] = []  # the seeds of the games computed
    running = [0, 0]  # now, most at once
    lock = threading.Lock()
    real = replay_cache.replay_views

    def recording(stored: GameLog) -> dict:
        with lock:
            calls.append(stored.seed)
            running[0] += 1
            running[1] = max(running)
        time.sleep(0.05)  # a large table's replay takes about this long
        try:
            return real(stored)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(replay_cache, "replay_views", recording)
    logs = {f"g{seed}": finished_game(seed) for seed in (5, 6)}
    cache = ReplayCache()

    async def ask_at_once() -> list[bytes]:
        asks = [cache.body(game_id, logs[game_id]) for game_id in ("g5", "g6") * 10]
        return await asyncio.gather(*asks)

    bodies = asyncio.run(ask_at_once())
    assert sorted(calls) == [5, 6]
    assert running[1] == 1
    assert len(set(bodies[0::2])) == 1 and len(set(bodies[1::2])) == 1
