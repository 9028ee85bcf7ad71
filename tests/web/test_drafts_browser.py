"""What a person types or picks before sending survives every push, in Chromium.

Real server, a person at a forum table with heuristic bots: while they type, things
happen at the table that push their page a new state (the moderator's warnings to
them, each a new line; their socket dropping and reconnecting, a reset push that is
the whole view again). Whatever the person typed or chose, the caret or selection in
it and the focus must still be as they left them, and what is then sent is exactly
what they typed (`fieldDraft`, `restoreField` in static/game.js).

Within a forum window the other seats' posts and messages are shown when the window
ends, so a warning is the table's own event that reaches one seat mid-window. A day
speech holds the table (the others wait their turn), so there the pushes are
reconnects; and a speech turn that runs out with words never sent says so, and its
words can be put back in the next turn's box (`closeDrafts`, `restoreLostDraft`).
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.web.browser_support import wait_for_lines
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.engine.catalogue import GameMasterNotice, PrivateMessage, SpeechMade

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

WORDS = "Meet me after dark"
"""The forum message typed (no bot says it)."""


def seat_page(browser: Any, server: LiveServer, game_id: str, invite: str, name: str) -> Any:
    """A page that takes the invite's seat under `name`, in its own context (device)."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{server.url}/g/{game_id}#invite={invite}")
    page.fill("#join-name", name)
    page.click("#join-button")
    return page


def field(page: Any, selector: str) -> dict[str, Any]:
    """A field as the person sees it: its value, caret or selection, and whether it has
    the focus."""
    state: dict[str, Any] = page.evaluate(
        """(selector) => {
            const f = document.querySelector(selector);
            return f && {value: f.value, start: f.selectionStart, end: f.selectionEnd,
                         focused: document.activeElement === f};
        }""",
        selector,
    )
    return state


def to_the_day(page: Any) -> None:
    """Say "done for this phase" to the forum's first night until the day shows (the
    dictator's night 0 is a forum window that this ends for the seat)."""
    deadline = time.monotonic() + 90
    while "day" not in (page.locator("#phase").text_content() or ""):
        assert time.monotonic() < deadline, "the first day never came"
        done = page.locator("#choices button:enabled", has_text="done for this phase")
        if done.count():
            done.first.click()
        page.wait_for_timeout(200)


def warn(server: LiveServer, game_id: str, admin: str, page: Any, reason: str) -> None:
    """The moderator warns P1 (a private line to that seat alone, which counts towards
    nothing, `engine/forum/moderation.py`); P1's page shows it: a push."""
    response = httpx.post(
        f"{server.url}/api/games/{game_id}/rulings",
        json={"kind": "warning", "seat": 0, "value": reason},
        headers={"Authorization": f"Bearer {admin}"},
        timeout=HTTP_TIMEOUT,
    )
    assert response.status_code == 200, response.text
    expect(page.locator("#transcript")).to_contain_text(reason)


def reconnect(page: Any) -> None:
    """The page's socket drops; the page reconnects by itself and is sent the whole
    view again (a reset push)."""
    page.evaluate("app.ws.close()")
    expect(page.locator("#conn")).to_have_class("conn off")
    expect(page.locator("#conn")).to_have_class("conn")
    page.wait_for_timeout(300)  # the reset push is rendered


def pushes(server: LiveServer, game_id: str, admin: str, page: Any, tag: str) -> None:
    """Three warnings and a reconnect, while the page's person is typing."""
    for n in range(3):
        warn(server, game_id, admin, page, f"Keep it civil ({tag} {n}).")
    reconnect(page)


def test_the_forum_write_box_keeps_players_words_caret_and_focus_through_pushes(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
    created = server.create(variant="dictator", players=12, seed=4, seats=seats)
    game_id, admin = created["game_id"], created["admin"]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(server.url + "/")
    key = json.dumps(f"mafia:admin:{game_id}")
    page.evaluate(f"localStorage.setItem({key}, {json.dumps(json.dumps(admin))})")
    page.goto(f"{server.url}/g/{game_id}")  # the creator, who moderates, takes P1
    page.locator("#invites li button", has_text="Take P1 myself").click()
    to_the_day(page)
    page.wait_for_selector("#form-seats", state="visible", timeout=30_000)
    turn = page.evaluate("app.turn")

    # the players box, the caret inside it
    page.click("#form-seats")
    page.keyboard.type("P3, 5")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    before = field(page, "#form-seats")
    assert before == {"value": "P3, 5", "start": 3, "end": 3, "focused": True}
    pushes(server, game_id, admin, page, "players")
    assert page.evaluate("app.turn") == turn  # the same turn throughout
    assert field(page, "#form-seats") == before

    # the words, part of them selected
    page.click("#speech-text")
    page.keyboard.type(WORDS)
    for _ in "dark":
        page.keyboard.press("Shift+ArrowLeft")
    typed = field(page, "#speech-text")
    assert typed == {"value": WORDS, "start": 14, "end": 18, "focused": True}
    pushes(server, game_id, admin, page, "words")
    assert field(page, "#speech-text") == typed
    assert field(page, "#form-seats")["value"] == "P3, 5"
    expect(page.locator("#draft-lost")).to_be_hidden()

    # the moderator's panel: a ruling's kind, seat and reason, half written
    page.select_option("#ruling-kind", "warning")
    page.select_option("#ruling-seat", "2")
    page.click("#ruling-value")
    page.keyboard.type("No shouting")
    page.keyboard.press("ArrowLeft")
    reason = field(page, "#ruling-value")
    assert reason == {"value": "No shouting", "start": 10, "end": 10, "focused": True}
    pushes(server, game_id, admin, page, "ruling")
    assert field(page, "#ruling-value") == reason
    assert page.locator("#ruling-kind").input_value() == "warning"
    assert page.locator("#ruling-seat").input_value() == "2"
    assert field(page, "#speech-text")["value"] == WORDS
    assert field(page, "#form-seats")["value"] == "P3, 5"
    page.keyboard.press("End")
    page.keyboard.type(", please.")
    page.locator("#moderator-panel").get_by_role("button", name="Give ruling").click()
    expect(page.locator("#ruling-note")).to_have_text("Ruling given: warning on P3.")
    warned = [
        f.text
        for e in server.game(game_id).events
        if isinstance(f := e.fact, GameMasterNotice) and e.visibility.seats == {2}
    ]
    assert len(warned) == 1 and "No shouting, please." in warned[0]

    # sent: exactly what was typed, to exactly the players chosen
    page.locator("#choices").get_by_role("button", name="message to them", exact=True).click()
    expect(page.locator("#speech-text")).to_have_value("", timeout=30_000)  # taken
    expect(page.locator("#draft-lost")).to_be_hidden()  # sent, so not lost
    sent = [
        f
        for e in server.game(game_id).events
        if isinstance(f := e.fact, PrivateMessage) and f.sender == 0
    ]
    assert [(f.recipients, f.text) for f in sent] == [((2, 4), WORDS)]
    page.context.close()


def speech_turn(page: Any, after: int | None) -> int:
    """Play the page's other turns (the first choice) until a speech turn other than
    `after` opens; its number."""
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "no speech turn came"
        turn = page.evaluate("app.turn")
        if page.locator("#speech").is_visible() and turn not in (None, after):
            return int(turn)
        choice = page.locator("#choices button:enabled")
        if not page.locator("#speech").is_visible() and choice.count():
            with contextlib.suppress(Exception):  # re-rendered under the click
                choice.first.click(timeout=1000)
        page.wait_for_timeout(100)


def test_a_speech_keeps_its_draft_through_reconnects_and_a_closed_turn_gives_it_back(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
    # 9 seconds to speak (90 × 0.1): the first speech is left to run out
    created = server.create(variant="standard", players=7, seed=3, seats=seats, timer_scale=0.1)
    game_id = created["game_id"]
    page = seat_page(browser, server, game_id, created["invites"][0]["invite"], "Ada")
    first = speech_turn(page, None)
    page.click("#speech-text")
    page.keyboard.type("I suspect P")
    page.keyboard.press("ArrowLeft")
    typed = field(page, "#speech-text")
    assert typed == {"value": "I suspect P", "start": 10, "end": 10, "focused": True}
    reconnect(page)
    reconnect(page)
    assert page.evaluate("app.turn") == first
    assert field(page, "#speech-text") == typed

    # the turn runs out with the words unsent: said, and kept to put back
    note = page.locator("#draft-lost")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Your draft was not sent: the turn closed.")
    expect(note).to_contain_text("I suspect P")
    speech_turn(page, first)
    expect(page.locator("#speech-text")).to_have_value("")  # a new turn, a new box
    page.get_by_role("button", name="Put it back in the box").click()
    expect(note).to_be_hidden()
    assert field(page, "#speech-text") == {
        "value": "I suspect P",
        "start": 11,
        "end": 11,
        "focused": True,
    }
    page.keyboard.type("3 most")
    page.keyboard.press("Enter")
    expect(page.locator("#transcript")).to_contain_text("I suspect P3 most")
    said = [
        f.text
        for e in server.game(game_id).events
        if isinstance(f := e.fact, SpeechMade) and f.seat == 0
    ]
    assert said[-1] == "I suspect P3 most"  # exactly the words typed, nothing lost
    page.context.close()


def test_a_speech_given_to_the_host_is_refused_where_it_was_typed_and_kept_to_mend(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """Words that speak as the host are not sent: the reason shows under the box, the
    words stay in it, and the turn (its number, its deadline) goes on; the words mended
    are what the table hears (`agents.human.own_words`)."""
    server = heuristic_server
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
    created = server.create(variant="standard", players=7, seed=3, seats=seats)
    game_id = created["game_id"]
    page = seat_page(browser, server, game_id, created["invites"][0]["invite"], "Ada")
    turn = speech_turn(page, None)
    session = server.manager.get(game_id)
    assert session is not None
    slot = session.slots[0]
    deadline = slot.deadline
    hostile = "Host: P5 was the detective, vote P5"
    page.fill("#speech-text", hostile)
    page.press("#speech-text", "Enter")
    expect(page.locator("#action-error")).to_contain_text(
        '"Host:" would read as the game speaking, not you, so this was not sent.'
    )
    expect(page.locator("#action-error")).to_contain_text("Please rephrase")
    assert field(page, "#speech-text")["value"] == hostile  # kept, to mend
    expect(page.locator("#speech button")).to_be_enabled()
    assert page.evaluate("app.turn") == turn
    assert (slot.turn, slot.deadline) == (turn, deadline)
    assert not [
        e
        for e in server.game(game_id).events
        if isinstance(e.fact, SpeechMade) and e.fact.seat == 0
    ]
    expect(page.locator("#transcript")).not_to_contain_text("P5 was the detective")

    page.click("#speech-text")
    page.keyboard.press("Home")
    for _ in "Host: ":
        page.keyboard.press("Delete")
    page.keyboard.type("I heard ")
    page.keyboard.press("Enter")
    mended = "I heard P5 was the detective, vote P5"
    expect(page.locator("#transcript")).to_contain_text(mended)
    expect(page.locator("#action-error")).to_have_text("")
    said = [
        f.text
        for e in server.game(game_id).events
        if isinstance(f := e.fact, SpeechMade) and f.seat == 0
    ]
    assert said == [mended]
    page.context.close()


def test_the_chat_box_keeps_its_words_while_the_table_plays_and_others_chat(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """Two spectators of a table of bots (a push at every bot's move): one types in the
    spectators' chat while the game goes on, the other chats, and the page reconnects."""
    server = heuristic_server
    seats = [{"kind": "bot", "agent": "heuristic"}]
    created = server.create(variant="standard", players=7, seed=5, seats=seats, bot_delay=0.5)
    game_id = created["game_id"]
    invites = httpx.get(
        f"{server.url}/api/games/{game_id}/invites",
        headers={"Authorization": f"Bearer {created['admin']}"},
        timeout=HTTP_TIMEOUT,
    ).json()
    watch = f"{server.url}/g/{game_id}#watch={invites['watch']}"
    page, other = (browser.new_context().new_page() for _ in range(2))
    for p in (page, other):
        p.goto(watch)
        p.wait_for_selector("#chat-text", state="visible", timeout=30_000)

    page.click("#chat-text")
    page.keyboard.type("The quiet one")
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("Shift+ArrowLeft")
    typed = field(page, "#chat-text")
    assert typed == {"value": "The quiet one", "start": 11, "end": 13, "focused": True}
    lines = page.locator("#transcript li").count()
    for n in range(2):
        other.fill("#chat-text", f"watching closely {n}")
        other.press("#chat-text", "Enter")
        expect(page.locator("#chat-lines")).to_contain_text(f"watching closely {n}")
    reconnect(page)
    wait_for_lines(page, lines + 3)
    assert field(page, "#chat-text") == typed

    page.keyboard.type("nes lie")  # over the selected "ne"
    page.keyboard.press("Enter")
    expect(other.locator("#chat-lines")).to_contain_text("The quiet ones lie")
    expect(page.locator("#chat-text")).to_have_value("")  # sent
    page.context.close()
    other.context.close()


def test_the_lobby_keeps_the_creators_name_and_focus_through_its_polls(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """The creator's lobby asks the server every 2 seconds and rebuilds its invite rows:
    the name being typed, and a focused "Take P1 myself" button, stay as they were
    while another person takes a seat, and the seat is taken under the typed name."""
    server = heuristic_server
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
    created = server.create(variant="standard", players=7, seed=3, seats=seats)
    game_id = created["game_id"]
    page = browser.new_context().new_page()
    page.goto(server.url + "/")
    key = json.dumps(f"mafia:admin:{game_id}")
    page.evaluate(f"localStorage.setItem({key}, {json.dumps(json.dumps(created['admin']))})")
    page.goto(f"{server.url}/g/{game_id}")
    take = page.locator("#invites li button", has_text="Take P1 myself")
    expect(take).to_be_visible()

    page.click("#creator-name")
    page.keyboard.type("Ada Lovelce")
    for _ in "ce":
        page.keyboard.press("ArrowLeft")
    typed = field(page, "#creator-name")
    assert typed == {"value": "Ada Lovelce", "start": 9, "end": 9, "focused": True}
    server.join(game_id, created["invites"][1]["invite"], "Bea")
    expect(page.locator("#lobby-seats")).to_contain_text("Bea — ready")
    page.wait_for_timeout(2500)  # one more poll
    assert field(page, "#creator-name") == typed
    page.keyboard.type("a")

    take.focus()
    page.wait_for_timeout(4500)  # two polls: the rows rebuilt twice
    assert page.evaluate("document.activeElement.textContent") == "Take P1 myself"
    page.keyboard.press("Enter")
    expect(page.locator("#players-list")).to_contain_text("Ada Lovelace", timeout=30_000)
    page.context.close()
