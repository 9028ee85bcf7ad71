"""People who come back: every finished game can be reached from the home page, page
by page, in the same order after a restart; a finished game's link answers with the
game (and the page opens its replay) after a restart, never a bare "no such game".

Real server (`LiveServer`) on a live store filled the way a busy server fills it, and
Debian's Chromium for the pages.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot

from mafia_arena.web.db import LiveStore

pytestmark = pytest.mark.timeout(120)


def fill(db: Path, games: int) -> list[str]:
    """`games` finished games in the store at `db`, three at a time finishing in the
    same instant (as a busy server's games may); their ids in the order the list owes
    them: newest first, then by id."""
    store = LiveStore(db)
    spec = '{"variant": "standard", "players": 7}'
    rows = [(f"g{i:03d}", spec, float(i), "x" * 100, float(i // 3)) for i in range(games)]
    store.db.executemany(
        "INSERT INTO games (id, spec, seed, created, over, log, finished, winner) "
        "VALUES (?, ?, 0, ?, 1, ?, ?, 'town')",
        rows,
    )
    store.db.commit()
    store.close()
    return [gid for gid, *_ in sorted(rows, key=lambda r: (r[4], r[0]), reverse=True)]


def every_page(url: str, limit: int | None = None) -> list[list[str]]:
    """The ids of each page of `GET /api/finished`, following ``before`` to the end."""
    pages: list[list[str]] = []
    before: str | None = None
    while True:
        params: dict[str, Any] = {} if limit is None else {"limit": limit}
        if before is not None:
            params["before"] = before
        reply = httpx.get(url + "/api/finished", params=params, timeout=HTTP_TIMEOUT)
        assert reply.status_code == 200, reply.text
        ids = [game["id"] for game in reply.json()]
        if not ids:
            return pages
        assert len(pages) < 100, "the pages never end"
        pages.append(ids)
        before = ids[-1]


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[LiveServer, list[str]]]:
    """A server on a store of 130 finished games, and their ids in list order."""
    order = fill(tmp_path / "live.sqlite", 130)
    live = LiveServer(settings_for(tmp_path))
    try:
        yield live, order
    finally:
        live.close()


def test_every_finished_game_is_reached_page_by_page_in_the_same_order_after_a_restart(
    stored: tuple[LiveServer, list[str]], tmp_path: Path
) -> None:
    live, order = stored
    pages = every_page(live.url)
    assert [len(page) for page in pages] == [50, 50, 30]
    assert [gid for page in pages for gid in page] == order  # each once, none left out
    assert [gid for page in every_page(live.url, limit=7) for gid in page] == order
    live.close()
    again = LiveServer(settings_for(tmp_path))
    try:
        assert every_page(again.url) == pages
    finally:
        again.close()


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("limit=0", 422, "greater than or equal to 1"),
        ("limit=51", 422, "less than or equal to 50"),
        ("limit=many", 422, "valid integer"),
        ("before=no-such-game", 400, "before: no finished game with that id"),
        ("before=not%20an%20id", 422, "should match pattern"),
        ("before=" + "g" * 65, 422, "should match pattern"),
    ],
    ids=["limit-0", "limit-51", "limit-text", "before-unknown", "before-malformed", "before-long"],
)
def test_paging_values_out_of_range_are_refused_with_the_reason(
    stored: tuple[LiveServer, list[str]], query: str, status: int, words: str
) -> None:
    live, _ = stored
    reply = httpx.get(f"{live.url}/api/finished?{query}", timeout=HTTP_TIMEOUT)
    assert reply.status_code == status, reply.text
    assert words in reply.text


def test_a_finished_games_lobby_answers_after_a_restart_and_an_unknown_one_does_not(
    tmp_path: Path,
) -> None:
    live = LiveServer(settings_for(tmp_path))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        bots = [{"kind": "bot", "agent": "random"}]
        game_id = live.create(variant="standard", players=7, seed=3, seats=bots)["game_id"]
        live.wait_over(game_id)
        before = httpx.get(f"{live.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
        assert before["over"] is True
    finally:
        live.close()
    again = LiveServer(settings_for(tmp_path))
    try:
        assert again.manager.get(game_id) is None  # only in the store now
        reply = httpx.get(f"{again.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT)
        assert reply.status_code == 200, reply.text
        lobby = reply.json()
        assert lobby["over"] is True and lobby["started"] is True
        assert lobby["replay"] == f"/replay/{game_id}"
        assert (lobby["id"], lobby["variant"], lobby["players"]) == (game_id, "standard", 7)
        assert lobby["title"] == before["title"]
        assert httpx.get(again.url + lobby["replay"], timeout=HTTP_TIMEOUT).status_code == 200
        unknown = httpx.get(f"{again.url}/api/games/NoSuchGame1", timeout=HTTP_TIMEOUT)
        assert unknown.status_code == 404
        assert unknown.json()["detail"] == "no such game"
    finally:
        again.close()


@pytest.mark.browser
def test_the_home_page_offers_older_games_until_the_last(
    browser: Any, stored: tuple[LiveServer, list[str]]
) -> None:
    live, order = stored
    page = browser.new_context().new_page()
    page.goto(live.url + "/")
    items = page.locator("#finished-list li a")
    page.wait_for_selector("#finished-list li a")
    assert items.count() == 50
    more = page.locator("#finished-more")
    for shown in (100, 130):
        more.click()
        expect(items).to_have_count(shown)
    hrefs = [items.nth(i).get_attribute("href") for i in range(items.count())]
    assert hrefs == [f"/replay/{gid}" for gid in order]
    assert more.is_hidden()  # the last page was short: nothing older
    page.context.close()


@pytest.mark.browser
def test_a_finished_games_links_open_its_replay_after_a_restart(
    browser: Any, tmp_path: Path
) -> None:
    """A player's own page (their seat kept on the device), a plain link and an invite
    link of a finished game open its replay after a restart; an unknown game's link
    still says there is no such game."""
    live = LiveServer(settings_for(tmp_path))
    live.manager.host_key = FIXED_HOST_KEY
    try:
        seats = [{"kind": "human"}, {"kind": "bot", "agent": "random"}]
        created = live.create(variant="standard", players=7, seed=3, seats=seats)
        game_id = created["game_id"]
        joined = live.join(game_id, created["invites"][0]["invite"], "Ada")
        play = autopilot(live.ws_url, game_id, joined["credential"], 0, 3)
        player = threading.Thread(target=asyncio.run, args=(play,))  # the browser's loop runs here
        player.start()
        player.join(120)
        live.wait_over(game_id)
    finally:
        live.close()
    again = LiveServer(settings_for(tmp_path))
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(again.url + "/")
        seat = json.dumps({"credential": joined["credential"], "seat": 0})
        page.evaluate(f"localStorage.setItem('mafia:seat:{game_id}', {json.dumps(seat)})")
        for link in (f"/g/{game_id}", f"/g/{game_id}", f"/g/{game_id}#invite=an-old-invite"):
            page.goto(again.url + link)  # the player's page first, then as anyone
            page.wait_for_selector("#past-lines li")
            assert page.url == f"{again.url}/replay/{game_id}"
        page.goto(again.url + "/g/NoSuchGame1")
        page.wait_for_selector("#message:not([hidden])")
        page.wait_for_timeout(300)  # it stays: an unknown game has no replay
        assert page.url.endswith("/g/NoSuchGame1")
    finally:
        context.close()
        again.close()
