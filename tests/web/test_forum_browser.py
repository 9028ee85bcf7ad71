"""A mixed dictator game in Chromium: a human writes a private message to a bot, places
an ad and writes a testament from the page, and the bot answers privately.

    MAFIA_WEB_SHOTS=docs/screenshots .venv/bin/python -m pytest -p no:cacheprovider \
        tests/web/test_forum_browser.py

saves `desktop-forum.png` there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.browser_support import shoot
from tests.web.conftest import settings_for
from tests.web.support import LiveServer

from mafia_arena.engine.catalogue import DeliveredTestament, Newspaper, PrivateMessage

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture
def heuristic_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(settings_for(tmp_path, allowed_agents=("heuristic", "random")))
    live.manager.host_key = bytes(range(32))
    try:
        yield live
    finally:
        live.close()


def click_form(page: Any, words: str, label: str) -> None:
    """Type `words`, then press the form button `label` (its content is the words)."""
    page.wait_for_selector(f"#choices button:enabled:text-is('{label}')", timeout=30_000)
    page.fill("#speech-text", words)
    page.locator("#choices button", has_text=label).first.click()
    page.wait_for_timeout(200)


def test_a_human_writes_privately_places_an_ad_and_a_testament_and_a_bot_answers(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    created = server.create(
        variant="dictator",
        players=12,
        seed=4,
        seats=[{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}],
    )
    game_id = created["game_id"]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
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

    # the bot answers privately within the same night; keep the window open for it
    deadline = time.monotonic() + 60
    while "Thanks for writing, P1." not in page.locator("#forum-messages").inner_text():
        assert time.monotonic() < deadline, "the bot never answered"
        posts = page.locator("#speech button")
        if posts.is_visible() and posts.is_enabled():
            page.fill("#speech-text", "Still here.")
            posts.click()
        page.wait_for_timeout(200)
    messages = page.locator("#forum-messages").inner_text()
    assert "P1 → P2: Hello P2, whom do you trust?" in messages
    assert "P2 → P1: Thanks for writing, P1." in messages
    while "No edition yet." in page.locator("#newspaper").inner_text():
        assert time.monotonic() < deadline, "no newspaper edition"
        done = page.locator("#choices button:enabled", has_text="done for this phase")
        if done.count():
            done.first.click()
        page.wait_for_timeout(200)
    assert "The quiet ones are hiding something." in page.locator("#newspaper").inner_text()
    shoot(page, "desktop-forum")

    game = server.game(game_id)
    sent = [e.fact for e in game.events if isinstance(e.fact, PrivateMessage)]
    assert any(f.sender == 0 and f.recipients == (1,) for f in sent)
    assert any(f.sender == 1 and f.recipients == (0,) for f in sent)
    ads = [e.fact for e in game.events if isinstance(e.fact, Newspaper)]
    assert any("The quiet ones are hiding something." in f.texts for f in ads)
    assert not [e for e in game.events if isinstance(e.fact, DeliveredTestament)]
    assert game.derived["forum"].testaments[0].text == "I was a citizen; trust P2."
