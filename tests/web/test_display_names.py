"""The web app's text lines name roles and Palermo's intrigue cards as the text view
does (`views.display_names`): the live page, the view API, a spectator's page, the
after-game replay and moderator's view, and the terminal. Names come from the
variant's public rules only; an id stays beside the seat's own role and card, as in
the text view ("your role is Corrupt Cop (corrupt_cop; mafia)")."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import websockets
from tests.host_key import FIXED_HOST_KEY
from tests.web.support import HTTP_TIMEOUT, LiveServer

from mafia_arena.agents.registry import make_agent
from mafia_arena.engine.catalogue import CardDealt, RoleDealt
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import play_match_sync
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.people_text import people_line
from mafia_arena.views.text import render_event
from mafia_arena.web.render import role_titles
from mafia_arena.web.storage import replay_views
from mafia_arena.web.terminal import play_in_terminal

PALERMO = load_variant("palermo")
NAMES = DisplayNames.of(PALERMO)


def own_lines(events: list[Any], seat: int) -> list[str]:
    """The lines that tell `seat` its Palermo role and first intrigue card (from the
    log's `RoleDealt` and `CardDealt`), as the text view writes them: each by its name
    with the id beside it."""
    dealt = next(e.fact for e in events if isinstance(e.fact, RoleDealt) and e.fact.seat == seat)
    role = dealt.role
    told = [f"You are P{seat + 1}; your role is {NAMES.role(role)} ({role}; {dealt.faction})."]
    card = next(
        (e.fact.card for e in events if isinstance(e.fact, CardDealt) and e.fact.seat == seat),
        None,
    )
    if card:
        told.append(f"Your intrigue card: {NAMES.card_and_id(card)}.")
    return told


def named_lines(
    events: list[Any],
    seat: int | None,
    render: Callable[[Any, int | None, DisplayNames], str | None] = render_event,
) -> list[str]:
    """The lines `seat` (None: the moderator) reads whose names differ from the ids,
    written by `render` (the text view's; the terminal's are the lines people read)."""
    out = []
    for event in events:
        if event.visibility.scope == "host" or (
            seat is not None and not event.visibility.admits(seat)
        ):
            continue
        line = render(event, seat, NAMES)
        if line and line != render(event, seat, PLAIN):
            out.append(line)
    return out


def test_the_palermo_page_names_roles_and_cards_in_its_lines(
    heuristic_server: LiveServer,
) -> None:
    """P6 (seed 1: the Corrupt Cop) reads its role, allies and card by name, on the
    socket and through the view API; the spectator's lines are the public ones, named
    alike. The role titles the page's JS uses are the same names."""
    server = heuristic_server
    seats = [{"kind": "bot"}] * 5 + [{"kind": "human"}]
    created = server.create(variant="palermo", players=12, seed=1, seats=seats)
    game_id = created["game_id"]
    credential = server.join(game_id, created["invites"][0]["invite"], "Ada")["credential"]

    async def first_state(token: str) -> dict[str, Any]:
        async with websockets.connect(
            f"{server.ws_url}/ws/{game_id}", open_timeout=HTTP_TIMEOUT
        ) as ws:
            await ws.send(json.dumps({"type": "auth", "credential": token}))
            async with asyncio.timeout(HTTP_TIMEOUT):
                while True:
                    msg = json.loads(await ws.recv())
                    if msg["type"] == "state" and msg["lines"]:
                        return msg

    page = asyncio.run(first_state(credential))
    watched = asyncio.run(first_state(created["watch"]))
    viewed = httpx.get(
        f"{server.url}/api/games/{game_id}/view",
        headers={"Authorization": f"Bearer {credential}"},
        timeout=HTTP_TIMEOUT,
    ).json()
    game = server.game(game_id)
    assert game.state.seats[5].card == "corrupt_cop"
    told = own_lines(game.events, 5)
    assert told[0] == "You are P6; your role is Corrupt Cop (corrupt_cop; mafia)."
    for message in (page, viewed):
        texts = [line["text"] for line in message["lines"]]
        for line in told:
            assert line in texts, (line, texts)
        assert (
            "You know: P8 (Known Mafioso B), P9 (Known Mafioso A), P10 (Hidden Mafioso)." in texts
        )
        assert message["role_titles"] == dict(NAMES.roles)
    public = [
        people_line(e, -1, NAMES, game.variant)  # the page's lines: the ones people read
        for e in game.events
        if e.visibility.scope == "public"
    ]
    spectator = [line["text"] for line in watched["lines"]]
    assert spectator and all(text in public for text in spectator)
    assert not any("your role is" in text for text in spectator)
    assert role_titles(PALERMO)["citizen"] == "Simple Citizen"


def test_the_replay_and_the_moderators_view_name_roles_and_cards() -> None:
    """The stored game's replay (every seat's lines) and the moderator's lines are the
    lines people read (`views.people_text`) with the variant's names, not the bare ids."""
    agents = [make_agent("random") for _ in range(12)]
    result = play_match_sync(
        load_variant("palermo", {"moves": 1}), agents, 3, {"moves": 1}, host_key=FIXED_HOST_KEY
    )
    events = list(result.log.events)
    views = replay_views(result.log)
    assert any(isinstance(e.fact, CardDealt) and e.fact.card for e in events)
    for seat in views["seats"]:
        texts = [line["text"] for line in seat["lines"]]
        for told in own_lines(events, seat["seat"]):
            assert told in texts, (told, texts[:5])
    moderator = [line["text"] for line in views["moderator"]]
    game = replay(result.log)

    def page(event: Any, viewer: int | None, names: DisplayNames) -> str | None:
        return people_line(event, viewer, names, game.variant)  # no reason: the end screen's

    named = named_lines(events, None, page)
    assert named and set(named) <= set(moderator)
    assert views["role_titles"] == dict(NAMES.roles)


def test_the_terminal_names_roles_and_cards() -> None:
    """`mafia-arena play --human`: the seat's lines are the text view's as people read
    them (`views.people_text`: the end with why the game ended), with names."""
    out = io.StringIO()
    seat = 5
    answers: Iterator[str] = itertools.repeat("0")  # the first choice: done for this phase
    result = play_in_terminal(
        "palermo", 12, seat, "random", 1, {"moves": 1}, read=lambda _: next(answers), out=out
    )
    printed = out.getvalue().splitlines()
    events = list(result.log.events)
    for told in own_lines(events, seat):  # the seat's own card: a private line, so tagged
        assert f"[private] {told}" in printed, told
    game = replay(result.log)

    def terminal(event: Any, viewer: int | None, names: DisplayNames) -> str | None:
        return people_line(event, viewer, names, game.variant, game)

    named = named_lines(events, seat, terminal)
    # a private line comes after its tag ("[private] ", "[the mafia's channel] ")
    assert named and all(any(p.endswith(line) for p in printed) for line in named)
