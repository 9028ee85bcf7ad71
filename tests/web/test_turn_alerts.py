"""Turn alerts in real Chromium: at a player's first request the tab title carries the
turn marker and, with alerts on and the tab in the background, the Notification API is
called with the request's prompt (`notify` in static/game.js); a browser that refuses
notifications unticks "alerts" and the page says so."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.web.browser_support import step
from tests.web.support import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

# A stand-in Notification (granted, recording each alert), alerts switched on, and a
# tab that reports itself hidden, as a background tab does.
STUB = """
window.__alerts = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__alerts.push({ title, body: options && options.body }); }
};
Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
try { localStorage.setItem("mafia:alerts", "1"); } catch (e) { /* no storage here */ }
"""


def test_the_first_request_marks_the_tab_title_and_sends_a_notification(
    browser: Any, server: LiveServer
) -> None:
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.add_init_script(STUB)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        assert page.evaluate("window.__alerts") == []
        assert not page.title().startswith("▶ Your turn")
        page.fill("#join-name", "Alert")
        page.click("#join-button")
        deadline = time.monotonic() + 60  # polled: the page's CSP forbids eval
        while not (page.title().startswith("▶ Your turn") and page.evaluate("window.__alerts")):
            assert time.monotonic() < deadline, f"no turn alert; title {page.title()!r}"
            page.wait_for_timeout(100)
        page.wait_for_timeout(500)  # later pushes of the same request alert no more
        alerts = page.evaluate("window.__alerts")
        assert len(alerts) == 1  # one alert per request, not one per state push
        assert alerts[0]["title"] == "Mafia Arena: your turn"
        assert alerts[0]["body"] and alerts[0]["body"] in page.locator("#action").inner_text()
    finally:
        context.close()


# A page the player has not touched yet, as the browser reports it (a reloaded page or a
# second tab; Chromium's own report after a navigation varies from run to run), and every
# call to navigator.vibrate counted.
UNTOUCHED = """
Object.defineProperty(navigator, "userActivation", {
  configurable: true, get: () => ({ hasBeenActive: false, isActive: false }),
});
window.__buzzes = 0;
navigator.vibrate = () => { window.__buzzes += 1; return false; };
"""


def test_an_untouched_page_does_not_buzz(browser: Any, server: LiveServer) -> None:
    """Chromium blocks `navigator.vibrate` on a page that has had no tap yet and logs an
    error for each call ("Blocked call to navigator.vibrate because user hasn't tapped"),
    so a turn on such a page (a reload, a second tab of the seat) does not buzz."""
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.add_init_script(UNTOUCHED)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        page.fill("#join-name", "Quiet")
        page.click("#join-button")
        deadline = time.monotonic() + 45
        while not page.title().startswith("▶ Your turn"):
            assert time.monotonic() < deadline, f"no turn; title {page.title()!r}"
            page.wait_for_timeout(100)
        page.wait_for_timeout(300)  # the turn's alert has run
        assert page.evaluate("window.__buzzes") == 0
    finally:
        context.close()


# Every AudioContext the page makes, counted (the real class, so the beep still plays).
COUNT_AUDIO = """
window.__audio = 0;
const RealAudio = window.AudioContext;
window.AudioContext = class extends RealAudio {
  constructor(...args) { super(...args); window.__audio += 1; }
};
try { localStorage.setItem("mafia:sound", "1"); } catch (e) { /* no storage here */ }
"""


def test_the_turn_sound_reuses_one_audio_context(browser: Any, server: LiveServer) -> None:
    """With sound on, each turn beeps through the page's one AudioContext: a context made
    per turn and never closed piles up, and browsers cap how many a page may hold (past
    the cap the beep stops)."""
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    context.add_init_script(STUB + COUNT_AUDIO)
    page = context.new_page()
    rng = random.Random(3)
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        page.fill("#join-name", "Beep")
        page.click("#join-button")
        deadline = time.monotonic() + 45
        while len(page.evaluate("window.__alerts")) < 3:  # one alert per turn
            assert time.monotonic() < deadline, "fewer than three turns came"
            assert not step(page, rng, None), "the game ended before three turns"
            page.wait_for_timeout(50)
        assert page.evaluate("window.__audio") == 1
    finally:
        context.close()


def test_alerts_refused_by_the_browser_say_so_and_how_to_allow_them(
    browser: Any, server: LiveServer
) -> None:
    """Notifications denied for the site (as a person's "Block" leaves them, set here
    through the browser's own permission store, so the page's real call to
    `Notification.requestPermission` is answered "denied"): ticking "alerts" unticks
    it and says that the browser refused and how to allow them; the note goes on "OK"."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        cdp = context.new_cdp_session(page)
        target = cdp.send("Target.getTargetInfo")["targetInfo"]
        cdp.send(
            "Browser.setPermission",
            {
                "permission": {"name": "notifications"},
                "setting": "denied",
                "origin": server.url,
                "browserContextId": target["browserContextId"],
            },
        )
        page.goto(server.url + "/")
        note = page.get_by_test_id("alerts-note")
        expect(note).to_be_hidden()
        page.locator("#alerts").click()
        expect(note).to_be_visible()
        expect(note).to_contain_text("The browser refused notifications")
        expect(note).to_contain_text("allow notifications in the site's settings")
        expect(page.locator("#alerts")).not_to_be_checked()
        assert page.evaluate("[Notification.permission, localStorage.getItem('mafia:alerts')]") == [
            "denied",
            "0",
        ]
        note.get_by_role("button", name="OK").click()
        expect(note).to_be_hidden()
    finally:
        context.close()
