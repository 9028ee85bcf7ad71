"""A Palermo game in Chromium: the seat's role panel shows the intrigue card it holds
(title, text, when it can be played) and its own player state, and the player list
gives every seat a state badge, so an imprisoned player no longer looks like any other
one. Only what the page data carries for that seat is shown (web/render.py). A ghost's
turn says why it is asked; on a phone the header keeps its two rows with the clock's
long phase names."""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.web.browser_support import assert_fits
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.views.view import view_of
from mafia_arena.views.words import palermo_when

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
    # the day's announcement was dated in the phase before it), in the prompt's words
    # (it read "Morning of round 1" under "morning 1", and "round 2" under "early
    # night 1": both are the server's now, `views.words.palermo_when`)
    expect(page.locator("#prompt")).to_have_text("Morning 1: one move, or done.")
    expect(page.locator("#phase")).to_have_text("morning 1")
    # round 2's night is Night 1, as its announcement and line tags say; the dictator's
    # first night is night 0; setup has no number. Without a turn of its own a seat is
    # shown night or day only: its last event may be phases old (a ghost's, noon's)
    assert [
        palermo_when("night_early", 2),
        palermo_when("dead_time", 3),
        palermo_when("noon", 2),
    ] == ["early night 1", "dead time 2", "noon 2"]
    headers = page.evaluate(
        "[phaseHeader('noon', 2), phaseHeader('dead_time', 3),"
        " phaseHeader('night', 0), phaseHeader('setup', 0)]"
    )
    assert headers == ["day 2", "night 2", "night 0", "setup"]

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
        timeout=HTTP_TIMEOUT,
    )
    assert given.status_code == 200, given.text
    rows = page.get_by_test_id("players").locator("li")
    expect(rows.nth(1).locator(".badge.state")).to_have_text("imprisoned")
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


def _invited_page(browser: Any, server: LiveServer, created: dict[str, Any], **options: Any) -> Any:
    """P1's page, joined through its invite, in a context of its own (`options`)."""
    page = browser.new_context(**options).new_page()
    page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
    page.fill("#join-name", "Ada")
    page.click("#join-button")
    return page


def _pass_until(page: Any, reached: Callable[[], bool], timeout: float = 90) -> None:
    """Answer every turn with its first option, the pass ("done for this phase", "keep
    my ballot"), until `reached()`."""
    deadline = time.monotonic() + timeout
    done = page.locator("#choices button[data-choice='0']:enabled")
    while not reached():
        assert time.monotonic() < deadline, "the game never reached the moment"
        assert not page.locator("#end").is_visible(), "the game ended first"
        if done.count():
            with contextlib.suppress(Exception):  # re-rendered under the click: poll again
                done.first.click(timeout=2000)
        page.wait_for_timeout(50)


GHOST_NOTE = (
    "Ghosts are asked alike, with an intrigue card or without, so being asked tells nobody"
    " who holds one. Nothing to play? Choose \u201cdone for this phase\u201d."
)


def test_a_ghosts_turn_says_why_the_ghost_is_asked(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """P1, assassinated in round 3's night, is asked in that day's afternoon, card or
    not (being asked must not show who holds Failed Assassination): P1 holds Pythia's
    Oracle, which a ghost cannot play, so the turn offers only "done for this phase".
    The page says why in one fixed line, from the seat's own state alone, so it reads
    the same for every ghost; an active seat's turns do not show it."""
    server = heuristic_server
    created = server.create(variant="palermo", players=12, seed=7, seats=[{"kind": "human"}])
    page = _invited_page(browser, server, created, viewport={"width": 1280, "height": 900})
    try:
        note = page.get_by_test_id("ghost-note")
        expect(page.locator("#choices button").first).to_be_visible(timeout=30_000)
        expect(page.get_by_test_id("you-state")).to_have_text("Your state: active")
        expect(note).to_have_count(1)
        expect(note).to_be_hidden()  # an active seat's turn
        _pass_until(page, note.is_visible)
        expect(note).to_have_text(GHOST_NOTE)
        expect(page.get_by_test_id("you-state")).to_have_text("Your state: ghost")
        assert page.locator("#choices button").all_inner_texts() == ["done for this phase"]
        expect(page.locator("#you-intrigue-title")).to_have_text("Pythia's Oracle")
        assert view_of(server.game(created["game_id"]), 0).knowledge.card == "pythia"
    finally:
        page.context.close()


LAST_WORDS_NOTE = (
    "Every player the vote removes is asked for last words, with an intrigue card or"
    " without, and no card is played now: one message to the whole table. Nothing to"
    " say? Choose \u201csay nothing\u201d under \u201cQuick phrases\u201d."
)


def test_the_last_words_of_a_player_voted_out_say_why_they_are_asked(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """P1 votes for P2 whenever a ballot is open and passes otherwise; the table votes P1
    out on day 1, a ghost now, and asks for last words. That turn explains itself too
    (the ghost's line showed on a ghost's turns only, never on the last words): every
    player the vote removes is asked, card or not, and no card is played then; "say
    nothing" is under the quick phrases, as on any turn with words."""
    server = heuristic_server
    created = server.create(variant="palermo", players=12, seed=1, seats=[{"kind": "human"}])
    page = _invited_page(browser, server, created, viewport={"width": 1280, "height": 900})
    try:
        note = page.get_by_test_id("ghost-note")
        ballot = page.locator("#choices button:enabled", has_text=re.compile(r"^vote P\d+$"))
        done = page.locator("#choices button[data-choice='0']:enabled")
        last_words = page.locator("#phrase-choices button:enabled", has_text="say nothing")
        deadline = time.monotonic() + 90
        while not last_words.count():
            assert time.monotonic() < deadline, "P1 was never asked for last words"
            assert not page.locator("#end").is_visible(), "the game ended first"
            with contextlib.suppress(Exception):  # re-rendered under the click: poll again
                (ballot if ballot.count() else done).first.click(timeout=2000)
            page.wait_for_timeout(50)
        expect(page.locator("#prompt")).to_contain_text("last words")
        expect(page.get_by_test_id("you-state")).to_have_text("Your state: ghost")
        expect(note).to_be_visible()
        expect(note).to_have_text(LAST_WORDS_NOTE)
        page.fill("#speech-text", "I was a plain citizen.")
        page.press("#speech-text", "Enter")
        expect(note).to_be_hidden()  # said: the turn is over, and its line with it
    finally:
        page.context.close()


def _rows(page: Any) -> int:
    """How many rows the header's items sit in (their vertical centres, 6 px apart)."""
    centres = page.evaluate(
        "['#brand', '#phase', '#timer', '#players-toggle', '#sound', '#alerts']"
        ".map((q) => document.querySelector(q)).map((e) => e.closest('label') || e)"
        ".map((e) => e.getBoundingClientRect()).map((r) => r.top + r.height / 2)"
    )
    rows: list[float] = []
    for centre in sorted(centres):
        if not rows or centre - rows[-1] > 6:
            rows.append(centre)
    return len(rows)


def test_on_a_phone_a_long_phase_name_does_not_wrap_the_header(
    browser: Any, heuristic_server: LiveServer
) -> None:
    """At 360 px the header keeps two rows, the name and the switches above the phase,
    the countdown and the players button, whatever the phase: "early night 1" wrapped
    the switches onto a third row; a name too long for its row is cut with an
    ellipsis, and the header's height does not change."""
    server = heuristic_server
    created = server.create(variant="palermo", players=12, seed=1, seats=[{"kind": "human"}])
    phone = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
    page = _invited_page(browser, server, created, **phone)
    try:
        phase = page.locator("#phase")
        expect(phase).to_have_text("morning 1", timeout=30_000)
        _pass_until(page, lambda: phase.inner_text().lower().startswith("early night"))
        expect(phase).to_have_text("early night 1")  # the seat's own turn names it
        # and the prompt dates it alike (it said "Night, before midnight of round 2")
        expect(page.locator("#prompt")).to_have_text(
            "Early night 1 (before midnight): one move, or done."
        )
        assert _rows(page) == 2
        height = page.evaluate("document.getElementById('top').getBoundingClientRect().height")
        cut = page.evaluate(
            "(() => { const p = document.getElementById('phase');"
            " p.textContent = 'early night 1 of a very long game indeed';"
            " const r = document.getElementById('top').getBoundingClientRect().height;"
            " return [r, p.scrollWidth > p.clientWidth]; })()"
        )
        assert cut == [height, True]  # cut, not wrapped
        assert _rows(page) == 2
        assert_fits(page, "palermo header at 360 px")
    finally:
        page.context.close()
