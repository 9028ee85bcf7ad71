"""The end screen says why the game ended, not only who won, to the player, to a
spectator and on the replay page, in the variants whose win is a faction's rule
(`engine.win`); the forum game's end names its rule too (`test_forum_end.py`, over the
websocket).

`check_win` ends such a game with an empty reason, and the page said only "Game over:
mafia won" under a role card whose goal reads "Outnumber the town" while two mafiosi
stood against two villagers: nothing said that the mafia win at parity. The words are
found when the page is rendered (`web.endings`), and the stored log, whose event keeps
its empty reason, replays as it was.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.web.browser_support import play_pages
from tests.web.support import LiveServer

from mafia_arena.engine.catalogue import GameEnded

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PARITY = re.compile(
    r"the mafia are at least as many as all other living players \((\d+) against (\d+)\)"
)


def expected_counts(server: LiveServer, game_id: str) -> tuple[str | None, int, int]:
    """The true winner and the living mafia and other players at the end."""
    game = server.wait_over(game_id)
    living = game.state.living_seats()
    mafia = sum(1 for s in living if game.state.faction(s) == "mafia")
    return game.state.winner, mafia, len(living) - mafia


@pytest.mark.parametrize(
    ("variant", "players", "seed"), [("simple", 6, 4), ("standard", 7, 2), ("classic", 8, 3)]
)
def test_the_end_screen_says_why_the_game_ended(
    browser: Any, server: LiveServer, variant: str, players: int, seed: int
) -> None:
    created = server.create(variant=variant, players=players, seed=seed, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(f"{server.url}/g/{game_id}#invite={created['invites'][0]['invite']}")
    page.fill("#join-name", "Ada")
    page.click("#join-button")
    page.wait_for_selector("#game:not([hidden])")
    play_pages([page], timeout=150)
    reason = page.locator("#end-reason").inner_text()
    winner, mafia, others = expected_counts(server, game_id)
    title = page.locator("#end-title").text_content()
    assert title == f"Game over: {winner} won", title
    if winner == "mafia" and variant != "classic":  # parity: the mafia's goal
        counted = PARITY.fullmatch(reason)
        assert counted, reason
        assert (int(counted[1]), int(counted[2])) == (mafia, others)
        assert mafia >= others
    elif winner == "mafia":  # classic has no parity rule: every citizen must be dead
        assert reason == "no player of the citizens is left alive"
        assert others == 0
    else:
        assert reason == "no player of the mafia is left alive"
        assert mafia == 0

    # a spectator's end screen says the same
    watch = context.new_page()
    watch.goto(f"{server.url}/g/{game_id}#watch={created['watch']}")
    watch.wait_for_selector("#end:not([hidden])")
    assert watch.locator("#end-reason").inner_text() == reason

    # the replay page says it too, while the recorded event's reason stays empty
    assert game_over_reason(server, game_id) == ""
    past = context.new_page()
    past.goto(f"{server.url}/replay/{game_id}")
    past.wait_for_selector("#past-reason:not(:empty)")
    assert past.locator("#past-reason").inner_text() == reason
    context.close()


def game_over_reason(server: LiveServer, game_id: str) -> str:
    """The reason the game's `GameEnded` event recorded (its log keeps it as is)."""
    return next(
        e.fact.reason
        for e in reversed(server.game(game_id).events)
        if isinstance(e.fact, GameEnded)
    )
