"""The after-game replay, computed once per game and off the event loop.

A replay (`storage.replay_views`) replays the whole log and renders every seat's lines:
about 100 ms and a few MB of JSON for a 20-player Palermo or 26-player club game. Done
in the request handler, every request would stall every live game's sockets for that
long, and a client asking in a loop could keep the server from serving its tables. A
finished game's log never changes, so its encoded replay is kept (the newest few) and
computed in a worker thread, one at a time: requests that arrive while it is computed
wait for it rather than compute it again (forty pages asking at once for a fresh
replay each computed it, and every live game's sockets stalled for seconds).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from fastapi.responses import JSONResponse

from mafia_arena.runner.log import GameLog
from mafia_arena.web.storage import replay_views

KEPT_REPLAYS = 16
"""Encoded replays kept, the most recently asked for (a few MB each at most)."""


def encoded_replay(stored: GameLog) -> bytes:
    """The replay's JSON body, exactly as the route's JSON response would encode it.
    Raises `storage.ReplayMismatch` for a log that no longer replays."""
    return bytes(JSONResponse(replay_views(stored)).body)


class ReplayCache:
    """Encoded replays by game id, the `KEPT_REPLAYS` most recently asked for."""

    def __init__(self, size: int = KEPT_REPLAYS) -> None:
        self.size = size
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._computing = asyncio.Lock()
        """Held while a replay is computed: one at a time, whoever asks for which."""

    async def body(self, game_id: str, stored: GameLog) -> bytes:
        """The encoded replay of the finished game `game_id` (its log `stored`),
        computed in a worker thread the first time, one replay at a time (a request
        that waited finds the body another computed meanwhile). Only finished games
        may be asked for: the body is kept as it is."""
        body = self._bodies.get(game_id)
        if body is not None:
            self._bodies.move_to_end(game_id)
            return body
        async with self._computing:
            body = self._bodies.get(game_id)
            if body is None:
                body = await asyncio.to_thread(encoded_replay, stored)
                self._bodies[game_id] = body
                while len(self._bodies) > self.size:
                    self._bodies.popitem(last=False)
        return body
