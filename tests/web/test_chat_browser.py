"""Chat and spectators in real Chromium (Playwright; see browser_support.py).

- Two mafiosi talk in their night channel (the variant's night talk round, switched
  on with ``mafia_chat_rounds``) from two browser contexts, while a third context, a
  villager at the same table, is shown none of it.
- A spectator, through the game's watch link, follows a whole game: no card and no
  private line before the end, only the public ones (a dead player's card, shown when
  the variant reveals it), and their own chat.

The phrases typed are ones no bot says, so the checks cannot be fooled by a bot's words.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests.web.browser_support import shoot, step
from tests.web.support import LiveServer

from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CHAT = {"mafia_chat_rounds": 1}
FIRST = "owl-7431 take the quiet one"
REPLY = "owl-7431 agreed, at dawn we lie low"


def dealt(seed: int) -> list[str]:
    """The cards the server will deal for `seed` (chosen seeds are on in tests)."""
    game = Game(load_variant("standard", CHAT), 7, seed)
    return [s.card for s in game.state.seats]


def open_seat(browser: Any, url: str, game_id: str, invite: str, name: str) -> Any:
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.goto(f"{url}/g/{game_id}#invite={invite}")
    page.fill("#join-name", name)
    page.click("#join-button")
    return page


def test_two_mafiosi_chat_at_night_while_the_town_sees_nothing(
    browser: Any, server: LiveServer
) -> None:
    cards = dealt(3)
    mafia = [s for s, c in enumerate(cards) if c == "mafioso"]
    town = next(s for s, c in enumerate(cards) if c == "villager")
    humans = sorted([*mafia, town])
    created = server.create(
        variant="standard",
        players=7,
        seed=3,
        overrides=CHAT,
        seats=[{"kind": "human" if s in humans else "bot", "agent": "random"} for s in range(7)],
    )
    invites = {i["seat"]: i["invite"] for i in created["invites"]}
    pages = {
        s: open_seat(browser, server.url, created["game_id"], invites[s], f"Seat{s}")
        for s in humans
    }
    first, second = (pages[s] for s in mafia)
    villager = pages[town]

    first.wait_for_selector("#speech:not([hidden])")  # the first mafioso's night talk turn
    assert "talk with your team" in first.locator("#prompt").inner_text()
    first.fill("#speech-text", FIRST)
    first.click("#speech button")
    second.wait_for_selector(f"#private li:has-text('{FIRST}')")
    second.wait_for_selector("#speech:not([hidden])")
    second.fill("#speech-text", REPLY)
    second.click("#speech button")
    first.wait_for_selector(f"#private li:has-text('{REPLY}')")
    # tagged in the terminal's words, sent with the line (it read "[mafia kill]")
    assert "[the mafia's kill]" in first.locator("#private li", has_text=REPLY).inner_text()
    shoot(first, "desktop-night-chat")

    # the villager's page: the night, and nothing of the talk
    villager.wait_for_selector("#prompt:has-text('The night is in progress.')")
    assert villager.locator("#you-role").inner_text() == "villager"
    assert "owl-7431" not in villager.locator("body").inner_text()
    assert villager.locator("#chat-panel").is_hidden()
    shoot(villager, "desktop-night-town")
    for page in pages.values():
        page.context.close()


_LIVING_CARDS = """() => {
  const rows = [...document.querySelectorAll("#players-list li")];
  const alive = rows.filter((li) => !li.classList.contains("dead"));
  const shown = alive.filter((li) => li.querySelector(".badge.role"));
  return [!document.getElementById("end").hidden, shown.map((li) => li.innerText)];
}"""
"""Whether the page shows the game's end, and the living players whose card it shows,
read in one evaluation: the end's message shows every card and the end panel in one
render, and two separate reads could fall on either side of it."""


def test_a_spectator_sees_no_hidden_card(browser: Any, server: LiveServer) -> None:
    created = server.create(
        variant="standard", players=7, seed=8, seats=[{"kind": "human"}, {"kind": "bot"}]
    )
    game_id = created["game_id"]
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    page.goto(f"{server.url}/g/{game_id}#watch={created['watch']}")
    page.wait_for_selector("#lobby:not([hidden])")
    player = open_seat(browser, server.url, game_id, created["invites"][0]["invite"], "Ada")
    page.wait_for_selector("#game:not([hidden])")  # the game began when Ada sat down
    assert page.locator("#watching").is_visible() and page.locator("#card").is_hidden()
    page.fill("#chat-text", "owl-7431 hello from the gallery")
    page.click("#chat-form button")
    page.wait_for_selector("#chat-lines li:has-text('owl-7431 hello from the gallery')")
    # the channel's tag comes with the line (web/chat.py), not from a table in the page
    assert page.locator("#chat-lines li .tag").all_inner_texts() == ["[spectators]"]
    shoot(page, "desktop-spectator")
    assert "owl-7431" not in player.locator("body").inner_text()  # no seat reads it
    rng = random.Random(5)
    checked = 0
    while True:
        ended, living_cards = page.evaluate(_LIVING_CARDS)
        if ended:  # the end shows every card
            break
        assert not living_cards, living_cards  # before it, only a dead player's card
        assert page.locator("#transcript li.private").count() == 0
        assert page.locator("#action").is_hidden()
        checked += 1
        step(player, rng, "heron-5120 just a villager here")
        page.wait_for_timeout(40)
    assert checked > 0
    server.wait_over(game_id)
    page.wait_for_selector("#reveal tbody tr")
    assert page.locator("#reveal tbody tr").count() == 7  # after the end: every card
    page.wait_for_selector("#replay-seat option[value=moderator]", state="attached")
    for context in (page.context, player.context):
        context.close()


def _watching_with_chat(browser: Any, server: LiveServer) -> tuple[Any, str]:
    """A spectator's page of a standard game whose seat 1 Ada has taken, once its chat
    box shows: the page and the game's id."""
    created = server.create(
        variant="standard", players=7, seed=8, seats=[{"kind": "human"}, {"kind": "bot"}]
    )
    page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    game_id = created["game_id"]
    page.goto(f"{server.url}/g/{game_id}#watch={created['watch']}")
    page.wait_for_selector("#lobby:not([hidden])")
    open_seat(browser, server.url, game_id, created["invites"][0]["invite"], "Ada")
    page.wait_for_selector("#chat-form:not([hidden])")
    return page, game_id


def test_a_refused_chat_line_comes_back_to_the_box(browser: Any, server: LiveServer) -> None:
    """A line the server refuses (here: only invisible characters, which are empty once
    cleaned) is put back in the box with the reason, to mend and send again; a taken
    line leaves the box empty."""
    page, _ = _watching_with_chat(browser, server)
    invisible = "\u200b\u200b\u200b"  # zero-width spaces: not trimmed by the page
    page.fill("#chat-text", invisible)
    page.click("#chat-form button")
    page.wait_for_selector("#chat-error:has-text('empty message')")
    assert page.locator("#chat-text").input_value() == invisible
    page.fill("#chat-text", "owl-7431 a line that is taken")
    page.click("#chat-form button")
    page.wait_for_selector("#chat-lines li:has-text('owl-7431 a line that is taken')")
    assert page.locator("#chat-text").input_value() == ""
    page.context.close()


def test_a_chat_line_given_to_another_speaker_comes_back_with_the_reason(
    browser: Any, server: LiveServer
) -> None:
    """A spectator's line that opens with a seat's name as the table shows it (here in
    a Cyrillic look-alike letter) would read as that person's: refused, the reason
    under the box, the words kept to mend, nothing posted."""
    page, game_id = _watching_with_chat(browser, server)
    typed = "\u0410da: owl-7431 I was the doctor"  # a Cyrillic А
    page.fill("#chat-text", typed)
    page.click("#chat-form button")
    page.wait_for_selector("#chat-error:has-text('would read as Ada (P1) speaking')")
    assert page.locator("#chat-text").input_value() == typed
    assert page.locator("#chat-lines li").count() == 0
    session = server.manager.get(game_id)
    assert session is not None and session.chat.lines == []
    page.context.close()
