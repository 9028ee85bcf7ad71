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
from tests.web.browser_support import WINDOWS, play_pages
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


# The text colour of an element and the colour behind it (the nearest painted ancestor's),
# each as [r, g, b].
COLOURS = """(selector) => {
  const element = document.querySelector(selector);
  const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  let behind = element;
  while (behind && getComputedStyle(behind).backgroundColor.replace(/ /g, "").endsWith(",0)")) {
    behind = behind.parentElement;
  }
  const back = getComputedStyle(behind || document.body).backgroundColor;
  return [rgb(getComputedStyle(element).color), rgb(back)];
}"""


def contrast(page: Any, selector: str) -> float:
    """The WCAG contrast ratio of the element's text against what is behind it."""

    def luminance(rgb: list[float]) -> float:
        channels = [c / 255 for c in rgb]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    text, behind = (luminance(rgb) for rgb in page.evaluate(COLOURS, selector))
    return (max(text, behind) + 0.05) / (min(text, behind) + 0.05)


def idle_until_the_stand_in(browser: Any, server: LiveServer) -> Any:
    """A phone page whose player lets two speaking turns run out: the stand-in plays."""
    created = server.create(
        variant="standard",
        players=7,
        seed=4,
        seats=[{"kind": "human"}],
        timer_scale=0.05,  # a 4.5 s speech
        bot_delay=0.3,  # the game goes on long enough to be looked at
    )
    page = browser.new_context(**WINDOWS["phone"]).new_page()
    page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
    page.fill("#join-name", "Idle")
    page.click("#join-button")
    page.wait_for_selector("#warning:has-text('a stand-in bot takes your seat')")
    page.wait_for_selector("#stand-in:not([hidden])", timeout=60_000)
    return page


def test_the_countdown_to_a_stand_in_goes_once_the_stand_in_plays(
    browser: Any, tmp_path: Path
) -> None:
    """ "After 1 more missed turn a stand-in bot takes your seat" is untrue once it has: the
    page that shows the stand-in drops that warning (the take-back box says what holds)."""
    server = LiveServer(settings_for(tmp_path, grace=600.0, idle_turns=2))
    try:
        page = idle_until_the_stand_in(browser, server)
        assert page.locator("#warning").inner_text() == ""
        page.context.close()
    finally:
        server.close()


def test_the_absence_notes_are_readable_on_the_dark_page(browser: Any, tmp_path: Path) -> None:
    """The stand-in box, the table's notices and the warning keep the text readable
    (WCAG AA, 4.5:1) on the page's dark theme, not light text on a pale box."""
    server = LiveServer(settings_for(tmp_path, grace=600.0, idle_turns=2))
    try:
        page = idle_until_the_stand_in(browser, server)
        page.wait_for_selector("#notices li")
        page.evaluate("document.querySelector('#warning').textContent = 'sample'")
        for selector in ("#stand-in p", "#notices li", "#warning"):
            assert contrast(page, selector) >= 4.5, selector
        page.context.close()
    finally:
        server.close()
