"""The four moments a new player meets, checked and photographed at two window sizes.

For a desktop window and a phone-sized one, a 7-player `standard` game with one human
seat and heuristic bots is played in Chromium: the creator's lobby, the human's first
night (the seed deals P1 the detective, who acts at night), the second day's vote (with
the first day's ballot beside it), and the end screen. Each moment is checked (the right
panel shows, the phase label, the vote buttons, every card revealed) and must not scroll
sideways at that width.

    MAFIA_WEB_SHOTS=docs/screenshots .venv/bin/python -m pytest -p no:cacheprovider \
        tests/web/test_screenshots.py

saves `<desktop|phone>-<lobby|night|vote|end>.png` (viewport screenshots) there.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.browser_support import WINDOWS, assert_fits, in_view, play_pages, shoot, step
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SEED = 23  # deals P1 the detective, who is still alive at the second vote
DECK = Counter({"villager": 3, "doctor": 1, "detective": 1, "mafioso": 2})
SPEECH = "Quiet night on my side. Let us hear everyone before we vote."


@pytest.fixture
def heuristic_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(settings_for(tmp_path, allowed_agents=("heuristic", "random")))
    live.manager.host_key = FIXED_HOST_KEY  # the same bot seat seeds every run
    try:
        yield live
    finally:
        live.close()


def phase(page: Any) -> str:
    return (page.locator("#phase").text_content() or "").strip().lower()


def move(page: Any) -> bool:
    """One `step` whose pick depends only on the request's prompt, not on timing.

    Why: a click can miss a button re-rendered under it and is then retried; drawing
    from a generator seeded by the prompt makes the retry pick the same choice, so the
    seeded game always takes the same course (see `SEED`).
    """
    prompt = page.locator("#prompt").text_content() or ""
    return step(page, random.Random(prompt), SPEECH)


def play_until(page: Any, ready: Callable[[], bool], what: str, timeout: float = 90) -> None:
    """Answer every turn (see `move`, `SPEECH` when speaking) until `ready()`."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"never reached {what}"
        assert not move(page), f"the game ended before {what}"
        page.wait_for_timeout(40)


@pytest.mark.parametrize("window", list(WINDOWS))
def test_lobby_night_vote_and_end_screen(
    browser: Any, heuristic_server: LiveServer, window: str
) -> None:
    server = heuristic_server
    created = server.create(
        variant="standard",
        players=7,
        seed=SEED,
        seats=[{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}],
    )
    game_id = created["game_id"]
    context = browser.new_context(**WINDOWS[window])
    page = context.new_page()

    # The home page with its form loaded: the longest variant title must not widen it.
    page.goto(server.url + "/")
    page.wait_for_selector("#create-button:not([disabled])")
    assert_fits(page, "home")
    shoot(page, f"{window}-home")

    # The lobby, as its creator sees it (the creator's key sits in localStorage).
    page.evaluate(
        f"localStorage.setItem('mafia:admin:{game_id}', {json.dumps(json.dumps(created['admin']))})"
    )
    page.goto(f"{server.url}/g/{game_id}")
    page.wait_for_selector("#invites li button")
    assert page.locator("#lobby").is_visible()
    seats = page.locator("#lobby-seats li").all_inner_texts()
    assert len(seats) == 7
    assert seats[0] == "P1: waiting for a player"
    assert all(text.endswith("bot (heuristic)") for text in seats[1:])
    take = page.locator("#invites li button", has_text="Take P1 myself")
    assert take.is_visible()
    assert page.locator("#start-now").is_visible()
    assert_fits(page, "lobby")
    shoot(page, f"{window}-lobby")

    # The first night: the detective picks whom to check.
    take.click()
    page.wait_for_selector("#choices button")
    assert page.locator("#game").is_visible()
    assert phase(page) == "night 1"
    assert page.locator("#you-role").inner_text() == "detective"
    assert page.locator("#players-list li").count() == 7
    checks = page.locator("#choices button").all_inner_texts()
    assert checks == [f"check P{n}" for n in range(2, 8)]
    assert page.locator("#prompt").inner_text().strip()
    assert_fits(page, "night")
    shoot(page, f"{window}-night")

    # Day 2's vote: the ballot buttons, and yesterday's ballot in the votes panel.
    def voting() -> bool:
        return (
            phase(page) == "day 2"
            and not page.locator("#speech").is_visible()
            and page.locator("#choices button:enabled").count() > 0
        )

    play_until(page, voting, "the second day's vote")
    ballot = page.locator("#choices button").all_inner_texts()
    assert ballot and all(re.fullmatch(r"P[2-7]", label) for label in ballot)
    assert "vote" in page.locator("#prompt").inner_text().lower()
    assert page.locator("#transcript li", has_text="Result of your check on").count() >= 1
    votes = page.locator("#votes")
    # On a phone the panel sits below the table: bring it above the sticky ballot.
    votes.evaluate("node => node.parentElement.scrollIntoView({block: 'center'})")
    assert votes.is_visible()
    assert "Last vote: day 1" in votes.inner_text()
    assert votes.locator(".vote-line", has_text="[D1] Votes").count() == 1
    assert votes.locator(".tally .bar").count() >= 1  # yesterday's tally, with bars
    assert_fits(page, "vote")
    shoot(page, f"{window}-vote")
    if window == "phone":  # the living and the dead one tap away, over the ballot
        toggle = page.locator("#players-toggle")
        assert toggle.is_visible() and re.fullmatch(r"Players \d/7", toggle.inner_text())
        toggle.click()
        listed = page.locator("#players-list li")
        assert listed.count() == 7
        assert page.locator("#players-list li.dead").count() >= 1  # the night's victim
        assert all(in_view(page, row) for row in listed.all())
        assert all(in_view(page, b) for b in page.locator("#choices button").all()[:2])
        assert (page.locator("#players-count").text_content() or "").endswith("dead")
        shoot(page, "phone-vote-players")
        toggle.click()
        assert page.locator("body.players-open").count() == 0
        assert not listed.first.is_visible()  # the second tap hides the list again
    move(page)

    # The end screen: every seat's card, who won, the replay.
    play_pages([page], timeout=180, speech=SPEECH)
    page.wait_for_selector("#replay li")
    assert (page.locator("#end-title").text_content() or "").startswith("Game over")
    rows = page.locator("#reveal tbody tr")
    assert rows.count() == 7
    labels = rows.locator("td:nth-child(1)").all_inner_texts()
    roles = rows.locator("td:nth-child(3)").all_inner_texts()
    assert labels == [f"P{n}" for n in range(1, 8)]
    assert Counter(roles) == DECK
    assert page.locator("#action").is_hidden()
    assert_fits(page, "end")
    page.evaluate("window.scrollTo(0, 0)")  # the card and the reveal, from the top
    shoot(page, f"{window}-end")
    assert server.wait_over(game_id).over
    context.close()
