"""The page in a real browser: Debian's Chromium driven by Playwright.

Install the browser with ``apt-get install -y chromium`` (never ``playwright install``);
without /usr/bin/chromium these tests are skipped. Set MAFIA_WEB_SHOTS=<dir> to keep
mid-game screenshots at desktop and phone widths.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.support import LiveServer

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def ensure_chromium() -> bool:
    """Install Debian's Chromium when it is missing (the test set-up starts what it needs).

    Needs root and the Debian package registry; otherwise the browser tests are skipped
    with a message saying how to install it.
    """
    if CHROMIUM.exists():
        return True
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return False
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-q"], env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
    subprocess.run(["apt-get", "install", "-y", "-q", "chromium"], env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
    return CHROMIUM.exists()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not ensure_chromium():
        pytest.skip("browser tests need Debian's Chromium: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS,
                                              headless=True)
        yield chromium
        chromium.close()


def shoot(page: Any, name: str) -> None:
    folder = os.environ.get("MAFIA_WEB_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=False)


def step(page: Any, rng: random.Random, speech: str | None) -> bool:
    """Make one move if the page offers one; True once the end screen shows."""
    if page.locator("#end").is_visible():
        return True
    if page.locator("#speech").is_visible():
        say = page.locator("#speech button")
        if say.is_enabled():
            page.fill("#speech-text", speech or f"I trust nobody {rng.randrange(99)}")
            say.click()
        return False
    buttons = page.locator("#choices button:enabled")
    count = buttons.count()
    if count:
        with contextlib.suppress(Exception):  # re-rendered under the click: poll again
            buttons.nth(rng.randrange(count)).click(timeout=2000)
    return False


def play_pages(pages: list[Any], timeout: float = 240, speech: str | None = None,
               on_step: Any = None) -> None:
    rng = random.Random(7)
    done = [False] * len(pages)
    deadline = time.monotonic() + timeout
    moves = 0
    while not all(done):
        assert time.monotonic() < deadline, "the game did not reach the end screen"
        for i, page in enumerate(pages):
            if not done[i]:
                done[i] = step(page, rng, speech)
        moves += 1
        if on_step is not None:
            on_step(moves)
        pages[0].wait_for_timeout(40)


def test_one_human_creates_and_plays_a_whole_game(browser: Any, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(server.url + "/")
    page.select_option("#variant", "standard")
    page.fill("#players", "7")
    page.dispatch_event("#players", "input")
    assert page.locator("#seat-specs select").count() == 7
    page.fill("#bot-delay", "0")  # instant bots in tests
    page.click("#create button[type=submit]")
    page.wait_for_selector("#invites li")
    assert page.locator("#invites li").count() == 1
    page.click("#invites li button:has-text('Take P1 myself')")
    page.wait_for_selector("#game:not([hidden])")
    assert "/g/" in page.url and "#" not in page.url
    players = page.locator("#players-list li")
    assert players.count() == 7
    assert page.locator("#players-list .badge.bot").count() == 6
    shots = {"done": False}

    def mid_game(moves: int) -> None:
        busy = page.locator("#choices button:enabled, #speech button:enabled").count()
        if not shots["done"] and busy and page.locator("#transcript li").count() > 12:
            shoot(page, "desktop-mid-game")
            page.set_viewport_size({"width": 390, "height": 844})
            shoot(page, "phone-mid-game")
            page.set_viewport_size({"width": 1280, "height": 860})
            shots["done"] = True

    play_pages([page], speech=XSS, on_step=mid_game)
    assert (page.locator("#end-title").text_content() or "").startswith("Game over")
    assert page.locator("#reveal tbody tr").count() == 7
    page.wait_for_selector("#replay li")
    assert page.evaluate("window.__pwned") is None
    said = page.locator("#transcript li", has_text="onerror")
    assert said.count() >= 0  # present only if P1 lived to speak; never executed
    shoot(page, "desktop-end")
    context.close()


def test_two_humans_in_two_browser_contexts(browser: Any, server: LiveServer) -> None:
    created = server.create(variant="standard", players=7, seed=12,
                            seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}])
    game_id = created["game_id"]
    pages, contexts = [], []
    for number, invite in enumerate(created["invites"]):
        context = browser.new_context(viewport={"width": 1100, "height": 800})
        page = context.new_page()
        page.goto(f"{server.url}/g/{game_id}#invite={invite['invite']}")
        page.fill("#join-name", f"Player{number}")
        page.click("#join-button")
        contexts.append(context)
        pages.append(page)
    for page, invite in zip(pages, created["invites"], strict=True):
        page.wait_for_selector("#game:not([hidden])")
        assert page.locator("#you-label").inner_text() == f"You are P{invite['seat'] + 1}"
        me = page.locator("#players-list li.me")
        assert me.count() == 1
    assert pages[0].locator("#players-list li", has_text="Player1").count() == 1
    play_pages(pages)
    game = server.wait_over(game_id)
    names = [slot.agent.name for slot in server.manager.get(game_id).slots]  # type: ignore[union-attr]
    assert names[0] == "human:Player0" and names[2] == "human:Player1"
    assert game.over
    for context in contexts:
        context.close()


def test_a_reload_mid_game_continues_where_the_player_was(browser: Any,
                                                          server: LiveServer) -> None:
    created = server.create(variant="standard", players=7, seed=31,
                            seats=[{"kind": "human"}])
    game_id = created["game_id"]
    context = browser.new_context(viewport={"width": 390, "height": 844},
                                  is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
    page.click("#join-button")
    page.wait_for_selector("#game:not([hidden])")
    rng = random.Random(3)
    deadline = time.monotonic() + 60
    while page.locator("#transcript li").count() < 8 and not page.locator("#end").is_visible():
        assert time.monotonic() < deadline
        step(page, rng, None)
        page.wait_for_timeout(40)
    before = page.locator("#transcript li").all_inner_texts()
    role = page.locator("#you-role").inner_text()
    page.reload()
    page.wait_for_selector("#game:not([hidden])")
    page.wait_for_function(f"document.querySelectorAll('#transcript li').length >= {len(before)}")
    after = page.locator("#transcript li").all_inner_texts()
    assert after[:len(before)] == before
    assert page.locator("#you-role").inner_text() == role
    play_pages([page])
    assert server.wait_over(game_id).over
    context.close()
