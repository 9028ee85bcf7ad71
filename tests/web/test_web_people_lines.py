"""The web page's lines read as the terminal game's (`views.people_text.people_line`):
a speech's and a vote's kind in words, the forum game's Night 0 dated, a team's picks
with their round of how many, on a seat's live page, a spectator's and the after-game
replay (every seat's lines and the moderator's), while each line stays its seat's
transcript line (what a model reads) with only those words changed, and the end's
reason is said once, on the end screen.

The page wrote the transcript's ids ("P1 (night_chat): ...", "Votes (final_vote): ...",
"P8 (last_word): ...") and left the forum game's Night 0 undated. Over the websocket,
since the browser tests' event loop (Playwright's, one per module) would refuse the
autopilot's own; the browser's side is `test_team_rounds_browser.py`.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.web.conftest import settings_for
from tests.web.support import HTTP_TIMEOUT, LiveServer, autopilot, spectate

from mafia_arena.engine.game import Game
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.text import render_event
from mafia_arena.views.view import SeatTracker

pytestmark = pytest.mark.timeout(240)

IDS = re.compile(r"\((night_chat|last_word|last_words|final_vote|revote|plea|explain)\)")
"""A kind written as its id, where the page says it in words."""


@dataclass
class Table:
    """One finished web game: what its one person's page and a spectator's were sent,
    the person's page fetched after the end, its replay, and the game."""

    page: list[dict[str, Any]]
    watched: list[dict[str, Any]]
    view: dict[str, Any]
    replay: dict[str, Any]
    game: Game


def play(server: LiveServer, variant: str, players: int, seed: int) -> Table:
    """A game whose P1 is a person (played by `autopilot`), watched by a spectator."""
    created = server.create(variant=variant, players=players, seed=seed, seats=[{"kind": "human"}])
    game_id = created["game_id"]
    joined = server.join(game_id, created["invites"][0]["invite"], "Ada")

    async def both() -> tuple[Any, Any]:
        return await asyncio.gather(
            autopilot(server.ws_url, game_id, joined["credential"], 0, 3, timeout=200),
            spectate(server.ws_url, game_id, created["watch"], timeout=200),
        )

    played, watched = asyncio.run(both())
    game = server.wait_over(game_id)
    auth = {"Authorization": f"Bearer {joined['credential']}"}
    view = httpx.get(f"{server.url}/api/games/{game_id}/view", headers=auth, timeout=HTTP_TIMEOUT)
    replay = httpx.get(
        f"{server.url}/api/games/{game_id}/replay", headers=auth, timeout=HTTP_TIMEOUT
    )
    assert view.status_code == replay.status_code == 200
    return Table(
        page=[line for m in played.messages if m["type"] == "state" for line in m["lines"]],
        watched=[line for m in watched.messages if m["type"] == "state" for line in m["lines"]],
        view=view.json(),
        replay=replay.json(),
        game=game,
    )


def night_0(lines: list[dict[str, Any]]) -> list[str]:
    """The Night 0 lines but its heading ("--- Night 0 ---", dated by itself)."""
    return [
        line["text"]
        for line in lines
        if (line["phase"], line["day"]) == ("night", 0) and line["kind"] != "phase"
    ]


def texts(lines: list[dict[str, Any]]) -> list[str]:
    return [line["text"] for line in lines]


def skeleton(text: str) -> str:
    """A line less what the page may word otherwise than the transcript: the Night 0
    date, the words in parentheses (a kind, a round, which a step of one round leaves
    out) and a team of one's picks and action read as a single player's ("Your pick
    for ...: P4." where the transcript has "Team picks for ...: P1→P4.")."""
    text = re.sub(r" ?\([^()]*\)", "", text.removeprefix("[N0] "))
    text = text.replace("Your team's night action", "Your night action")
    if "Team picks for " in text:
        text = re.sub(r"P\d+→", "", text.replace("Team picks for ", "Your pick for "))
    return text


def assert_transcript_lines(lines: list[str], game: Game, seat: int) -> None:
    """`lines` are `seat`'s transcript, line for line, with only the people's words
    changed: nothing the seat's events do not hold, nothing left out."""
    names = DisplayNames.of(game.variant)
    events = SeatTracker(seat).update(game).events
    plain = [t for e in events if (t := render_event(e, seat, names))]
    assert len(lines) == len(plain)
    for ours, theirs in zip(lines, plain, strict=True):
        assert skeleton(ours) == skeleton(theirs), (ours, theirs)


@pytest.fixture(scope="module")
def classic(tmp_path_factory: pytest.TempPathFactory) -> Table:
    """Classic, 7 players, seed 3: P1 and P2 are the mafiosi and talk at night."""
    server = LiveServer(settings_for(tmp_path_factory.mktemp("classic")))
    server.manager.host_key = FIXED_HOST_KEY
    try:
        table = play(server, "classic", 7, 3)
    finally:
        server.close()
    assert {s: table.game.state.seats[s].card for s in (0, 1)} == {0: "mafioso", 1: "mafioso"}
    return table


def test_a_mafioso_s_page_says_team_chat_and_the_rounds_of_picks(classic: Table) -> None:
    for lines in (texts(classic.page), texts(classic.view["lines"])):
        assert any(line.startswith("[N1] P2 (team chat): ") for line in lines), lines
        assert any("Team picks for the mafia's kill (round 1 of 3): " in t for t in lines)
        assert any(line.startswith("[D1] Votes (final vote): ") for line in lines)
        assert any(" (final plea): " in line for line in lines)
        assert not [line for line in lines if IDS.search(line)]
    assert texts(classic.page) == texts(classic.view["lines"])  # pushed as fetched
    panel = [e["text"] for e in classic.view["votes"]["entries"] if e["kind"] == "votes"]
    assert panel and all(
        t.startswith(f"[D{classic.view['day']}] Votes (final vote): ") for t in panel
    )
    assert_transcript_lines(texts(classic.view["lines"]), classic.game, 0)
    # the end screen says why the game ended; the end's line does not say it again
    reason = classic.view["reveal"]["reason"]
    assert reason == classic.replay["reason"] == "no player of the citizens is left alive"
    for lines in (texts(classic.view["lines"]), texts(classic.watched)):
        end = [line for line in lines if line.startswith("Game over: ")]
        assert len(end) == 1 and reason not in end[0] and "Why it ended" not in end[0], end


def test_a_spectator_reads_the_kinds_in_words_and_no_team_chat(classic: Table) -> None:
    lines = texts(classic.watched)
    assert any(line.startswith("[D1] Votes (final vote): ") for line in lines)
    assert not [line for line in lines if IDS.search(line) or "team chat" in line]
    assert not [line for line in lines if "Team picks" in line]


def test_the_replay_reads_as_the_pages_did(classic: Table) -> None:
    game = classic.game
    for seat in classic.replay["seats"]:
        lines = texts(seat["lines"])
        mafia = game.state.seats[seat["seat"]].card == "mafioso"
        assert any(" (team chat): " in line for line in lines) == mafia, seat["label"]
        assert not [line for line in lines if IDS.search(line)]
        assert_transcript_lines(lines, game, seat["seat"])
    assert texts(classic.replay["seats"][0]["lines"]) == texts(classic.view["lines"])
    moderator = texts(classic.replay["moderator"])
    # the one detective of a 7-player table is a team of one: a single player's picks
    assert any("Your pick for the detectives' check (round 1 of 2): " in t for t in moderator)
    assert not [t for t in moderator if "Team picks for the detectives' check" in t]
    assert any(" (team chat): " in line for line in moderator)
    assert not [line for line in moderator if IDS.search(line)]


def test_a_club_game_s_last_words_are_said_in_words(server: LiveServer) -> None:
    """Club, 8 players, seed 1: the players the vote removes speak their last word."""
    table = play(server, "club", 8, 1)
    for lines in (texts(table.page), texts(table.watched), texts(table.replay["moderator"])):
        assert any(re.match(r"\[D1\] P\d+ \(last word\): ", line) for line in lines), lines
        assert not [line for line in lines if IDS.search(line)]
    assert_transcript_lines(texts(table.view["lines"]), table.game, 0)


def test_the_forum_game_s_night_0_is_dated_on_the_page(server: LiveServer) -> None:
    """Dictator, 12 players, seed 2: the game opens with Night 0, which the transcript
    leaves undated (its day 0 is every other variant's setup); the page dates it."""
    table = play(server, "dictator", 12, 2)
    for lines in (
        table.page,
        table.watched,
        table.view["lines"],
        table.replay["seats"][0]["lines"],
        table.replay["moderator"],
    ):
        dated = night_0(lines)
        assert dated and all(t.startswith("[N0] ") for t in dated), dated
    assert any(t.startswith("[N0] P1 (post): ") for t in night_0(table.view["lines"]))
    assert_transcript_lines(texts(table.view["lines"]), table.game, 0)
    names = DisplayNames.of(table.game.variant)
    undated = [
        render_event(e, 0, names) or ""
        for e in SeatTracker(0).update(table.game).events
        if (e.phase, e.day) == ("night", 0) and e.kind != "phase"
    ]
    assert any(t.startswith("P1 (post): ") for t in undated)  # what a model reads


def test_a_private_line_carries_its_tag_in_the_terminal_s_words(classic: Table) -> None:
    """The page tags a private line with the words the server sends (`channel_words`,
    as the terminal writes them before the line), where it made them from the channel
    id ("[mafia kill]"); the moderator's tag adds who saw the line."""
    lines = classic.view["lines"]
    chat = [line for line in lines if " (team chat): " in line["text"]]
    assert chat and {line["tag"] for line in chat} == {"the mafia's kill"}
    assert all("tag" in line for line in lines if line["private"])
    assert not [line for line in lines if "tag" in line and not line["private"]]
    moderator = [line for line in classic.replay["moderator"] if " (team chat): " in line["text"]]
    assert moderator and {line["tag"] for line in moderator} == {"the mafia's kill: P1, P2"}


def test_a_private_line_s_tag_does_not_repeat_what_the_line_says(classic: Table) -> None:
    """The mafia's picks were tagged "[the mafia's kill]" before "Team picks for the
    mafia's kill": a line that says whose it is gets an empty tag (the page then shows
    none), and the moderator's tag keeps only who saw it."""
    picks = [line for line in classic.view["lines"] if "Team picks for" in line["text"]]
    assert picks and {line["tag"] for line in picks} == {""}
    moderator = [line for line in classic.replay["moderator"] if "Team picks" in line["text"]]
    assert moderator and {line["tag"] for line in moderator} == {"P1, P2"}
