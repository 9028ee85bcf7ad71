"""The lobby for a group of people: names, seats, the table, settings, rematch.

Over a live server: the public lobby tells who sits where (people and bots by kind)
and the switches and timers the creator chose; an invited player learns their seat
before taking it; a finished game's players ask for a rematch and each gets their own
seat in one new game with the same seating and settings (and a new seed), which starts
once all are back; the replay carries the moderator's view, which names who saw each
private line.
"""

from __future__ import annotations

import asyncio

import httpx
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot


def test_the_lobby_tells_the_table_and_the_settings(server: LiveServer) -> None:
    created = server.create(
        variant="standard",
        players=7,
        seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "agent": "random"}],
        overrides={"mafia_chat_rounds": 1},
        timer_scale=2.0,
    )
    game_id = created["game_id"]
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert lobby["table"] == {"humans": 2, "bots": 5, "bot_kinds": {"random": 5}}
    assert lobby["settings"]["overrides"] == {"mafia_chat_rounds": 1}
    assert lobby["settings"]["timer_scale"] == 2.0
    second = created["invites"][1]["invite"]
    seat = httpx.post(
        f"{server.url}/api/games/{game_id}/seat", json={"invite": second}, timeout=HTTP_TIMEOUT
    )
    assert seat.json() == {"seat": 1, "label": "P2"}
    forged = httpx.post(
        f"{server.url}/api/games/{game_id}/seat", json={"invite": "x" * 43}, timeout=HTTP_TIMEOUT
    )
    assert forged.status_code == 403
    server.join(game_id, created["invites"][0]["invite"], "Creator")
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert lobby["seats"][0]["name"] == "Creator" and lobby["seats"][0]["taken"]
    assert not lobby["seats"][1]["taken"]  # looking up a seat does not take it


def test_a_rematch_seats_the_same_group_again(server: LiveServer) -> None:
    created = server.create(
        variant="simple", players=5, seed=3, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    game_id = created["game_id"]
    first, second = (
        server.join(game_id, i["invite"], name)
        for i, name in zip(created["invites"], ["Ada", "Bo"], strict=True)
    )

    async def play() -> None:
        await asyncio.gather(
            autopilot(server.ws_url, game_id, first["credential"], 0, 1),
            autopilot(server.ws_url, game_id, second["credential"], 1, 2),
        )

    asyncio.run(play())
    server.wait_over(game_id)
    url = f"{server.url}/api/games/{game_id}/rematch"
    early = httpx.post(
        url, headers={"Authorization": f"Bearer {created['admin']}"}, timeout=HTTP_TIMEOUT
    )
    assert early.status_code == 403  # the creator's admin key is not a player
    again = httpx.post(
        url, headers={"Authorization": f"Bearer {first['credential']}"}, timeout=HTTP_TIMEOUT
    )
    assert again.status_code == 200, again.text
    new_id = again.json()["game_id"]
    assert new_id != game_id and again.json()["seat"] == 0
    lobby = httpx.get(f"{server.url}/api/games/{new_id}", timeout=HTTP_TIMEOUT).json()
    assert not lobby["started"]  # Bo is not back yet
    assert lobby["seats"][0]["name"] == "Ada" and not lobby["seats"][1]["taken"]
    assert [s["kind"] for s in lobby["seats"]] == ["human", "human", "bot", "bot", "bot"]
    back = httpx.post(
        url, headers={"Authorization": f"Bearer {second['credential']}"}, timeout=HTTP_TIMEOUT
    )
    assert back.json()["game_id"] == new_id and back.json()["seat"] == 1
    lobby = httpx.get(f"{server.url}/api/games/{new_id}", timeout=HTTP_TIMEOUT).json()
    assert lobby["started"]
    assert lobby["seats"][1]["name"] == "Bo" and lobby["seats"][1]["taken"]
    old = server.manager.get(game_id)
    new = server.manager.get(new_id)
    assert old is not None and new is not None and new.variant.name == old.variant.name
    view = httpx.get(
        f"{server.url}/api/games/{game_id}/view",
        headers={"Authorization": f"Bearer {second['credential']}"},
        timeout=HTTP_TIMEOUT,
    ).json()
    assert view["rematch"] == new_id  # the old game's pages offer to join it

    replay = httpx.get(f"{server.url}/api/games/{game_id}/replay", timeout=HTTP_TIMEOUT).json()
    private = [line for line in replay["moderator"] if line["private"]]
    assert private and all(line["channel"] for line in private)
    everyone = {line["text"] for seat in replay["seats"] for line in seat["lines"]}
    assert {line["text"] for line in replay["moderator"]} == everyone


def test_a_name_that_reads_as_another_seat_or_a_bot_is_refused_with_the_reason(
    server: LiveServer,
) -> None:
    # the table writes "Ada (P3)" and marks bots by "bot" after the name: a person named
    # "P3" or "heuristic bot" read as another seat or as a bot, "Host" as the game, and a
    # blank name as none
    created = server.create(
        variant="standard", players=7, seats=[{"kind": "human"}, {"kind": "human"}]
    )
    game_id = created["game_id"]
    first, second = (i["invite"] for i in created["invites"])

    def join(invite: str, name: str) -> httpx.Response:
        url = f"{server.url}/api/games/{game_id}/join"
        return httpx.post(url, json={"invite": invite, "name": name}, timeout=HTTP_TIMEOUT)

    for name, reason in [
        ("P3", "'P3' is a seat's label"),
        ("p 12", "a seat's label"),
        ("heuristic bot", "cannot end in 'bot'"),
        ("P3.", "a seat's label"),  # punctuation around a name changes nothing
        ("random bot.", "cannot end in 'bot'"),
        ("heuristic bot'", "cannot end in 'bot'"),
        ("Host", "'Host' would read as the game speaking"),
        ("the Moderator", "would read as the game speaking"),
        ("GM.", "would read as the game speaking"),
        ("<b>Ada</b>", "1 to 24 letters, digits, spaces"),
        ("x" * 25, "1 to 24 letters"),
    ]:
        refused = join(first, name)
        assert refused.status_code == 422, (name, refused.text)
        assert reason in refused.json()["detail"][0]["msg"], (name, refused.text)
    assert join(first, "  Ada   Lovelace ").status_code == 200
    taken = join(second, "ada lovelace")
    assert taken.status_code == 409 and "is taken at this table (P1)" in taken.text
    assert join(second, "Abbot").status_code == 200  # "bot" inside a word is a name
    lobby = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    names = {s["label"]: s["name"] for s in lobby["seats"]}
    assert names["P1"] == "Ada Lovelace" and names["P2"] == "Abbot"
