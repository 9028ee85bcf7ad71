"""A seat opened on a second page (the resume link on a phone while the laptop's tab is
open, the game in a second tab): the newest page plays the seat.

- Over websockets, on a live server: the older page is told "this seat was opened in
  another tab or device" and closed with code 4409; an action it sent after the new
  page took the seat (before it read that it was closed) never reaches the game; the
  new page gets the open turn with its number and deadline unchanged; the table's other
  pages are sent nothing (the seat was never away) and their turns keep their deadlines;
  the game then plays to its end with the seat's every decision the person's own.
- In the server's own loop, with sockets the test feeds: a frame of the older page that
  is read after the newer page took the seat (one that arrived before the server's close
  frame left) is not handled, whatever the socket still delivers.
- In Debian's Chromium: two pages opened on one resume link, and the seat's first page,
  each show the message when a newer one takes the seat, and none reconnects by itself
  (which would take the seat back, and the pages would take it from each other forever).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from playwright.sync_api import expect
from tests.host_key import FIXED_HOST_KEY
from tests.web.browser_support import play_pages
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot, open_seat, recv_until

from mafia_arena.web.manager import GameManager
from mafia_arena.web.session import CLOSE_ELSEWHERE, ELSEWHERE
from mafia_arena.web.settings import GameSpec, SeatSpec
from mafia_arena.web.ws import serve_socket

pytestmark = pytest.mark.timeout(180)


def resumed(server: LiveServer, game_id: str, resume: str) -> str:
    """The credential the seat's resume link gives another device."""
    reply = httpx.post(
        f"{server.url}/api/games/{game_id}/resume", json={"resume": resume}, timeout=HTTP_TIMEOUT
    )
    assert reply.status_code == 200, reply.text
    credential: str = reply.json()["credential"]
    return credential


async def quiet(ws: Any, seconds: float = 1.0) -> list[dict[str, Any]]:
    """What `ws` receives until it has been silent for `seconds`."""
    got: list[dict[str, Any]] = []
    while True:
        try:
            async with asyncio.timeout(seconds):
                got.append(json.loads(await ws.recv()))
        except TimeoutError:
            return got


async def until_closed(ws: Any) -> list[dict[str, Any]]:
    """Every message `ws` still receives until the server closes it (or for
    `HTTP_TIMEOUT`, a hang guard)."""
    got: list[dict[str, Any]] = []
    with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
        async with asyncio.timeout(HTTP_TIMEOUT):
            async for raw in ws:
                got.append(json.loads(raw))
    return got


def test_the_newest_page_plays_the_seat_and_the_older_pages_late_action_is_not_read(
    server: LiveServer,
) -> None:
    created = server.create(
        variant="simple", players=5, seed=1, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    game_id = created["game_id"]
    ada = server.join(game_id, created["invites"][0]["invite"], "Ada")
    bea = server.join(game_id, created["invites"][1]["invite"], "Bea")
    session = server.manager.get(game_id)
    assert session is not None
    ada_seat, bea_seat = session.slots[0], session.slots[1]

    async def table() -> dict[str, Any]:
        laptop = await open_seat(server, game_id, ada["credential"])
        other = await open_seat(server, game_id, bea["credential"])
        asked = await recv_until(laptop, lambda m: m["type"] == "state" and m["request"])
        await quiet(laptop)
        await quiet(other)  # the table waits for both people's votes
        before = [(s.turn, s.active, s.deadline) for s in session.slots]
        decided = len(session.game.decisions) if session.game else -1
        laptop.transport.pause_reading()  # it reads nothing more, as a page busy elsewhere
        phone = await open_seat(server, game_id, resumed(server, game_id, ada["resume"]))
        taken = await recv_until(phone, lambda m: m["type"] == "state")
        elsewhere = await quiet(other)
        turn, keys = asked["request"]["turn"], asked["request"]["keys"]
        # the laptop votes after the phone took the seat, unaware of it
        await laptop.send(json.dumps({"type": "act", "turn": turn, "choice": 0}))
        laptop.transport.resume_reading()
        told = await until_closed(laptop)  # its vote reached the server before its close
        late = await quiet(phone)  # had the vote been taken, the phone's turn would end
        after = [(s.turn, s.active, s.deadline) for s in session.slots]
        unchanged = len(session.game.decisions) if session.game else -2
        await phone.send(json.dumps({"type": "act", "turn": turn, "choice": len(keys) - 1}))
        await recv_until(phone, lambda m: m["type"] == "state" and not m["request"])
        voted = [d for d in session.game.decisions if d["seat"] == 0] if session.game else []
        # the game goes on from newer pages still (each closes the one before)
        await asyncio.gather(
            autopilot(server.ws_url, game_id, ada["credential"], 0, seed=1),
            autopilot(server.ws_url, game_id, bea["credential"], 1, seed=2),
        )
        closed = [await until_closed(ws) for ws in (phone, other)]
        return {
            "asked": asked,
            "taken": taken,
            "elsewhere": elsewhere,
            "told": told,
            "late": late,
            "codes": [ws.close_code for ws in (laptop, phone, other)],
            "closed": closed,
            "deadlines": (before, after),
            "decisions": (decided, unchanged),
            "voted": voted,
            "keys": keys,
        }

    seen = asyncio.run(table())
    told = seen["told"]
    assert seen["codes"] == [CLOSE_ELSEWHERE] * 3  # the page's script does not reconnect
    assert told == [{"type": "error", "about": "seat", "reason": ELSEWHERE}]
    assert [m for c in seen["closed"] for m in c if m["type"] == "error"] == [
        {"type": "error", "about": "seat", "reason": ELSEWHERE}
    ] * 2
    # the new page has the open turn as it was: its number, question and deadline
    asked, taken = seen["asked"]["request"], seen["taken"]["request"]
    assert seen["taken"]["reset"] and {**taken, "seconds_left": 0} == {**asked, "seconds_left": 0}
    assert 0 < taken["seconds_left"] <= asked["seconds_left"]
    before, after = seen["deadlines"]
    assert before == after and before[0][1] and before[1][1]  # both seats still asked
    assert seen["elsewhere"] == []  # the other person's page: nothing at all
    decided, unchanged = seen["decisions"]
    assert decided == unchanged and seen["late"] == []  # the laptop's late vote was not read
    assert seen["voted"][-1]["choice"] == seen["keys"][-1]  # the phone's vote did
    game = server.wait_over(game_id)
    assert game.over and not session.failed and session.stored is not None
    assert not ada_seat.was_replaced and not bea_seat.was_replaced and session.notices == []
    assert all(
        mark == "player"
        for record, mark in zip(game.decisions, session.marks, strict=True)
        if record["seat"] in (0, 1)
    )


class FedSocket:
    """A page's websocket as `serve_socket` sees it: the frames the test feeds it; what
    the server sends, and the code it closes with, recorded. Closing it does not stop a
    frame fed before from being read: on a real socket, a frame the page sent before the
    server's close frame reached it is still on its way, and may be read."""

    client = None

    def __init__(self, credential: str) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []
        self.code: int | None = None
        self.feed({"type": "auth", "credential": credential})

    def feed(self, message: dict[str, Any]) -> None:
        self.frames.put_nowait({"type": "websocket.receive", "text": json.dumps(message)})

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict[str, Any]:
        return await self.frames.get()

    async def send_text(self, text: str) -> None:
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000) -> None:
        self.code = code


async def until(condition: Any) -> None:
    """Wait (on the test's loop, where the game runs) until `condition()` holds."""
    async with asyncio.timeout(HTTP_TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_frame_read_from_the_older_page_after_the_takeover_is_not_handled(
    tmp_path: Path,
) -> None:
    manager = GameManager(settings_for(tmp_path))
    manager.host_key = FIXED_HOST_KEY
    spec = GameSpec(variant="simple", players=5, seed=1, seats=[SeatSpec(kind="human")])
    created = manager.create(spec)
    game_id = created["game_id"]
    session = manager.get(game_id)
    assert session is not None
    keys = manager.join(session, created["invites"][0]["invite"], "Ada", "laptop")
    assert keys is not None
    again = manager.resume(session, keys.resume)
    assert again is not None
    seat = session.slots[0]
    laptop, phone = FedSocket(keys.credential), FedSocket(again.credential)
    pages = [asyncio.create_task(serve_socket(laptop, manager, game_id))]  # type: ignore[arg-type]
    try:
        await until(lambda: any(m["type"] == "state" and m["request"] for m in laptop.sent))
        asked = next(m["request"] for m in laptop.sent if m["type"] == "state" and m["request"])
        turn, decided = seat.turn, len(session.game.decisions) if session.game else -1
        pages.append(asyncio.create_task(serve_socket(phone, manager, game_id)))  # type: ignore[arg-type]
        await until(lambda: any(m["type"] == "state" for m in phone.sent))
        laptop.feed({"type": "act", "turn": asked["turn"], "choice": 0})  # sent too late
        await until(lambda: pages[0].done())
        await asyncio.sleep(0.2)  # a vote taken would be submitted by now
        assert laptop.code == CLOSE_ELSEWHERE
        assert laptop.sent[-1] == {"type": "error", "about": "seat", "reason": ELSEWHERE}
        assert seat.active and seat.turn == turn
        assert session.game is not None and len(session.game.decisions) == decided
        last = len(asked["keys"]) - 1
        phone.feed({"type": "act", "turn": asked["turn"], "choice": last})
        await until(lambda: len(session.game.decisions) > decided if session.game else False)
        voted = [d for d in session.game.decisions[decided:] if d["seat"] == 0]
        assert [d["choice"] for d in voted] == [asked["keys"][last]]
    finally:
        for page in (laptop, phone):
            page.frames.put_nowait({"type": "websocket.disconnect"})
        await asyncio.gather(*pages)
        await manager.shutdown()


@pytest.mark.browser
def test_a_page_whose_seat_is_opened_elsewhere_says_so_and_does_not_reconnect(
    browser: Any, server: LiveServer
) -> None:
    created = server.create(variant="simple", players=5, seed=1, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    laptop = browser.new_context(viewport={"width": 1200, "height": 800})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        sockets: dict[str, list[str]] = {}

        def page_of(context: Any, name: str) -> Any:
            page = context.new_page()
            sockets[name] = []
            page.on("websocket", lambda ws: sockets[name].append(ws.url))
            return page

        first = page_of(laptop, "laptop")
        first.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
        first.fill("#join-name", "Ada")
        first.click("#join-button")
        first.wait_for_selector("#game:not([hidden])")
        resume_link = first.locator("#resume-link").text_content() or ""
        assert f"/g/{game_id}#resume=" in resume_link
        pages = [first]
        for name in ("phone", "phone tab"):  # the resume link, then again in a second tab
            page = page_of(phone, name)
            page.goto(resume_link)
            page.wait_for_selector("#game:not([hidden])")
            expect(pages[-1].locator("#message-text")).to_contain_text(
                "This seat was opened in another tab or device"
            )
            pages.append(page)
        newest = pages[-1]
        newest.wait_for_timeout(4000)  # a page's reconnects come after 1 s, 2 s, 4 s, …
        assert {name: len(urls) for name, urls in sockets.items()} == {
            "laptop": 1,
            "phone": 1,
            "phone tab": 1,
        }
        for page in pages[:-1]:
            expect(page.locator("#message")).to_be_visible()
            expect(page.locator("#game")).to_be_hidden()
        expect(newest.locator("#game")).to_be_visible()
        session = server.manager.get(game_id)
        assert session is not None and len(session.slots[0].connections) == 1
        play_pages([newest])
        assert server.wait_over(game_id).over
    finally:
        laptop.close()
        phone.close()


# Every text the move panel's error line is given, in order (a refused move says why
# there); the observer runs before the page's next event, so a text replaced at once is
# still seen.
RECORD_MOVE_ERRORS = """
window.__moveErrors = [];
new MutationObserver(() => {
  const node = document.getElementById("action-error");
  const text = node && node.textContent.trim();
  if (text) window.__moveErrors.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.mark.browser
def test_a_page_whose_seat_is_taken_over_goes_straight_to_the_note(
    browser: Any, server: LiveServer
) -> None:
    """The older page shows the takeover note at once: the server's error that comes
    before the close (marked as about the seat) is not shown as a refused move under the
    turn's buttons, which it also enabled again, until the close arrived."""
    created = server.create(variant="simple", players=5, seed=1, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    laptop = browser.new_context(viewport={"width": 1200, "height": 800})
    laptop.add_init_script(RECORD_MOVE_ERRORS)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        first = laptop.new_page()
        first.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
        first.fill("#join-name", "Ada")
        first.click("#join-button")
        expect(first.locator("#choices button").first).to_be_enabled(timeout=30_000)
        resume_link = first.locator("#resume-link").text_content() or ""
        second = phone.new_page()
        second.goto(resume_link)
        second.wait_for_selector("#game:not([hidden])")
        expect(first.locator("#message-text")).to_contain_text(
            "This seat was opened in another tab or device"
        )
        first.wait_for_timeout(500)  # the close, after the error
        assert first.evaluate("window.__moveErrors") == []
        expect(first.locator("#game")).to_be_hidden()
    finally:
        laptop.close()
        phone.close()
