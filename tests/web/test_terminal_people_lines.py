"""The terminal game shows the lines people read (`views.people_text`): a team's later
round of night picks says which round of how many it is and why it is asked, the end
says why the game ended, a team's chat is called so; the log keeps the engine's prompt,
the same every round."""

from __future__ import annotations

import io
import itertools

import pytest
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.runner.log import GameLog
from mafia_arena.web.terminal import play_in_terminal


@pytest.fixture(scope="module")
def mafioso() -> tuple[list[str], GameLog]:
    """What seat 1, a mafioso at this seed, is shown when it answers "0" to everything
    (on night 1 not its partner's pick), and the game's log."""
    out = io.StringIO()
    result = play_in_terminal(
        "classic", 7, 0, "heuristic", 3, read=lambda _: "0", out=out, host_key=FIXED_HOST_KEY
    )
    shown = out.getvalue().splitlines()
    assert any("your role is mafioso" in line for line in shown)
    return shown, result.log


def test_a_team_s_later_round_of_picks_says_which_round_and_why(
    mafioso: tuple[list[str], GameLog],
) -> None:
    shown, log = mafioso
    asked = [line for line in shown if line.startswith("NOW (P1): Night 1: choose tonight")]
    assert len(asked) >= 2
    assert "(round" not in asked[0]
    assert asked[1].endswith("(round 2 of 3: the team did not agree)"), asked
    assert any("Team picks for the mafia's kill (round 1 of 3): " in line for line in shown)
    assert "the team did not agree" not in log.to_jsonl()  # the request's prompt as asked


def test_the_end_says_why_the_game_ended(mafioso: tuple[list[str], GameLog]) -> None:
    shown, log = mafioso
    end = next(line for line in shown if line.startswith("Game over: "))
    assert " Why it ended: no player of the mafia is left alive. Roles: " in end, end
    assert any(" (team chat): " in line for line in shown)
    assert "Why it ended" not in log.to_jsonl()


def test_a_private_line_says_whose_it_is_in_the_page_s_words(
    mafioso: tuple[list[str], GameLog],
) -> None:
    """The terminal tags a private line as the web page does (`channel_words`, sent
    as each line's ``tag``): the team's night talk is the mafia's kill's, the seat's
    own card is private; a public line has no tag."""
    shown, _ = mafioso
    assert "[private] You are P1; your role is mafioso (mafia)." in shown
    assert any(line.startswith("[the mafia's kill] [N1] P2 (team chat): ") for line in shown)
    assert any(line.startswith("[D1] Votes (final vote): ") for line in shown)


def test_a_palermo_turn_is_dated_as_its_lines_are() -> None:
    """The engine asks "Night, before midnight of round 2"; round 2's night is Night 1
    (its lines are dated [N1], the web page's header says "early night 1"), so the
    person reads "Early night 1 (before midnight)"."""
    out = io.StringIO()
    answers = itertools.repeat("0")  # done for this phase
    play_in_terminal(  # the bots' draws fixed too: a fresh key ended P6's game early
        "palermo",
        12,
        5,
        "random",
        2,
        {"moves": 1},
        read=lambda _: next(answers),
        out=out,
        host_key=FIXED_HOST_KEY,
    )
    asked = [line for line in out.getvalue().splitlines() if line.startswith("NOW (P6): ")]
    assert "NOW (P6): Morning 1: one move, or done." in asked
    assert "NOW (P6): Early night 1 (before midnight): one move, or done." in asked
    assert "NOW (P6): Morning 2: one move, or done." in asked
    assert not [line for line in asked if " of round " in line]
