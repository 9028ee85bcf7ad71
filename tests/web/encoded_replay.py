"""``python -m tests.web.encoded_replay LOG``: print the web replay's JSON body of a
stored log (`web.replay_cache.encoded_replay`, what ``GET /api/games/{id}/replay``
serves), for `test_replay_elsewhere.py` to compare across processes."""

from __future__ import annotations

import sys

from mafia_arena.runner.log import GameLog
from mafia_arena.web.replay_cache import encoded_replay

if __name__ == "__main__":
    sys.stdout.write(encoded_replay(GameLog.load(sys.argv[1])).decode("utf-8"))
