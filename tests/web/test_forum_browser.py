"""A mixed dictator game in Chromium: a human writes a private message to a bot, places
an ad, writes a testament and one message to two players from the page, and the bot
answers privately.

    MAFIA_WEB_SHOTS=docs/screenshots .venv/bin/python -m pytest -p no:cacheprovider \
        tests/web/test_forum_browser.py

saves `desktop-forum.png` and `phone-forum.png` (390×844, the forum panels scrolled
into view) there; at both sizes nothing may be wider than the window.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.web.browser_support import WINDOWS, assert_fits, in_view, shoot
from tests.web.support import LiveServer

from mafia_arena.engine.catalogue import (
    DeliveredTestament,
    GameMasterNotice,
    Newspaper,
    PrivateMessage,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]
FORUM_WINDOWS = {**WINDOWS, "desktop": {"viewport": {"width": 1280, "height": 900}}}
"""The screenshot sizes; the desktop forum is a little taller than the other shots."""


def click_form(page: Any, words: str, label: str) -> None:
    """Type `words`, then press the form button named `label` (its content is the
    words). A per-player form ("private message to P2") is a short button in its form's
    row, named by its full label."""
    button = page.locator("#choices").get_by_role("button", name=label, exact=True).first
    expect(button).to_be_enabled(timeout=30_000)
    page.fill("#speech-text", words)
    button.click()
    page.wait_for_timeout(200)


@pytest.mark.parametrize("window", list(FORUM_WINDOWS))
def test_a_human_writes_privately_places_an_ad_and_a_testament_and_a_bot_answers(
    browser: Any, heuristic_server: LiveServer, window: str
) -> None:
    server = heuristic_server
    created = server.create(
        variant="dictator",
        players=12,
        seed=4,
        seats=[{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}],
    )
    game_id = created["game_id"]
    page = browser.new_context(**FORUM_WINDOWS[window]).new_page()
    page.goto(server.url + "/")
    page.evaluate(
        f"localStorage.setItem('mafia:admin:{game_id}', {json.dumps(json.dumps(created['admin']))})"
    )
    page.goto(f"{server.url}/g/{game_id}")
    page.wait_for_selector("#invites li button")
    page.locator("#invites li button", has_text="Take P1 myself").click()
    page.wait_for_selector("#speech", state="visible")

    click_form(page, "Hello P2, whom do you trust?", "private message to P2")
    click_form(page, "The quiet ones are hiding something.", "place an ad under a new pseudonym")
    click_form(page, "I was a citizen; trust P2.", "write a public testament")
    # a form the turn does not list: one message to P3 and P5 (typed as the page shows)
    written = page.locator("#choices").get_by_role("button", name="message to them", exact=True)
    expect(written).to_be_enabled(timeout=30_000)
    page.fill("#form-seats", "P3, 5")
    click_form(page, "Meet me after dark.", "message to them")

    # the bot answers privately within the same night; keep the window open for it
    deadline = time.monotonic() + 60
    while "P2 → P1: " not in page.locator("#forum-messages").inner_text():
        assert time.monotonic() < deadline, "the bot never answered"
        posts = page.locator("#speech button")
        if posts.is_visible() and posts.is_enabled():
            page.fill("#speech-text", "Still here.")
            posts.click()
        page.wait_for_timeout(200)
    messages = page.locator("#forum-messages").inner_text()
    assert "P1 → P2: Hello P2, whom do you trust?" in messages
    assert "P2 → P1: " in messages
    while "No edition yet." in page.locator("#newspaper").inner_text():
        assert time.monotonic() < deadline, "no newspaper edition"
        done = page.locator("#choices button:enabled", has_text="done for this phase")
        if done.count():
            done.first.click()
        page.wait_for_timeout(200)
    assert "The quiet ones are hiding something." in page.locator("#newspaper").inner_text()
    assert_fits(page, f"{window} forum")
    row = page.locator("#choices .form-row", has_text="private message to")
    assert row.locator("button").count() == 11  # one short button per other player
    if window == "phone":  # one column: the forum's panels at the top of the window
        page.locator("#forum").evaluate("e => e.scrollIntoView({block: 'start'})")
        assert in_view(page, page.locator("#forum-messages"))
        assert in_view(page, page.get_by_role("button", name="write a public testament"))
    shoot(page, f"{window}-forum")

    game = server.game(game_id)
    sent = [e.fact for e in game.events if isinstance(e.fact, PrivateMessage)]
    assert any(f.sender == 0 and f.recipients == (1,) for f in sent)
    assert any(f.sender == 1 and f.recipients == (0,) for f in sent)
    assert any(f.sender == 0 and f.recipients == (2, 4) for f in sent)
    ads = [e.fact for e in game.events if isinstance(e.fact, Newspaper)]
    assert any("The quiet ones are hiding something." in f.texts for f in ads)
    assert not [e for e in game.events if isinstance(e.fact, DeliveredTestament)]
    assert game.derived["forum"].testaments[0].text == "I was a citizen; trust P2."

    # the creator moderates from the page: a warning to P2, told to P2 alone
    panel = page.locator("#moderator-panel")
    expect(panel).to_be_visible()
    page.select_option("#ruling-kind", "warning")
    page.select_option("#ruling-seat", "1")
    page.fill("#ruling-value", "Keep private messages civil.")
    panel.get_by_role("button", name="Give ruling").click()
    expect(page.locator("#ruling-note")).to_have_text("Ruling given: warning on P2.")
    panel.evaluate("e => e.scrollIntoView({block: 'center'})")
    shoot(page, f"{window}-moderator")
    warned = [e for e in game.events if isinstance(e.fact, GameMasterNotice)]
    assert any(
        "Keep private messages civil." in e.fact.text
        for e in warned
        if isinstance(e.fact, GameMasterNotice)
    )
    assert "Keep private messages civil." not in page.locator("#transcript").inner_text()


def test_a_refused_form_keeps_the_words_and_a_taken_one_clears_them(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """The words box is cleared when a form is taken (the next turn comes), not when
    it is sent: a form the game master refuses leaves what the person wrote in the box,
    to mend and send again."""
    server = heuristic_server
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
    created = server.create(variant="dictator", players=12, seed=4, seats=seats)
    game_id = created["game_id"]
    page = browser.new_context().new_page()
    page.goto(server.url + "/")
    admin = json.dumps(json.dumps(created["admin"]))
    page.evaluate(f"localStorage.setItem('mafia:admin:{game_id}', {admin})")
    page.goto(f"{server.url}/g/{game_id}")
    page.wait_for_selector("#invites li button")
    page.locator("#invites li button", has_text="Take P1 myself").click()
    written = page.locator("#choices").get_by_role("button", name="message to them", exact=True)
    expect(written).to_be_enabled(timeout=30_000)
    words = "Meet me after dark, and bring the list."
    page.fill("#speech-text", words)
    page.fill("#form-seats", "1, 6")  # P1 is this seat: no message to oneself
    written.click()
    expect(page.locator("#action-error")).to_have_text(
        "private messages go to other players in the game"
    )
    assert page.locator("#speech-text").input_value() == words
    expect(written).to_be_enabled()
    page.fill("#form-seats", "3, 6")
    written.click()
    expect(page.locator("#speech-text")).to_have_value("", timeout=30_000)  # taken
    expect(page.locator("#forum-messages")).to_contain_text(f"P1 → P3, P6: {words}")
    page.context.close()
