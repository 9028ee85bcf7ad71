"""Shared pieces of the browser tests: Debian's Chromium, screenshots, a random player.

Install the browser with ``apt-get install -y chromium`` (never ``playwright install``);
without /usr/bin/chromium the browser tests are skipped. `shoot` keeps a viewport
screenshot when MAFIA_WEB_SHOTS names a folder; `step` and `play_pages` play a page
with random legal moves.
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

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


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
    subprocess.run(
        ["apt-get", "update", "-q"],
        env=env,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=900,
    )
    subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"],
        env=env,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=1800,
    )
    return CHROMIUM.exists()


EXPECT_TIMEOUT_MS = 30_000
"""How long an ``expect(...)`` assertion waits for its condition: Playwright's own
default is 5 s, its actions' and ``wait_for_selector``'s 30 s. What an assertion waits
for is the page's answer to a push or a request from a server that runs in the test's
own process beside its bots, which a loaded 2-core machine can hold back for seconds.
Set once here (`launch_chromium`) rather than per call; a condition that never holds
still fails, and one that holds at once returns at once."""


def launch_chromium() -> Iterator[Any]:
    """Yield a headless Chromium (body of the `browser` fixture in conftest.py), with
    `EXPECT_TIMEOUT_MS` as every ``expect`` assertion's wait."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=ARGS, headless=True
        )
        yield chromium
        chromium.close()


WINDOWS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
}
"""Browser context options for the two window sizes the screenshots are taken at."""


def assert_fits(page: Any, moment: str) -> None:
    """Nothing on the page is wider than the window (no sideways scrolling).

    Measured against the context's viewport too: a phone browser lays a page that is
    too wide out at its full width and zooms out, so `innerWidth` grows with it."""
    wide, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    window = min(inner, page.viewport_size["width"])
    assert wide <= window, f"{moment}: the page is {wide}px wide in a {window}px window"


def in_view(page: Any, locator: Any) -> bool:
    """Whether an element is shown and lies inside the window (not scrolled away)."""
    box = locator.bounding_box()
    if box is None or not locator.is_visible():
        return False
    width, height = page.evaluate("[window.innerWidth, window.innerHeight]")
    return box["y"] >= 0 and box["y"] + box["height"] <= height and box["x"] + box["width"] <= width


def wait_for_lines(page: Any, at_least: int, selector: str = "#transcript li") -> None:
    """Wait until `page` shows at least `at_least` elements matching `selector`.

    Why not ``page.wait_for_function("...length >= n")``: Playwright checks a string
    predicate once directly and then polls it through ``eval`` in the page, which the
    app's Content Security Policy (``script-src 'self'``) refuses, so such a wait failed
    with an EvalError whenever the lines had not all arrived at the first check. The
    selector engine is not bound by the page's policy."""
    if at_least > 0:
        page.locator(selector).nth(at_least - 1).wait_for(state="attached")


def shoot(page: Any, name: str) -> None:
    """Save a viewport screenshot as `<MAFIA_WEB_SHOTS>/<name>.png` when the folder is set."""
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


def play_pages(
    pages: list[Any], timeout: float = 240, speech: str | None = None, on_step: Any = None
) -> None:
    """Play every page with random moves until each shows the end screen."""
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


def join_all(
    browser: Any, base_url: str, created: dict[str, Any], viewport: dict[str, int]
) -> tuple[list[Any], list[Any]]:
    """Open each invite of a created game in its own browser context (its own device),
    joining as ``Player<n>``; returns the contexts and their pages."""
    contexts, pages = [], []
    for number, invite in enumerate(created["invites"]):
        context = browser.new_context(viewport=viewport)
        page = context.new_page()
        page.goto(f"{base_url}/g/{created['game_id']}#invite={invite['invite']}")
        page.fill("#join-name", f"Player{number}")
        page.click("#join-button")
        contexts.append(context)
        pages.append(page)
    return contexts, pages
