"""The page in a real browser: Debian's Chromium driven by Playwright.

Install the browser with ``apt-get install -y chromium`` (never ``playwright install``);
without /usr/bin/chromium these tests are skipped. Set MAFIA_WEB_SHOTS=<dir> to keep
mid-game screenshots at desktop and phone widths. The shared pieces (the `browser`
fixture's launcher, `shoot`, `step`, `play_pages`) live in browser_support.py.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.web.browser_support import join_all, play_pages, shoot, step, wait_for_lines
from tests.web.support import LiveServer

XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_one_human_creates_and_plays_a_whole_game(browser: Any, server: LiveServer) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    failed: list[str] = []  # every request the page makes is answered
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.goto(server.url + "/")
    page.select_option("#variant", "standard")
    page.fill("#players", "7")
    page.dispatch_event("#players", "input")
    assert page.locator("#seat-specs select").count() == 7
    page.fill("#bot-delay", "0")  # instant bots in tests
    page.click("#create button[type=submit]")
    page.wait_for_selector("#invites li")
    assert page.locator("#invites li").count() == 1
    table = "7 players: 1 person, 6 bots (6 random) · mafia chat rounds 1"  # the form's night talk
    assert page.locator("#lobby-table").inner_text() == table
    page.fill("#creator-name", "Creator")  # the creator is named like every player
    page.click("#invites li button:has-text('Take P1 myself')")
    page.wait_for_selector("#game:not([hidden])")
    assert page.locator("#players-list li").first.inner_text().split("\n")[:2] == ["P1", "Creator"]
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
    end = page.locator("#end-title").text_content() or ""
    assert end.endswith(" won") or end == "Game over: a draw", end  # not "citizens wins"
    check_replay_page(context, server, page.url.rsplit("/", 1)[-1])
    assert failed == [], failed
    old = page.url  # a rematch: the same seat in a new game, which starts as all are back
    page.click("#rematch")
    page.wait_for_url(lambda url: url != old)
    page.wait_for_selector("#game:not([hidden])")
    assert page.locator("#you-label").inner_text() == "You are P1"
    assert page.locator("#players-list li").first.inner_text().split("\n")[:2] == ["P1", "Creator"]
    context.close()


def check_replay_page(context: Any, server: LiveServer, game_id: str) -> None:
    """The finished game as the home page lists it (when it ended) and its replay page:
    seats named as the table named them, never the stored agent ids ("human:Creator")."""
    viewer = context.new_page()
    viewer.goto(server.url + "/")
    href = f"a[href='/replay/{game_id}']"
    row = viewer.locator("#finished-list li", has=viewer.locator(href))
    link = row.locator(href)
    expect(row).to_contain_text(" · ")  # games of one setup told apart by their end
    link.click()
    viewer.wait_for_selector("#past-lines li")
    title = viewer.locator("#past-title").text_content() or ""
    assert title.endswith(" won") or title.endswith("a draw"), title
    seats = viewer.locator("#past-seat option:not([value=moderator])").all_inner_texts()
    assert seats[0].startswith("P1 Creator ("), seats
    assert all(label.split(" (")[0].endswith(" random bot") for label in seats[1:]), seats
    viewer.close()


def test_two_humans_in_two_browser_contexts(browser: Any, server: LiveServer) -> None:
    created = server.create(
        variant="standard",
        players=7,
        seed=12,
        seats=[{"kind": "human"}, {"kind": "bot"}, {"kind": "human"}],
    )
    game_id = created["game_id"]
    contexts, pages = join_all(browser, server.url, created, {"width": 1100, "height": 800})
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


def test_a_click_on_join_while_the_table_loads_takes_the_seat(
    browser: Any, server: LiveServer
) -> None:
    """Regression: the join form is shown before the table's details arrive, and its
    button is live at once. A click in that window (a person on a slow line, or a
    loaded server) must take the seat: it once submitted the form to the server, a
    reload that lost the invite, and the page stayed on the form. The lobby request is
    held until after the click, so the window is open for sure."""
    created = server.create(variant="standard", players=7, seed=5, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    held: list[Any] = []

    def hold(route: Any) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    page.route(f"**/api/games/{game_id}", hold)
    page.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
    page.wait_for_selector("#join-button")
    assert held, "the table's details are still loading"
    page.click("#join-button")
    page.wait_for_selector("#game:not([hidden])")
    for route in held:
        route.continue_()
    page.unroute(f"**/api/games/{game_id}")
    assert "?" not in page.url, "the form was not submitted to the server"
    play_pages([page])
    assert server.wait_over(game_id).over
    context.close()


def test_a_join_page_tells_a_missing_game_from_a_failed_request(
    browser: Any, server: LiveServer
) -> None:
    """Only the server's "no such game" makes the join page say the game does not
    exist; when the table's request fails (the server away, the network down) the
    form says that it could not load and stays, and the seat can still be taken."""
    created = server.create(variant="standard", players=7, seed=5, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.route(
        f"**/api/games/{game_id}",
        lambda route: route.abort() if route.request.method == "GET" else route.continue_(),
    )
    page.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
    page.wait_for_selector("#join-error:not(:empty)")
    assert page.locator("#join-error").inner_text().startswith("Could not load this game")
    assert page.locator("#join").is_visible() and not page.locator("#message").is_visible()
    page.fill("#join-name", "heuristic bot")  # refused, and the page says why
    page.click("#join-button")
    expect(page.locator("#join-error")).to_have_text(
        "a name cannot end in 'bot': the table marks its bots that way"
    )
    page.fill("#join-name", "")
    page.click("#join-button")
    page.wait_for_selector("#game:not([hidden])")
    page.unroute(f"**/api/games/{game_id}")

    page.goto(f"{server.url}/g/{'0' * len(game_id)}#invite=nothing")
    page.wait_for_selector("#message:not([hidden])")
    assert "does not exist" in page.locator("#message-text").inner_text()
    context.close()


def home_with_request_held(
    browser: Any, server: LiveServer, pattern: str
) -> tuple[Any, Any, list[Any]]:
    """The home page opened in a new context with the requests matching `pattern` held:
    they are collected (route objects) until the test continues, fulfils or aborts them."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    held: list[Any] = []

    def hold(route: Any) -> None:  # a def: the route handler's result must be None
        held.append(route)

    page.route(pattern, hold)
    page.goto(server.url + "/")
    page.wait_for_selector("#home:not([hidden])")
    return context, page, held


def test_create_waits_for_the_variants_and_says_when_they_cannot_load(
    browser: Any, server: LiveServer
) -> None:
    """ "Create game" is disabled until the variants and players arrive (a click before
    did nothing while the button looked live), and enabled after; if they cannot load,
    the form says so instead of leaving a dead button."""
    context, page, held = home_with_request_held(browser, server, "**/api/variants")
    button = page.locator("#create button[type=submit]")
    assert held, "the variants are still loading"
    assert button.is_disabled()
    held[0].continue_()
    page.wait_for_selector("#create button[type=submit]:not([disabled])")
    assert page.locator("#variant option").count() >= 4
    assert page.locator("#create-error").inner_text() == ""
    page.unroute("**/api/variants")

    page.route("**/api/variants", lambda route: route.abort())
    page.reload()
    page.wait_for_selector("#create-error:not(:empty)")
    assert "Could not load the variants" in page.locator("#create-error").inner_text()
    assert button.is_disabled()
    context.close()


def test_the_player_count_follows_the_variant_s_range_and_the_table_cap(
    browser: Any, server: LiveServer
) -> None:
    """The create form names each variant with the rules' range ("7+" where the rules
    set no upper bound), and its player count stays within the chosen variant's range,
    cut at the server's table cap: a count the variant cannot seat becomes the nearest
    one it can, with a seat row for each player."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#create button[type=submit]:not([disabled])")
    players = page.locator("#players")
    rows = page.locator("#seat-specs select")
    page.select_option("#variant", "classic")
    assert page.locator("#variant option:checked").inner_text() == "Classic party Mafia (7+)"
    assert (players.get_attribute("min"), players.get_attribute("max")) == ("7", "40")
    page.fill("#players", "99")
    page.dispatch_event("#players", "input")
    assert rows.count() == 40  # the server's cap, not a bound of the rules
    page.select_option("#variant", "dictator")
    assert page.locator("#variant option:checked").inner_text().endswith("(12-24)")
    assert (players.get_attribute("min"), players.get_attribute("max")) == ("12", "24")
    assert players.input_value() == "24" and rows.count() == 24
    page.fill("#players", "7")
    page.dispatch_event("#players", "input")
    assert rows.count() == 12
    context.close()


def test_the_finished_games_list_tells_loading_empty_and_unreachable_apart(
    browser: Any, server: LiveServer
) -> None:
    """The finished-games list says "Loading…" while its request runs and names the
    failure when the request fails, instead of showing "None yet." either way (a
    server that is away must not look like a server with no finished games)."""
    context, page, held = home_with_request_held(browser, server, "**/api/finished")
    items = page.locator("#finished-list li")
    assert held, "the finished games are still loading"
    assert items.all_inner_texts() == ["Loading…"]
    held[0].fulfill(status=200, content_type="application/json", body="[]")
    page.wait_for_selector("#finished-list li:not(:has-text('Loading'))")
    assert items.all_inner_texts() == ["None yet."]
    page.unroute("**/api/finished")

    page.route("**/api/finished", lambda route: route.abort())
    page.reload()
    page.wait_for_selector("#finished-list li.error")
    (text,) = items.all_inner_texts()
    assert text.startswith("Could not load the finished games")
    context.close()


def test_a_reload_mid_game_continues_where_the_player_was(browser: Any, server: LiveServer) -> None:
    created = server.create(variant="standard", players=7, seed=31, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
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
    wait_for_lines(page, len(before))
    after = page.locator("#transcript li").all_inner_texts()
    assert after[: len(before)] == before
    assert page.locator("#you-role").inner_text() == role
    play_pages([page])
    assert server.wait_over(game_id).over
    context.close()
