"""In the browser, the replay page reads as the terminal game does
(`views.people_text.people_line`): a team's chat is "team chat", a vote's kind and a
plea in words, a team's picks with their round of how many, where the page wrote the
transcript's ids ("P1 (night_chat)", "Votes (final_vote)"); a private line's tag is in
the terminal's words, sent by the server. The live page and the
spectator's page get the same lines (`test_web_people_lines.py`, over the websocket).
"""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.support import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_the_replay_page_says_team_chat_and_the_kinds_in_words(
    browser: Any, server: LiveServer
) -> None:
    """Classic, 7 bots, seed 3: P1 and P2 are the mafiosi and talk at night."""
    created = server.create(variant="classic", players=7, seed=3)
    game_id = created["game_id"]
    game = server.wait_over(game_id)
    assert game.state.seats[0].card == "mafioso"
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#past-lines li")
    assert page.locator("#past-seat").input_value() == "0"  # P1's lines first
    speakers = page.locator("#past-lines li.speech .speaker").all_inner_texts()
    assert "[N1] P2 (team chat)" in speakers, speakers
    assert any(s.endswith(" (final plea)") for s in speakers), speakers
    lines = page.locator("#past-lines li").all_inner_texts()
    assert any(t.startswith("[D1] Votes (final vote): ") for t in lines), lines
    assert any("Team picks for the mafia's kill (round 1 of 3): " in t for t in lines)
    # a private line's tag is the server's words, the terminal's ("[mafia kill]" before)
    tags = page.locator("#past-lines li.private .tag").all_inner_texts()
    assert "[the mafia's kill]" in tags and "[private]" in tags, tags
    assert "[mafia kill]" not in tags
    # a line that says whose it is has no tag: it read "[the mafia's kill] ... Team
    # picks for the mafia's kill"
    picks = page.locator("#past-lines li.private", has_text="Team picks for the mafia's kill")
    assert picks.count() and picks.locator(".tag").count() == 0
    page.select_option("#past-seat", "moderator")
    moderator = page.locator("#past-lines li").all_inner_texts()
    # the seven-player table's one detective is a team of one: its picks are its own
    assert any("Your pick for the detectives' check (round 1 of 2): " in t for t in moderator)
    tags = page.locator("#past-lines li.private .tag").all_inner_texts()
    assert "[the mafia's kill: P1, P2]" in tags, tags
    picks = page.locator("#past-lines li.private", has_text="Team picks for the mafia's kill")
    assert picks.count() and set(picks.locator(".tag").all_inner_texts()) == {"[P1, P2]"}
    assert not [t for t in lines + moderator if "_chat)" in t or "_vote)" in t]
    context.close()
