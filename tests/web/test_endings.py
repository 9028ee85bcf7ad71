"""`web.endings`: the end screen's words for an end whose event says nothing, from the
finished game's state, for club's rules (clan, solo, the clan draw, the town's
elimination); an end that the engine explained keeps its own words. The pages' side is
`test_end_screen.py` and `test_forum_end.py`."""

from __future__ import annotations

import pytest
from tests.club.club_table import Table

from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.engine.game import Game
from mafia_arena.web.endings import end_reason, says_nothing


def ended(game: Game) -> GameEnded:
    """The game's recorded end."""
    return next(e.fact for e in game.events if isinstance(e.fact, GameEnded))


@pytest.mark.parametrize(
    ("labels", "why"),
    [
        (
            "D M C1 C2",
            "the mafia are at least as many as all other living players (2 against 2), "
            "with no killer of another side alive",
        ),
        ("X C1 C2", "P1 is alive with no other killer and 2 other players (at most 2)"),
        ("Cs L C1", "P1 is alive with no other killer and 2 other players (at most 2)"),
        ("L F", "the mafia and the yakuza reach their goal at once"),
        (
            "P C1 C2 C3",
            "no player of the maniac, cardsharp, psychopath, mafia or yakuza is left alive",
        ),
    ],
)
def test_a_rule_won_end_is_said_in_words_while_its_event_keeps_no_reason(
    labels: str, why: str
) -> None:
    t = Table(labels, votes=False)
    end = ended(t.game)
    assert end.reason == ""  # the log is as the engine wrote it
    assert end_reason(t.game, end) == why


def test_an_end_the_engine_explained_keeps_its_words() -> None:
    t = Table("D M K Dr Lv C1 C2 C3", votes=False, stalemate=3)
    for saved, lover in (("C3", "C1"), ("C2", "C2"), ("C3", "C1")):
        t.night({"D": saved, "Dr": saved, "Lv": lover, "K": "M"})
    t.day()
    assert end_reason(t.game, ended(t.game)) == "3 cycles without a death"


@pytest.mark.parametrize(
    ("winner", "reason", "empty"),
    [
        ("mafia", "", True),
        ("mafia", "the mafia win", True),
        ("citizens", "The citizens won.", True),
        ("mafia", "no citizen is left in the game", False),
        (None, "both parties are wiped out", False),
    ],
)
def test_a_reason_that_repeats_the_title_says_nothing(
    winner: str | None, reason: str, empty: bool
) -> None:
    assert says_nothing(GameEnded(winner, (), reason, {}, {})) is empty
