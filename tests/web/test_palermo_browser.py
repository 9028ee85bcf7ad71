"""A Palermo game in Chromium: the seat's role panel shows the intrigue card it holds
(title, text, when it can be played) and its own player state, and the player list
gives every seat a state badge, so an imprisoned player no longer looks like any other
one. Only what the page data carries for that seat is shown (web/render.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.web.browser_support import assert_fits
from tests.web.support import LiveServer

from mafia_arena.views.view import view_of

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def _creators_page(browser: Any, server: LiveServer, created: dict[str, Any]) -> Any:
    """The creator's page of a new game (the invites are the creator's to see)."""
    game_id = created["game_id"]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(server.url + "/")
    token = json.dumps(json.dumps(created["admin"]))
    page.evaluate(f"localStorage.setItem('mafia:admin:{game_id}', {token})")
    page.goto(f"{server.url}/g/{game_id}")
    return page


def test_the_palermo_page_shows_the_held_intrigue_card_and_every_seats_state(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    # seed 1 deals P1 (a citizen) the Grave Robbing card
    created = server.create(variant="palermo", players=12, seed=1, seats=[{"kind": "human"}])
    game_id, admin = created["game_id"], created["admin"]
    page = _creators_page(browser, server, created)
    page.wait_for_selector("#invites li button")
    page.locator("#invites li button", has_text="Take P1 myself").click()
    expect(page.locator("#choices button").first).to_be_visible(timeout=30_000)
    assert view_of(server.game(game_id), 0).knowledge.card == "grave_robbing"
    # the first turn is round 1's morning, and the header says so (it said "setup 1":
    # the day's announcement was dated in the phase before it)
    expect(page.locator("#prompt")).to_contain_text("Morning of round 1")
    expect(page.locator("#phase")).to_have_text("morning 1")
    # round 2's night is Night 1, as its announcement and line tags say; the dictator's
    # first night is night 0; setup has no number. Without a turn of its own a seat is
    # shown night or day only: its last event may be phases old (a ghost's, noon's)
    headers = page.evaluate(
        "[phaseHeader('night_early', 2, true), phaseHeader('dead_time', 3, true),"
        " phaseHeader('noon', 2, true), phaseHeader('noon', 2), phaseHeader('dead_time', 3),"
        " phaseHeader('night', 0), phaseHeader('setup', 0)]"
    )
    assert headers == [
        "early night 1",
        "dead time 2",
        "noon 2",
        "day 2",
        "night 2",
        "night 0",
        "setup",
    ]

    card = page.get_by_test_id("intrigue-card")
    expect(card).to_be_visible()
    expect(page.locator("#you-intrigue-title")).to_have_text("Grave Robbing")
    expect(page.locator("#you-intrigue-text")).to_contain_text("Reveals one ghost's full role")
    expect(page.locator("#you-intrigue-when")).to_have_text(
        "Playable in: early night, late night, morning, afternoon"
    )
    expect(page.get_by_test_id("you-state")).to_have_text("Your state: active")

    # the moderator imprisons P2: P2's row says so, everyone else's says active
    given = httpx.post(
        f"{server.url}/api/games/{game_id}/rulings",
        json={"kind": "sanction", "seat": 1, "value": "abusive language"},
        headers={"Authorization": f"Bearer {admin}"},
        timeout=10,
    )
    assert given.status_code == 200, given.text
    rows = page.get_by_test_id("players").locator("li")
    expect(rows.nth(1).locator(".badge.state")).to_have_text("imprisoned", timeout=15_000)
    expect(rows.nth(0).locator(".badge.state")).to_have_text("active")
    badges = page.locator("#players-list .badge.state")
    expect(badges).to_have_count(12)
    assert badges.all_inner_texts().count("imprisoned") == 1
    assert_fits(page, "palermo card and states")


def test_a_variant_without_player_states_shows_no_card_or_state_lines(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    created = server.create(variant="classic", players=7, seed=2, seats=[{"kind": "human"}])
    page = _creators_page(browser, server, created)
    page.wait_for_selector("#invites li button")
    page.locator("#invites li button", has_text="Take P1 myself").click()
    expect(page.locator("#you-role")).not_to_have_text("", timeout=30_000)
    expect(page.get_by_test_id("intrigue-card")).to_be_hidden()
    expect(page.get_by_test_id("you-state")).to_be_hidden()
    assert page.locator("#players-list .badge.state").count() == 0


def test_palermo_roles_are_named_on_the_page_not_by_their_ids(
    browser: Any, heuristic_server: LiveServer
) -> None:
    server = heuristic_server
    # seed 1 deals P6 the Corrupt Cop, who knows P8 (known_b), P9 (known_a), P10 (hidden)
    seats = [{"kind": "bot"}] * 5 + [{"kind": "human"}]
    created = server.create(variant="palermo", players=12, seed=1, seats=seats)
    page = _creators_page(browser, server, created)
    page.wait_for_selector("#invites li button")
    page.locator("#invites li button", has_text="Take P6 myself").click()
    expect(page.locator("#you-role")).to_have_text("Corrupt Cop", timeout=30_000)
    assert view_of(server.game(created["game_id"]), 5).knowledge.role == "corrupt_cop"
    expect(page.locator("#you-allies")).to_have_text(
        "You know: P8 (Known Mafioso B), P9 (Known Mafioso A), P10 (Hidden Mafioso)"
    )
    roles = page.locator("#players-list .badge.role")
    expect(roles).to_have_count(4)
    assert roles.all_inner_texts() == [
        "Corrupt Cop",
        "Known Mafioso B",
        "Known Mafioso A",
        "Hidden Mafioso",
    ]
