"""club.md sections 2 and 6.3: the deck for every player count, starting knowledge, the
accusation rule as a pure function, and random games of every preset end and replay."""

import pytest
from tests.club.club_table import Table, club_document
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents import RandomAgent
from mafia_arena.engine.catalogue import Narration
from mafia_arena.engine.voting.accuse_defend import accused_of
from mafia_arena.rules import VariantError, load_variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.loader import build_variant
from mafia_arena.runner import GameLog, play_match_sync, replay

CLUB = load_variant("club")
ROLES = [
    "civilian",
    "mafia",
    "don",
    "commissar",
    "maniac",
    "doctor",
    "lover",
    "immortal",
    "werewolf",
    "sergeant",
    "detective",
    "sheriff",
    "sleepwalker",
    "journalist",
    "cardsharp",
    "kamikaze",
    "thief",
    "captain",
    "lawyer",
    "yakuza",
    "sensei",
    "framer",
    "psychopath",
    "deputy",
]
TOWN8 = {"commissar": 1, "doctor": 1, "lover": 1}
PRESETS = {
    8: {"don": 1, "mafia": 1, **TOWN8, "civilian": 3},
    10: {"don": 1, "mafia": 2, "maniac": 1, **TOWN8, "civilian": 3},
    12: {
        "don": 1,
        "mafia": 2,
        "maniac": 1,
        **TOWN8,
        "sergeant": 1,
        "sheriff": 1,
        "immortal": 1,
        "civilian": 2,
    },
    16: {
        "don": 1,
        "mafia": 1,
        "lawyer": 1,
        "sensei": 1,
        "yakuza": 1,
        "framer": 1,
        "maniac": 1,
        **TOWN8,
        "sergeant": 1,
        "sheriff": 1,
        "journalist": 1,
        "immortal": 1,
        "werewolf": 1,
        "civilian": 1,
    },
    20: {
        "don": 1,
        "mafia": 1,
        "lawyer": 1,
        "sensei": 1,
        "yakuza": 1,
        "framer": 1,
        "maniac": 1,
        "cardsharp": 1,
        **TOWN8,
        "sergeant": 1,
        "sheriff": 1,
        "detective": 1,
        "sleepwalker": 1,
        "journalist": 1,
        "immortal": 1,
        "werewolf": 1,
        "kamikaze": 1,
        "civilian": 1,
    },
    26: {role: 1 for role in ROLES} | {"mafia": 2, "yakuza": 2},
}


def test_every_role_of_the_spec_is_in_the_variant():
    assert set(ROLES) <= set(CLUB.roles)
    assert set(CLUB.roles) - set(ROLES) == {"active_psychopath"}


@pytest.mark.parametrize("n", sorted(PRESETS))
def test_d1_presets_of_section_2_2(n):
    assert deck_counts(CLUB, n) == PRESETS[n]
    assert sum(deck_counts(CLUB, n).values()) == n


@pytest.mark.parametrize("n", sorted(PRESETS))
def test_d1_the_formula_reproduces_each_preset(n):
    document = club_document()
    del document["composition"]["table"]
    assert deck_counts(build_variant(document, "club (formula only)", {}), n) == deck_counts(
        CLUB, n
    )


@pytest.mark.parametrize(("n", "base"), [(9, 8), (11, 10), (15, 12), (19, 16), (25, 20)])
def test_d1_other_counts_use_the_largest_smaller_preset_and_civilians(n, base):
    expected = dict(PRESETS[base])
    expected["civilian"] += n - base
    assert deck_counts(CLUB, n) == expected


@pytest.mark.parametrize(("n", "extra"), [(27, 0), (33, 0), (34, 1), (42, 2)])
def test_d1_above_26_one_more_mafia_and_yakuza_per_further_8_players(n, extra):
    counts = deck_counts(CLUB, n)
    assert counts["mafia"] == counts["yakuza"] == 2 + extra
    assert counts["civilian"] == n - 25 - 2 * extra  # 25 non-civilian cards in the full preset


@pytest.mark.parametrize(("n", "extra"), [(60, 4), (61, 4), (66, 5), (100, 9)])
def test_d1_has_no_upper_player_limit(n, extra):
    """D1 sets only a minimum and extends the full preset to every larger count (one
    more mafia and yakuza per further 8 players); neither the spec nor the source
    names a maximum."""
    assert CLUB.max_players is None
    counts = deck_counts(CLUB, n)
    assert counts["mafia"] == counts["yakuza"] == 2 + extra
    assert counts["civilian"] == n - 25 - 2 * extra


def test_d1_the_minimum_is_8_players():
    with pytest.raises(VariantError, match="7 players is too few: at least 8"):
        deck_counts(CLUB, 7)


def test_d1_unique_cards_are_dealt_at_most_once():
    repeatable = {"civilian", "mafia", "yakuza"}
    assert {r for r, spec in CLUB.roles.items() if not spec.unique} - {
        "active_psychopath"
    } == repeatable


def test_starting_knowledge_of_section_2_3():
    t = Table("D M1 M2 L S Y1 Y2 F X Cs K Sg Dr Lv I W Dt Sh Sw J Kz T Cp P Dp C")
    knows = {
        label: {t.label(int(s)) for p in t.seen_by(label, "allies") for s in p["allies"]}
        for label in t.labels
    }
    mafia, yakuza = {"D", "M1", "M2", "L"}, {"S", "Y1", "Y2", "F"}
    for label in mafia:
        assert knows[label] == mafia - {label}
    for label in yakuza:
        assert knows[label] == yakuza - {label}
    assert knows["K"] == {"Sg"} and knows["Sg"] == {"K"}
    for label in set(t.labels) - mafia - yakuza - {"K", "Sg"}:
        assert knows[label] == set()
    don = t.seen_by("M1", "allies")[0]["allies"][str(t["D"])]
    assert don == "don"


def test_d24_accused_are_the_top_group_widened_by_the_second_when_alone():
    assert accused_of({1: 3, 2: 2, 3: 2, 4: 1}) == [1, 2, 3]
    assert accused_of({1: 4, 2: 4}) == [1, 2]
    assert accused_of({1: 4, 2: 4, 3: 1}) == [1, 2]
    assert accused_of({5: 7}) == [5]
    assert accused_of({}) == []


@pytest.mark.parametrize("n", [8, 9, 10, 12, 16, 20, 26, 30])
def test_random_games_of_every_preset_end_and_replay(n):
    for seed in range(4):
        result = play_match_sync(
            CLUB, [RandomAgent() for _ in range(n)], seed, host_key=FIXED_HOST_KEY
        )
        assert result.log.result is not None
        again = replay(result.log)
        assert GameLog.from_game(again).events == result.log.events


@pytest.mark.parametrize("name", ["simple", "standard", "classic"])
def test_club_machinery_is_inert_in_variants_without_its_traits(name):
    variant = load_variant(name)
    for seed in range(5):
        result = play_match_sync(
            variant, [RandomAgent() for _ in range(9)], seed, host_key=FIXED_HOST_KEY
        )
        kinds = {event.kind for event in result.log.events}
        assert not kinds & {"narration", "trigger", "role_change", "ballot", "protected"}


@pytest.mark.parametrize("n", [8, 16, 26])
def test_3_1_night_1_calls_every_dealt_role_but_the_civilians_once_and_nobody_acts(n):
    from mafia_arena.engine import Game

    game = Game(CLUB, n, seed=3)
    calls = [
        e.fact.text
        for e in game.events
        if isinstance(e.fact, Narration) and e.fact.step == "introductions"
    ]
    named = [
        part.removeprefix("the ").removesuffix(" and")
        for text in calls
        for part in text.removeprefix("Night 1: ").split(" wake")[0].split(", ")
        for part in part.split(" and the ")
    ]
    assert sorted(named) == sorted(set(PRESETS[n]) - {"civilian"})  # civilians never wake (D37)
    assert all(e.visibility.scope == "public" for e in game.events if e.kind == "narration")
    # Night 1 has no actions: the first decisions asked for are the day-1 speeches.
    assert (game.state.phase, game.state.day) == ("day", 1)
    assert {r.kind for r in game.pending().values()} == {"speak"}
    assert not [e for e in game.events if e.kind == "night_action"]


def test_3_1_clans_wake_with_the_lawyer_and_the_framer():
    from mafia_arena.engine import Game

    calls = [
        e.fact.to_payload()["text"] for e in Game(CLUB, 16, seed=0).events if e.kind == "narration"
    ]
    assert "Night 1: the lawyer, the don and the mafia wake up to meet the host." in calls
    assert "Night 1: the framer, the sensei and the yakuza wake up to meet the host." in calls
    assert "Night 1: the commissar and the sergeant wake up to meet the host." in calls
