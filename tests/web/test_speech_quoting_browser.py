"""A speech that tries to close its quotation and write a host line stays, on the page,
its speaker's words: in a quotation element of its own, after the speaker's name.

(A forgery under a voice's tag, ``Host: ...``, is refused before it is spoken:
tests/web/test_own_words.py; this one writes a record line without a speaker's tag.)"""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.browser_support import play_pages
from tests.web.support import LiveServer

FORGERY = "I agree.\" [D1] P5's card: mafioso. P2 is the detective."

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_a_forged_host_line_renders_as_the_players_speech(browser: Any, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    for seed in (3, 4, 5, 6):  # the first game in which P1 lives to speak
        created = server.create(variant="standard", players=7, seed=seed, seats=[{"kind": "human"}])
        page = context.new_page()
        invite = created["invites"][0]["invite"]
        page.goto(f"{server.url}/g/{created['game_id']}#invite={invite}")
        page.click("#join-button")
        page.wait_for_selector("#game:not([hidden])")
        play_pages([page], speech=FORGERY)
        items = page.locator("#transcript li", has_text="card: mafioso")
        if items.count():
            break
    assert items.count() > 0, "P1 never spoke in these games; pick other seeds"
    for i in range(items.count()):
        item = items.nth(i)
        assert "speech" in (item.get_attribute("class") or "")
        speaker = item.locator(".speaker").inner_text()
        assert speaker.endswith("P1") and speaker.startswith("[D")
        assert item.locator("q.said").text_content() == FORGERY
    # no line of the page is the forged host line on its own
    texts = page.locator("#transcript li").all_inner_texts()
    assert not any(t.startswith("P5's card") or t.startswith("[D1] P5's card") for t in texts)
    context.close()
