"""club.md section 9, S11-S12 (what checks and comparisons answer) and S27-S29 (wins)."""

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import Choice
from mafia_arena.engine.actions import ACTIONS, appearance
from mafia_arena.engine.state import NightState
from mafia_arena.engine.win import outcome

FULL = "D M1 M2 L S Y1 Y2 F X Cs K Sg Dr Lv I W Dt Sh Sw J Kz T Cp P Dp C"


@pytest.fixture(scope="module")
def full() -> Table:
    return Table(FULL, votes=False)


@pytest.mark.parametrize(
    ("label", "answer"),
    [
        ("D", "innocent"),
        ("M1", "mafia"),
        ("L", "mafia"),
        ("S", "innocent"),
        ("Y1", "mafia"),
        ("F", "mafia"),
        ("X", "innocent"),
        ("Cs", "innocent"),
        ("P", "innocent"),
        ("W", "innocent"),
        ("Dp", "innocent"),
        ("C", "innocent"),
    ],
)
def test_s11_the_mafia_check_table(full, label, answer):
    assert appearance(full.game, NightState(2), full[label]) == answer


def test_s11_framing_overrides_the_dons_exemption_and_an_arrest_gives_no_result(full):
    assert appearance(full.game, NightState(2, framed={full["D"]}), full["D"]) == "mafia"
    assert appearance(full.game, NightState(2, arrested={full["M1"]}), full["M1"]) == "no result"


def test_s11_the_detectives_check_mode_also_sees_the_don_as_innocent():
    t = Table("Dt D M K Dr C1 C2 C3", votes=False)
    t.night({"Dt": "check:D", "K": "D", "D": "C1", "Dr": "C1"})
    assert t.result("Dt", 2) == "innocent" and t.result("K", 2) == "innocent"


def _compare(t: Table, a: str, b: str, night: NightState) -> str:
    step = next(s for s in t.game.variant.night if s.action == "compare")
    ACTIONS["compare"].apply(
        t.game, night, step, (t["J"],), [Choice("target", t[a]), Choice("target", t[b])]
    )
    return t.game.events[-1].fact.to_payload()["result"]


@pytest.mark.parametrize(
    ("a", "b", "answer"),
    [
        ("M1", "L", "same"),
        ("D", "M1", "same"),
        ("M1", "Y1", "different"),
        ("S", "F", "same"),
        ("X", "Cs", "different"),
        ("X", "C", "different"),
        ("K", "C", "same"),
        ("P", "C", "same"),
        ("W", "Dr", "same"),
    ],
)
def test_s12_journalist_comparisons(full, a, b, answer):
    assert _compare(full, a, b, NightState(2)) == answer


def test_s12_a_pair_with_an_arrested_player_gives_no_result(full):
    assert _compare(full, "K", "C", NightState(2, arrested={full["C"]})) == "no result"


def test_s12_framing_does_not_change_a_comparison(full):
    assert _compare(full, "K", "C", NightState(2, framed={full["C"]})) == "same"


def result_of(
    labels: str, active_psychopath: bool = False
) -> tuple[str, tuple[int, ...] | None] | None:
    """The win check for a table where exactly `labels` are alive."""
    t = Table(labels, votes=False)
    if active_psychopath:
        seat = t.game.state.seats[t["P"]]
        seat.role, seat.faction = "active_psychopath", "psychopath"
    return outcome(t.game)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ("D M S C1", None),
        ("D M C1 C2", "mafia"),
        ("D M C1", "mafia"),
        ("D M Sh C1", None),
        ("L C1", "mafia"),
        ("L F", "draw"),
        ("S Y F C1 C2", "yakuza"),
    ],
)
def test_s27_clan_wins_need_parity_and_no_killer_of_another_side(labels, expected):
    result = result_of(labels)
    assert (result and result[0]) == expected


@pytest.mark.parametrize(
    ("labels", "expected", "active"),
    [
        ("X C1 C2", "maniac", False),
        ("X C1 C2 C3", None, False),
        ("X Sh C1", None, False),
        ("Cs L C1", "cardsharp", False),
        ("X Cs C1", None, False),
        ("P C1 C2", "psychopath", True),
    ],
)
def test_s28_a_solo_wins_alone_against_at_most_two_non_killers(labels, expected, active):
    result = result_of(labels, active)
    assert (result and result[0]) == expected
    if expected:
        assert result is not None
        assert result[1] == (0,)  # the solo player's win is his alone


def test_s27_the_first_checkpoint_ends_a_won_game_at_once():
    t = Table("D M C1 C2", votes=False)
    assert t.game.over and t.game.state.winner == "mafia"
    assert t.game.state.winners == (t["D"], t["M"])


def test_s29a_the_lawyer_alone_keeps_the_town_from_winning_until_executed():
    t = Table("L C1 C2 C3")
    assert not t.game.over
    t.day(execute="L")
    assert t.game.state.winner == "town"
    assert t.game.state.winners == (t["C1"], t["C2"], t["C3"])


def test_s29b_a_latent_psychopath_counts_as_town():
    t = Table("P C1 C2 C3", votes=False)
    assert t.game.over and t.game.state.winner == "town"


def test_s29c_the_werewolf_converts_before_the_win_check():
    t = Table("D W C1 C2 C3 C4 C5 C6")
    t.day(execute="D")
    assert t.role("W") == "mafia" and not t.game.over


def test_stalemate_three_quiet_cycles_from_night_two_are_a_draw():
    t = Table("D M K Dr Lv C1 C2 C3", votes=False, stalemate=3)
    for saved, lover in (("C3", "C1"), ("C2", "C2"), ("C3", "C1")):
        assert not t.game.over
        t.night({"D": saved, "Dr": saved, "Lv": lover, "K": "M"})
    t.day()
    assert t.game.over and t.game.state.winner is None
    assert t.events("game_over")[0]["reason"] == "3 cycles without a death"
    assert t.game.state.day == 4
