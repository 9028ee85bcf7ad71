"""The absence policy in real Chromium: an idle player is warned, a labelled stand-in
takes the seat, the player takes it back; the stand-in's decisions are marked in the
log and credited to the stand-in (in the record and on the leaderboard); a speech
nobody gave is shown as a timeout."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.web.browser_support import play_pages
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.leaderboard import leaderboard_table, load_records
from mafia_arena.web.driver import NO_SPEECH

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_an_idle_player_is_warned_replaced_by_a_stand_in_and_takes_the_seat_back(
    browser: Any, tmp_path: Path
) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0, idle_turns=2))
    try:
        created = server.create(
            variant="standard",
            players=7,
            seed=4,
            seats=[{"kind": "human"}],
            timer_scale=0.05,  # a 4.5 s speech, 2.25 s votes and night steps
            bot_delay=0.3,  # slow enough to take the seat back before the end
        )
        game_id = created["game_id"]
        page = browser.new_context(viewport={"width": 1200, "height": 860}).new_page()
        page.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
        page.fill("#join-name", "Idle")
        page.click("#join-button")
        page.wait_for_selector("#game:not([hidden])")

        # The player does nothing: first a warning, then the stand-in.
        page.wait_for_selector("#warning:has-text('a stand-in bot takes your seat')")
        page.wait_for_selector("#stand-in:not([hidden])", timeout=60_000)
        badge = page.locator("#players-list li.me .badge.replaced")
        assert badge.inner_text() == "stand-in: heuristic bot"
        assert page.locator("#notices li", has_text="Idle (P1) has not answered").count() == 1
        assert page.locator("#transcript li", has_text=NO_SPEECH).count() >= 1

        # Everyone sees the label, and the stand-in plays: wait for one of its decisions.
        session = server.manager.get(game_id)
        assert session is not None
        deadline = time.monotonic() + 60
        while "stand-in" not in session.marks:
            assert time.monotonic() < deadline, "the stand-in never decided"
            page.wait_for_timeout(100)
        page.click("#take-back")
        page.wait_for_selector("#stand-in[hidden]", state="attached")
        back_at = len(session.marks)
        assert not session.slots[0].replaced
        page.wait_for_selector("#warning:has-text('Welcome back')")
        assert page.locator("#notices li", has_text="is back").count() == 1
        assert page.locator("#players-list li.me .badge.replaced").count() == 0

        play_pages([page], timeout=200)
        game = server.wait_over(game_id)
        assert game.over
        assert session.log is not None
        marks = session.log.meta["decided_by"]
        assert len(marks) == len(session.log.decisions)
        pairs = list(zip(session.log.decisions, marks, strict=True))
        mine = [by for d, by in pairs if d["seat"] == 0]
        # a speech the person let run out is the timeout line, never "I have nothing to add."
        # (bots, and the stand-in, may say that sentence on their own)
        timed_out_speeches = [
            d["text"] for d, by in pairs if d["seat"] == 0 and by == "timeout" and "text" in d
        ]
        assert timed_out_speeches and set(timed_out_speeches) == {NO_SPEECH}
        assert "stand-in" in mine and "timeout" in mine
        later_mine = [by for d, by in pairs[back_at:] if d["seat"] == 0]
        assert "stand-in" not in later_mine  # the seat was the person's again
        record = json.loads((tmp_path / "results" / "games.jsonl").read_text().splitlines()[-1])
        seat = record["seats"][0]
        assert seat["stand_in"] == "heuristic" and seat["replaced"]
        assert seat["stand_in_decisions"] == mine.count("stand-in")
        assert seat["decisions"] == len(mine) - mine.count("stand-in")
        # the leaderboard credits the seat's result to the stand-in, never to the person
        board = leaderboard_table(load_records(tmp_path / "results"), n_boot=0)
        assert "human:Idle" not in set(board["agent"])
        stand_in_row = board.set_index("agent").loc["stand-in:heuristic"]
        assert stand_in_row["seats"] == 1 and stand_in_row["wins"] == int(seat["won"])
    finally:
        server.close()
