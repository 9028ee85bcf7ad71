"""Turn alerts in real Chromium: at a player's first request the tab title carries the
turn marker and, with alerts on and the tab in the background, the Notification API is
called with the request's prompt (`notify` in static/game.js)."""

from __future__ import annotations

import time
from typing import Any

import pytest
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
