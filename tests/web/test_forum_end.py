"""A forum game's end says which rule of the dictator's section 6 ended it.

`engine.forum.dictator.check_win` records "the mafia win" as the reason, which the end
screen showed under "Game over: mafia won": a reason that said nothing the title did
not. The page now names the rule (`web.endings`), found from the finished game when
the page is rendered; the recorded event is left as it was, so stored logs replay.
Over the websocket, since the browser tests' event loop (Playwright's, one per module)
would refuse the autopilot's own loop.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from tests.web.support import LiveServer, autopilot

from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.engine.forum.state import forum

pytestmark = pytest.mark.timeout(180)

DICTATOR_WHY = re.compile(
    r"the dictator P(\d+) is mafia and the citizens are no more than the mafia "
    r"\((\d+) against (\d+)\)"
)


def test_a_forum_game_says_which_rule_ended_it(server: LiveServer) -> None:
    """The dictator's end (`engine.forum.dictator.outcome`) names its rule of section 6
    on the page, where it said "the mafia win" under "Game over: mafia won". Seed 2
    ends by the mafia dictator's rule (OP-D29): the page names the dictator and gives
    the true counts, and the recorded event keeps the engine's words."""
    created = server.create(variant="dictator", players=12, seed=2, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")
    played = asyncio.run(autopilot(server.ws_url, game_id, joined["credential"], 0, 3))
    reveal = played.messages[-1]["reveal"]
    game = server.wait_over(game_id)
    assert reveal["winner"] == game.state.winner == "mafia"
    counted = DICTATOR_WHY.fullmatch(reveal["reason"])
    assert counted, reveal["reason"]
    state, variant = game.state, game.variant
    living = state.living_seats()
    mafia = sum(1 for s in living if variant.side(state.faction(s)) == "mafia")
    dictator = int(counted[1]) - 1
    assert dictator == forum(game).dictator
    assert variant.side(state.faction(dictator)) == "mafia"
    assert (int(counted[2]), int(counted[3])) == (len(living) - mafia, mafia)
    ended = [e.fact for e in game.events if isinstance(e.fact, GameEnded)]
    assert [f.reason for f in ended] == ["the mafia win"]  # the log is as it was
