"""A team's later round of night picks says what happened to a teammate who did not
pick: the clock ran out, or the person is away and their turns get default actions.

Two people hold the mafiosi of a 7-player `standard` game (seed 1 deals P1 and P6 the
mafiosi). P1 picks a victim; P6 never opens the page. The rules ask the mafia again
(docs/rules/standard.md), and P1's page says why. Before, it read "a teammate passed or
did not answer in time" either way, and for a teammate replaced as away nothing of it
was true. The host's record of the round says which it was
(`web.stand_ins.round_answers`); the words name no teammate
(`views.people_text.team_round_prompt`).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer, open_seat, recv_until

from mafia_arena.engine.choices import PASS, Request
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.views.people_text import people_prompt
from mafia_arena.views.view import SeatTracker
from mafia_arena.web.stand_ins import round_answers

pytestmark = pytest.mark.timeout(120)

HUMAN, BOT = {"kind": "human"}, {"kind": "bot", "agent": "random"}
FIRST = "Night 1: choose tonight's victim"


def _asked_to_kill(message: dict[str, Any]) -> bool:
    request = message.get("request") if message.get("type") == "state" else None
    return request is not None and request["kind"] == "night:mafia_kill"


async def second_round_prompt(server: LiveServer, game_id: str, credential: str) -> str:
    """P1 kills P2 in the first round; the prompt of its second round, as pushed."""
    ws = await open_seat(server, game_id, credential)
    try:
        first = await recv_until(ws, _asked_to_kill, timeout=30)
        request = first["request"]
        assert request["prompt"] == FIRST
        choice = request["options"].index("kill P2")
        await ws.send(json.dumps({"type": "act", "turn": request["turn"], "choice": choice}))
        again = await recv_until(
            ws,
            lambda m: _asked_to_kill(m) and m["request"]["turn"] != request["turn"],
            timeout=60,
        )
        return str(again["request"]["prompt"])
    finally:
        await ws.close()


@pytest.mark.parametrize(
    ("grace", "why"),
    [
        (600.0, "a teammate did not answer in time"),
        (0.2, "a teammate is away"),  # replaced at once: default actions
    ],
)
def test_a_later_round_says_a_teammate_timed_out_or_is_away(
    tmp_path: Path, grace: float, why: str
) -> None:
    live = LiveServer(settings_for(tmp_path, grace=grace))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        created = live.create(
            variant="standard",
            players=7,
            seed=1,
            seats=[HUMAN, BOT, BOT, BOT, BOT, HUMAN, BOT],
            timer_scale=0.2,  # a night step's 45 s are 9 s: time enough for P1 under load
            absent="default",
        )
        game_id = created["game_id"]
        credentials = {
            invite["seat"]: live.join(game_id, invite["invite"], f"h{invite['seat']}")["credential"]
            for invite in created["invites"]
        }
        prompt = asyncio.run(second_round_prompt(live, game_id, credentials[0]))
        assert prompt == f"{FIRST} (round 2 of 2: {why})"
        log = live.game(game_id).events
        assert "did not answer in time" not in json.dumps([e.to_json() for e in log])
    finally:
        live.close()


def _to_the_first_clan_kill(game: Game) -> dict[int, Request]:
    """Play `game` with the first legal choice of every request (a speech: its first
    option) until the mafia's kill is asked of two or more seats; those requests."""
    while not game.over:
        pending = game.pending()
        kill = {s: r for s, r in pending.items() if r.kind == "night:mafia_kill"}
        if len(kill) >= 2:
            return kill
        for seat, request in pending.items():
            if game.request(seat) is not None:
                game.submit(seat, request.choices[-1])
    raise AssertionError("the game ended before the mafia's kill")


def test_a_teammate_s_timeout_that_drew_a_random_pick_is_not_a_disagreement() -> None:
    """Club's kills default to a random pick: a member whose clock ran out "picked" a
    random victim, and the next round read "the team did not agree". The host's record
    of the round (`round_answers`: the decision's fallback) says what happened."""
    variant = load_variant("club", {"clan_rounds": 3})
    game = Game(variant, 10, 5)
    kill = _to_the_first_clan_kill(game)
    first, late = sorted(kill)[:2]
    victim = next(c for c in kill[first].choices if c != PASS)
    game.submit(first, victim)
    for seat in sorted(kill)[2:]:
        game.submit(seat, victim)
    drawn = game.submit_default(late, "timeout")
    assert drawn != victim  # this seed draws another victim: the picks differ
    marks = ["player"] * len(game.decisions)  # the web table marks the default "timeout"
    again = game.pending()
    assert {first, late} <= set(again)

    def told(seat: int) -> str:
        knowledge = SeatTracker(seat).update(game)
        return people_prompt(
            again[seat], knowledge, variant, lambda picks: round_answers(game.events, marks, picks)
        )

    assert told(first).endswith(
        "(round 2 of 3: a teammate did not answer in time (a random pick was made))"
    )
    assert told(late).endswith(
        "(round 2 of 3: you did not answer in time (a random pick was made))"
    )
    knowledge = SeatTracker(first).update(game)
    assert people_prompt(again[first], knowledge, variant).endswith(
        "(round 2 of 3: the team did not agree)"  # what the picks alone say
    )
