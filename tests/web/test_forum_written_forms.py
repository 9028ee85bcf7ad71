"""The forum forms a turn does not list, sent from a page (``form`` messages): a
message to several players, an ad under and the transfer of one's own pseudonym.

Real server, real websocket: a person in a 12-player dictator game with heuristic bots.
The server builds each form from checked parts (`agents.human.written_act`) and the
engine's check on submit stays the authority: a pseudonym the seat does not own, a
message to oneself, a second ad under one pseudonym in one edition are refused with the
reason, to that page alone, and the turn stays open."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import LiveServer, open_seat, recv_until

from mafia_arena.agents.human import Action, Form, decision_for
from mafia_arena.engine.catalogue import PrivateMessage, PseudonymTransfer
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.web.protocol import BadMessage, Write, parse

pytestmark = pytest.mark.timeout(120)


async def _asked(ws: Any, after: int | None) -> dict[str, Any]:
    """The seat's next forum request (a turn other than `after`)."""
    message = await recv_until(
        ws, lambda m: m["type"] == "state" and m["request"] and m["request"]["turn"] != after
    )
    request: dict[str, Any] = message["request"]
    assert request["kind"] == "forum"
    return request


async def _refused(ws: Any, message: dict[str, Any]) -> str:
    """Send `message`; the reason of the error it is answered with."""
    await ws.send(json.dumps(message))
    error = await recv_until(ws, lambda m: m["type"] == "error")
    return str(error["reason"])


async def _write_forms(server: LiveServer, game_id: str, credential: str) -> list[str]:
    """Play the forms (module doc); the refusals' reasons, in order."""
    reasons = []
    ws = await open_seat(server, game_id, credential)
    try:
        request = await _asked(ws, None)
        assert request["pseudonyms"] == []
        turn = request["turn"]
        give = {"type": "form", "turn": turn, "verb": "give", "seats": [3], "pseudonym": "Raven"}
        reasons.append(await _refused(ws, give))
        to_self = {"type": "form", "turn": turn, "verb": "pm", "seats": [0, 5], "text": "x"}
        reasons.append(await _refused(ws, to_self))
        group = {"type": "form", "turn": turn, "verb": "pm", "seats": [6, 2, 4], "text": "Meet"}
        await ws.send(json.dumps(group))
        request = await _asked(ws, turn)
        turn = request["turn"]
        new_ad = request["keys"].index("ad::new")
        await ws.send(json.dumps({"type": "say", "turn": turn, "text": "Hi", "choice": new_ad}))
        request = await _asked(ws, turn)
        turn = request["turn"]
        [name] = request["pseudonyms"]
        again = {"type": "form", "turn": turn, "verb": "ad", "pseudonym": name.upper()}
        reasons.append(await _refused(ws, {**again, "text": "again"}))
        mine = {"type": "form", "turn": turn, "verb": "give", "seats": [3], "pseudonym": name}
        await ws.send(json.dumps(mine))
        await _asked(ws, turn)
    finally:
        await ws.close()
    return reasons


def test_a_page_sends_the_forms_the_turn_does_not_list(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, allowed_agents=("heuristic",), grace=600.0)
    server = LiveServer(settings)
    server.manager.host_key = FIXED_HOST_KEY
    try:
        seats = [{"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]
        created = server.create(variant="dictator", players=12, seed=4, seats=seats)
        game_id = created["game_id"]
        credential = server.join(game_id, created["invites"][0]["invite"])["credential"]
        reasons = asyncio.run(_write_forms(server, game_id, credential))
        events = list(server.game(game_id).events)
    finally:
        server.close()
    assert reasons[0] == "not a pseudonym of yours (yours: none yet)"
    assert reasons[1] == "private messages go to other players in the game"
    assert reasons[2].startswith("one ad per pseudonym and edition")
    sent = [(e, f) for e in events if isinstance(f := e.fact, PrivateMessage) and f.sender == 0]
    assert [(f.recipients, f.text) for _, f in sent] == [((2, 4, 6), "Meet")]
    assert sent[0][0].visibility.seats == {0, 2, 4, 6}  # the recipients only
    # the person's own transfer (the bots may give pseudonyms away too)
    given = [(e, f) for e in events if isinstance(f := e.fact, PseudonymTransfer) and f.giver == 0]
    assert [(f.giver, f.receiver) for _, f in given] == [(0, 3)]
    assert given[0][0].visibility.seats == {0, 3}


def test_a_form_message_names_only_a_written_form_with_bounded_parts() -> None:
    """A ``form`` frame takes one of the four written verbs and no other key (no seat
    of its own, no raw act value); off a forum turn, no form is accepted at all."""
    ok = parse('{"type": "form", "turn": 1, "verb": "pm", "seats": [2, 4], "text": "hi"}', 4096)
    assert isinstance(ok, Write) and ok.seats == [2, 4]
    for frame in (
        '{"type": "form", "turn": 1, "verb": "execute", "seats": [2]}',
        '{"type": "form", "turn": 1, "verb": "pm", "seats": [2], "seat": 0}',
        '{"type": "form", "turn": 1, "verb": "ad", "value": "Raven"}',
        '{"type": "form", "turn": 1, "verb": "pm", "seats": [-1]}',
    ):
        with pytest.raises(BadMessage):
            parse(frame, 4096)
    vote = Game(load_variant("classic"), 7, 1).pending()
    request = next(iter(vote.values()))
    with pytest.raises(IllegalDecision, match="written forms are for the forum"):
        decision_for(request, Action(0, form=Form("pm", (1, 2))))
