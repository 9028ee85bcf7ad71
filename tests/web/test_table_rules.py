"""The page's "Rules of this table": the generated rules text with the creator's switches.

Over a live server, through the JSON API a page reads (`/api/games/{id}` and the seat's
`/view`, the same content as its socket): every seat receives `rules_text(variant,
players)` for the variant as the creator set it, in the lobby and once the game runs; a
switch the creator flips changes the sentence it governs; and the text is the same for
every seat, so it carries nothing of the deal.
"""

from __future__ import annotations

from typing import Any

import httpx
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.rules import load_variant
from mafia_arena.views.rules_text import rules_text


def _seat_view(server: LiveServer, game_id: str, credential: str) -> dict[str, Any]:
    response = httpx.get(
        f"{server.url}/api/games/{game_id}/view",
        headers={"Authorization": f"Bearer {credential}"},
        timeout=HTTP_TIMEOUT,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _table(server: LiveServer, overrides: dict[str, Any]) -> dict[str, Any]:
    """A 7-seat standard game with two people: the public lobby, the first person's view
    in the lobby, then both seats' views once the second has joined (the game starts)."""
    created = server.create(
        variant="standard",
        players=7,
        seats=[{"kind": "human"}, {"kind": "human"}],
        overrides=overrides,
    )
    game_id = created["game_id"]
    first = server.join(game_id, created["invites"][0]["invite"])
    public = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    before = [_seat_view(server, game_id, first["credential"])]
    second = server.join(game_id, created["invites"][1]["invite"])
    after = [_seat_view(server, game_id, j["credential"]) for j in (first, second)]
    return {"public": public, "before": before, "after": after}


def test_every_seat_reads_the_rules_with_the_creators_switches(server: LiveServer) -> None:
    plain = _table(server, {})
    no_self = _table(server, {"doctor_self": False})
    expected = {
        "plain": rules_text(load_variant("standard"), 7),
        "no_self": rules_text(load_variant("standard", {"doctor_self": False}), 7),
    }
    for name, table in (("plain", plain), ("no_self", no_self)):
        assert table["public"]["rules"] == expected[name]
        assert [v["type"] for v in table["before"]] == ["lobby"]
        assert [v["type"] for v in table["after"]] == ["state", "state"]
        for view in table["before"] + table["after"]:
            assert view["rules"] == expected[name]  # every seat the same text: no deal in it
    assert "themselves allowed" in plain["after"][0]["rules"]
    assert "themselves allowed" not in no_self["after"][0]["rules"]
    assert plain["after"][0]["rules"] != no_self["after"][0]["rules"]


def test_the_rules_follow_the_table_size(server: LiveServer) -> None:
    created = server.create(variant="standard", players=9, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    public = httpx.get(f"{server.url}/api/games/{game_id}", timeout=HTTP_TIMEOUT).json()
    assert public["rules"] == rules_text(load_variant("standard"), 9)
    assert public["rules"] != rules_text(load_variant("standard"), 7)
