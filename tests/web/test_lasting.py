"""Seats that last and games that survive a restart, in real Chromium.

- A player closes the tab and opens the same invite again on the same device: the same
  seat, the same transcript; another device cannot use that invite, but the player's
  resume link moves the seat there.
- The server is killed (SIGKILL) mid-game and started again on the same live store: the
  pages reconnect by themselves with the credentials they hold, and every seat sees
  exactly what it saw before; the game then plays to its end and stays browsable.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.web.browser_support import (
    WINDOWS,
    assert_fits,
    join_all,
    play_pages,
    step,
    wait_for_lines,
)
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def seat_state(page: Any) -> dict[str, Any]:
    """What a seat's page shows of the game: transcript, card, the table."""
    return {
        "label": page.locator("#you-label").inner_text(),
        "role": page.locator("#you-role").inner_text(),
        "transcript": page.locator("#transcript li").all_inner_texts(),
        "players": [
            t.replace("away", "").strip()  # presence differs while pages reconnect
            for t in page.locator("#players-list li").all_inner_texts()
        ],
    }


def play_some(pages: list[Any], lines: int, rng: random.Random) -> None:
    deadline = time.monotonic() + 90
    while pages[0].locator("#transcript li").count() < lines:
        assert time.monotonic() < deadline, "the game did not get going"
        for page in pages:
            assert not step(page, rng, "I am listening."), "the game ended too early"
        pages[0].wait_for_timeout(40)


def settled(pages: list[Any], timeout: float = 60) -> list[dict[str, Any]]:
    """The pages' states once two readings a second apart agree (the game waits)."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        now = [seat_state(p) for p in pages]
        if now == last:
            return now
        assert time.monotonic() < deadline, "the pages never settled"
        last = now
        pages[0].wait_for_timeout(1000)


def test_closing_the_tab_keeps_the_seat_and_the_resume_link_moves_it(
    browser: Any, tmp_path: Path
) -> None:
    server = LiveServer(settings_for(tmp_path, grace=600.0))
    try:
        created = server.create(
            variant="standard",
            players=7,
            seed=5,
            seats=[{"kind": "bot"}, {"kind": "bot"}, {"kind": "human"}],
        )
        game_id = created["game_id"]
        invite_url = f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}"
        laptop = browser.new_context(viewport={"width": 1200, "height": 800})
        page = laptop.new_page()
        page.goto(invite_url)
        page.fill("#join-name", "Ada")
        page.click("#join-button")
        page.wait_for_selector("#game:not([hidden])")
        assert page.locator("#you-label").inner_text() == "You are P3"
        play_some([page], 10, random.Random(1))
        before = seat_state(page)
        resume_link = page.locator("#resume-link").text_content() or ""
        assert f"/g/{game_id}#resume=" in resume_link
        page.close()  # the tab is gone; the seat waits out its grace period

        again = laptop.new_page()
        again.goto(invite_url)  # the same invite, the same device
        again.wait_for_selector("#game:not([hidden])")
        wait_for_lines(again, len(before["transcript"]))
        after = seat_state(again)
        assert after["label"] == "You are P3" and after["role"] == before["role"]
        assert after["transcript"][: len(before["transcript"])] == before["transcript"]
        assert "#" not in again.url  # the invite left the address bar
        slot = server.manager.get(game_id).slots[2]  # type: ignore[union-attr]
        assert slot.name == "Ada" and not slot.was_replaced

        # Another device: the invite is refused there, the resume link works.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        other = phone.new_page()
        other.goto(invite_url)
        other.click("#join-button")
        other.wait_for_selector("#join-error:has-text('another device')")
        other.goto(resume_link)
        other.wait_for_selector("#game:not([hidden])")
        assert other.locator("#you-label").inner_text() == "You are P3"
        assert other.locator("#you-role").inner_text() == before["role"]
        again.close()
        play_pages([other])
        assert server.wait_over(game_id).over
        laptop.close()
        phone.close()
    finally:
        server.close()


MAFIA_OF_PEOPLE_SEED = 3
"""A standard 7-player deal whose two mafiosi are P1 and P2: the two people of
`test_a_killed_server_restarts_and_every_seat_continues_where_it_was`. No night kill
can take them, and every night waits for their pick, so the game is still going (and
waits for them) when the server is killed, whatever the bots and the random clicks do
before."""


def created_in_store(folder: Path, **spec: Any) -> dict[str, Any]:
    """Create a game of `spec` in the live store of `folder` (``live.sqlite``, as
    `settings_for` names it) through an in-process server that allows a chosen seed;
    its creation reply (the invites). A server process started on that store later
    takes the game up as any live game after a restart.

    Why: ``mafia-arena serve`` never takes a creator's seed (it deals from a random
    one), and a random deal could give the people cards that end their part of the
    game before the point the test needs."""
    maker = LiveServer(settings_for(folder))
    try:
        return maker.create(**spec)
    finally:
        maker.close()


def test_a_killed_server_restarts_and_every_seat_continues_where_it_was(
    browser: Any, tmp_path: Path
) -> None:
    created = created_in_store(
        tmp_path,
        variant="standard",
        players=7,
        seed=MAFIA_OF_PEOPLE_SEED,
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "agent": "random"}],
        bot_delay=0,
        timer_scale=5,
    )
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    contexts: list[Any] = []
    try:
        game_id = created["game_id"]
        contexts, pages = join_all(browser, process.url, created, {"width": 1100, "height": 800})
        for page in pages:
            page.wait_for_selector("#game:not([hidden])")
        assert [page.locator("#you-role").inner_text() for page in pages] == ["mafioso"] * 2
        play_some(pages, 14, random.Random(2))
        before = settled(pages)
        assert not any(page.locator("#end").is_visible() for page in pages)  # mid-game

        process.kill()
        for page in pages:
            page.wait_for_selector("#conn.off", state="attached")  # they notice it is gone
        process.start()  # same store, same port: the pages reconnect on their own
        for page in pages:
            page.wait_for_selector("#conn:not(.off)", state="attached", timeout=60_000)
        after = settled(pages)
        assert after == before  # every seat sees exactly what it saw before the kill
        assert any("Player0" in p for p in after[1]["players"])

        play_pages(pages, timeout=200)
        finished = httpx.get(process.url + "/api/finished", timeout=HTTP_TIMEOUT).json()
        assert [g["id"] for g in finished] == [game_id]

        process.kill()  # finished games stay browsable after a restart too
        process.start()
        viewer = browser.new_context().new_page()
        viewer.goto(f"{process.url}/")
        viewer.click(f"#finished-list a[href='/replay/{game_id}']")
        viewer.wait_for_selector("#past-lines li")
        assert viewer.locator("#past-seat option:not([value=moderator])").count() == 7
        assert viewer.locator("#past-seat option[value=moderator]").count() == 1
        viewer.context.close()
    finally:
        for context in contexts:
            context.close()
        process.kill()


def test_the_waiting_screen_names_whom_the_table_waits_for(
    browser: Any, server: LiveServer
) -> None:
    created = server.create(
        variant="standard",
        players=7,
        seed=12,
        seats=[{"kind": "human"}, {"kind": "human"}],
        bot_delay=0.5,  # each night step takes the bots about 0.5 s: time to look
    )
    contexts, pages = join_all(browser, server.url, created, {"width": 1100, "height": 800})
    for page in pages:
        page.wait_for_selector("#game:not([hidden])")
    rng = random.Random(4)
    seen_day = seen_night = False
    deadline = time.monotonic() + 120
    while not (seen_day and seen_night):
        assert time.monotonic() < deadline, "never saw both waiting screens"
        for me, other in ((pages[0], "Player1 (P2)"), (pages[1], "Player0 (P1)")):
            prompt = me.locator("#prompt").inner_text()
            phase = me.locator("#phase").inner_text().lower()
            if prompt.startswith("Waiting for") and other in prompt and "day" in phase:
                assert me.locator("#timer").inner_text()  # with the countdown
                seen_day = True
            idle = me.locator("#choices button").count() == 0
            if "night" in phase and idle and prompt:
                assert prompt == "The night is in progress."
                seen_night = True
        page = pages[int(time.monotonic() * 2) % 2]  # one page moves at a time
        if step(page, rng, "Hello.") and not (seen_day and seen_night):
            pytest.skip("the game ended before both screens were seen")
        pages[0].wait_for_timeout(100)
    for context in contexts:
        context.close()


def test_a_restarted_lobby_shows_fresh_invites_and_the_old_links_still_work(
    tmp_path: Path,
) -> None:
    process = ServerProcess(tmp_path, tmp_path / "live.sqlite")
    process.start()
    try:
        spec = {"variant": "standard", "players": 7, "seats": [{"kind": "human"}] * 3}
        created = httpx.post(process.url + "/api/games", json=spec, timeout=HTTP_TIMEOUT).json()
        game_id, old = created["game_id"], {i["seat"]: i["invite"] for i in created["invites"]}
        admin = {"Authorization": f"Bearer {created['admin']}"}
        first = httpx.post(
            f"{process.url}/api/games/{game_id}/join",
            json={"invite": old[0], "name": "Early"},
            timeout=HTTP_TIMEOUT,
        )
        assert first.status_code == 200, first.text

        process.kill()
        process.start()
        listed = httpx.get(
            f"{process.url}/api/games/{game_id}/invites", headers=admin, timeout=HTTP_TIMEOUT
        )
        assert listed.status_code == 200, listed.text
        fresh = {i["seat"]: i["invite"] for i in listed.json()["invites"]}
        assert sorted(fresh) == [1, 2]  # one link per free seat, none for the taken one
        assert fresh[1] != old[1]

        def join(invite: str, name: str) -> httpx.Response:
            return httpx.post(
                f"{process.url}/api/games/{game_id}/join",
                json={"invite": invite, "name": name},
                timeout=HTTP_TIMEOUT,
            )

        assert join(fresh[1], "Fresh").status_code == 200
        assert join(old[1], "Late").status_code == 403  # that seat is taken now
        assert join(old[2], "Sent").status_code == 200  # a link sent before the restart
        assert join(fresh[2], "Twice").status_code == 403
        seats = httpx.get(f"{process.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
        names = [s["name"] for s in seats["seats"][:3]]
        assert names == ["Early", "Fresh", "Sent"]
    finally:
        process.kill()


def test_the_resume_link_stays_inside_the_card_on_a_phone(browser: Any, server: LiveServer) -> None:
    """The seat's key is one long word: on a phone it wraps inside the card instead of
    running past the screen's edge, where its end could not be read or selected."""
    created = server.create(variant="standard", players=7, seed=3, seats=[{"kind": "human"}])
    context = browser.new_context(**WINDOWS["phone"])
    page = context.new_page()
    try:
        page.goto(f"{server.url}/g/{created['game_id']}#invite={created['invites'][0]['invite']}")
        page.fill("#join-name", "Ada")
        page.click("#join-button")
        page.wait_for_selector("#game:not([hidden])")
        page.click("#move summary")
        link = page.locator("#resume-link")
        expect(link).to_contain_text("#resume=")
        right = page.evaluate("document.querySelector('#card').getBoundingClientRect().right")
        end = page.evaluate("document.querySelector('#resume-link').getBoundingClientRect().right")
        assert end <= right, f"the link ends at {end}px, the card at {right}px"
        assert_fits(page, "the resume link shown")
    finally:
        context.close()
