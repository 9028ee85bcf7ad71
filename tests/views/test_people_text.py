"""`views.people_text`: the lines people read (the terminal game, the command line's
``play`` and ``replay``) say a speech's kind in words, date the forum game's Night 0,
count a team's rounds of picks and say why the game ended, while a seat's transcript,
what a model reads, keeps the lines it had. `views.endings.rule_words` gives plain
words for a win rule type it has none for. The commands' side is
`tests/cli/test_people_lines.py`, the terminal's `tests/web/test_terminal_people_lines.py`."""

from __future__ import annotations

from typing import Any

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.engine.catalogue import GameEnded, GroupPicks, SpeechMade
from mafia_arena.engine.events import Event
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant
from mafia_arena.rules.spec import WinRule
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import play_match_sync
from mafia_arena.seating import seat_agents
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason, rule_words
from mafia_arena.views.people_text import kind_words, people_line
from mafia_arena.views.text import render_event
from mafia_arena.views.view import SeatTracker
from mafia_arena.web import endings as web_endings


def played(variant: str, players: int, seed: int = 3) -> Game:
    """A finished game of scripted players, the same in every run (fixed host key)."""
    rules = load_variant(variant)
    agents = seat_agents("heuristic", players, rules)
    return replay(play_match_sync(rules, agents, seed, host_key=FIXED_HOST_KEY).log)


@pytest.fixture(scope="module")
def classic() -> Game:
    return played("classic", 7)


def ended(game: Game) -> Event:
    return next(e for e in game.events if isinstance(e.fact, GameEnded))


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("night_chat", "team chat"),
        ("last_word", "last word"),
        ("last_words", "last words"),
        ("introductions", "introduction"),
        ("plea", "final plea"),
        ("final_vote", "final vote"),
        ("revote", "re-vote"),
        ("defence", "defence"),
        ("a_kind_of_its_own", "a kind of its own"),
    ],
)
def test_a_kind_id_reads_as_words(kind: str, words: str) -> None:
    assert kind_words(kind) == words


def test_a_team_chat_and_a_final_vote_are_said_in_words_where_the_transcript_keeps_ids(
    classic: Game,
) -> None:
    names = DisplayNames.of(classic.variant)
    chats = [
        e for e in classic.events if isinstance(f := e.fact, SpeechMade) and f.kind == "night_chat"
    ]
    assert chats
    for event in chats:
        line = people_line(event, None, names, classic.variant)
        assert line is not None and "(team chat): " in line
        assert "(night_chat): " in (render_event(event, None, names) or "")
    votes = [e for e in classic.events if e.kind == "votes"]
    assert votes
    lines = [people_line(e, None, names, classic.variant) or "" for e in votes]
    assert not [line for line in lines if "_" in line]


def test_a_team_s_picks_say_their_round_of_how_many(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    rounds = {s.name: s.rounds for s in classic.variant.night}
    picks = [(e, f) for e in classic.events if isinstance(f := e.fact, GroupPicks)]
    assert {rounds[f.step] for _, f in picks} >= {3}  # the mafia's three rounds
    for event, fact in picks:
        line = people_line(event, None, names, classic.variant)
        assert f"(round {fact.round} of {rounds[fact.step]}): " in (line or "")
        assert f"(round {fact.round}): " in (render_event(event, None, names) or "")


def test_the_end_says_why_the_game_ended_while_the_transcript_does_not(classic: Game) -> None:
    names = DisplayNames.of(classic.variant)
    end = ended(classic)
    assert isinstance(end.fact, GameEnded) and end.fact.reason == ""
    why = end_reason(classic, end.fact)
    assert why  # a rule won it: the words come from the finished game
    line = people_line(end, None, names, classic.variant, classic)
    plain = render_event(end, None, names)
    said = f" Why it ended: {why.rstrip('.')}. Roles: "
    assert line == (plain or "").replace(" Roles: ", said, 1)
    assert people_line(end, None, names, classic.variant) == plain  # no game, no reason
    for seat in range(classic.players):
        transcript = SeatTracker(seat).update(classic).text()
        assert "Why it ended" not in transcript and "round 1 of" not in transcript


def test_the_forum_game_s_night_0_is_dated_in_the_lines_people_read() -> None:
    game = played("dictator", 12)
    names = DisplayNames.of(game.variant)
    night_0 = [e for e in game.events if e.day == 0 and e.phase == "night" and e.kind != "phase"]
    lines = [(people_line(e, None, names), render_event(e, None, names)) for e in night_0]
    dated = [(ours, plain) for ours, plain in lines if plain]
    assert dated
    for ours, plain in dated:
        assert ours is not None and ours.startswith("[N0] ")
        assert plain is not None and not plain.startswith(
            "["
        )  # the transcript dates nothing on day 0
    setup = [e for e in game.events if e.phase == "setup"]
    assert all(people_line(e, None, names) == render_event(e, None, names) for e in setup)


def test_a_win_rule_type_without_words_gets_plain_ones_not_an_error(classic: Game) -> None:
    unlisted: Any = "last_stand"  # a type `WinRule` does not list (yet)
    rule = WinRule.model_construct(type=unlisted, factions=(), others=2)
    words = rule_words(classic, "mafia", rule)
    assert words.startswith("the mafia meet their last stand win rule (")
    assert web_endings.rule_words is rule_words  # the web's import names the same words
