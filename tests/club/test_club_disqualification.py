"""club.md 3.6 and D34: the host removes a player between two decisions.

Each test names the rule it checks. Positions come from forced deals (`Table`); the
replay and robustness tests use seeded deals, because a log replays from its seed.
"""

from __future__ import annotations

import random

import pytest
from tests.club.club_table import Table

from mafia_arena.engine import (
    PASS,
    Choice,
    Game,
    GameOver,
    IllegalDecision,
    IllegalDisqualification,
)
from mafia_arena.rules import load_variant
from mafia_arena.runner import GameLog, replay

EIGHT = "D M K Dr Lv C1 C2 C3"


def asked(t: Table, label: str) -> list[tuple[int, str, str]]:
    """(day, phase, kind) of every decision `label`'s seat was asked and answered."""
    return [
        (e.day, e.phase, e.fact.to_payload()["kind"])
        for e in t.game.events
        if e.kind == "decision"
        and e.fact.to_payload()["seat"] == t[label]
        and not e.fact.to_payload().get("host")
    ]


def snapshot(game: Game) -> tuple:
    return (
        len(game.events),
        len(game.decisions),
        game.pending(),
        game.over,
        [s.alive for s in game.state.seats],
        set(game.state.disqualified),
    )


def test_d34_removal_is_announced_reveals_the_card_at_once_and_gives_no_last_word():
    t = Table(EIGHT)
    t.game.disqualify(t["K"], "showed his card")
    kinds = [e.kind for e in t.game.events]
    at = kinds.index("disqualified")
    assert kinds[at + 1] == "death"
    assert t.events("disqualified") == [
        {
            "seat": t["K"],
            "reason": "showed his card",
            "text": "P3 is disqualified: showed his card.",
        }
    ]
    assert t.events("death") == [{"seat": t["K"], "cause": "disqualification", "role": "commissar"}]
    assert t.game.events[at + 1].visibility.scope == "public"
    t.day(execute="M")  # the vote, then the last words of the day
    t.night({"D": "C1", "Dr": "Dr", "Lv": "Lv"})
    t.day(execute="Lv")
    assert asked(t, "K") == []
    assert t.events("reveal") == [{"seat": t["C1"], "role": "civilian"}]  # not shown twice
    assert not t.alive("K")


def test_d34_a_disqualified_players_pending_request_disappears_and_the_game_moves_on():
    t = Table(EIGHT)
    t.until("Dr", "speak")
    t.game.disqualify(t["Dr"])
    assert list(t.game.pending()) == [t["Lv"]]
    assert t.game.pending()[t["Lv"]].kind == "speak"
    t.day(execute="M")
    assert asked(t, "Dr") == []  # neither his introduction nor anything after it
    assert t["Dr"] not in {p["seat"] for p in t.events("speech")}
    assert len([p for p in t.events("speech", 1) if p["kind"] == "introductions"]) == 7


def test_d34_a_disqualified_voter_is_skipped_and_votes_for_or_by_him_are_void():
    t = Table(EIGHT)
    t.until("Lv", "nominate")  # D named M; M, K and Dr named D
    assert [p["target"] for p in t.events("nomination")] == [t["M"], t["D"], t["D"], t["D"]]
    t.game.disqualify(t["D"])
    t.day(execute="M")
    assert asked(t, "D").count((1, "day", "nominate")) == 1  # never asked again
    assert t.events("nomination_tally") == [{"round": 1, "places": 1, "tally": {str(t["M"]): 4}}]
    assert {p["seat"] for p in t.events("ballot")} == set()  # a lone accused (D25)
    assert t.events("death")[-1] == {"seat": t["M"], "cause": "execution", "role": "mafia"}


def test_d34_an_answer_already_given_to_a_simultaneous_vote_does_not_count():
    variant = load_variant("simple", {"first_phase": "day", "rules.disqualification": True})
    deal = ["mafioso", "mafioso", "villager", "villager", "villager", "villager", "villager"]
    game = Game(variant, 7, 0, deal=deal)
    assert set(game.pending()) == set(range(7))
    game.submit(4, Choice("target", 0))
    game.submit(3, Choice("target", 4))
    game.disqualify(4)
    assert 4 not in game.pending()
    assert Choice("target", 4) not in game.pending()[3].choices  # asked again, without 4
    for seat in sorted(game.pending()):
        game.submit(seat, Choice("target", 1 if seat == 0 else 0))
    votes = next(e.fact.to_payload() for e in game.events if e.kind == "votes")
    assert "4" not in votes["votes"] and votes["votes"]["3"] == 0
    assert votes["tally"] == {"0": 5, "1": 1}


def test_d34_succession_applies_the_sergeant_takes_over_a_disqualified_commissar():
    t = Table("D M K Sg Dr Lv C1 C2", votes=False)
    t.game.disqualify(t["K"])
    assert t.role("Sg") == "commissar"
    assert t.seen_by("Sg", "role_change") == [
        {"seat": t["Sg"], "role": "commissar", "faction": "town"}
    ]
    request = t.night({"D": "C1", "Dr": "Dr", "Lv": "Lv"}).until(
        "Sg", "night:commissar_check", {"D": "C2", "Dr": "Lv", "Lv": "Dr"}
    )
    assert request.info["step"] == "commissar_check"


def test_d34_a_sergeant_promoted_by_a_night_removal_checks_from_the_next_night():
    t = Table("D M K Sg Dr Lv C1 C2", votes=False)
    t.day()
    t.until("Dr", "night:doctor_heal", {"Lv": "Lv"})
    t.game.disqualify(t["K"])
    t.night({"D": "C1", "Dr": "Dr"})
    assert (2, "night", "night:commissar_check") not in asked(t, "Sg")
    t.until("Sg", "night:commissar_check", {"D": "C2", "Dr": "Lv", "Lv": "Dr"})


def test_d34_no_retaliation_a_disqualified_kamikaze_takes_nobody_with_him():
    t = Table("D M K Dr Lv Kz C1 C2", votes=False)
    t.day()
    t.until("K", "night:commissar_check", {"D": "Kz", "Dr": "Dr", "Lv": "Lv"})
    t.game.disqualify(t["Kz"])  # after the mafia's attack on him tonight
    t.night({"K": "M"})
    assert t.events("death") == [{"seat": t["Kz"], "cause": "disqualification", "role": "kamikaze"}]
    assert t.alive("D") and t.alive("M")
    assert [p for p in t.events("trigger") if p["trait"] == "retaliates"] == []
    assert t.events("no_death", 2) == [{"text": "Nobody died tonight."}]


def test_d34_no_deputy_inheritance_from_a_disqualified_player_by_day_or_by_night():
    t = Table("D M K Dr Lv Dp C1 C2", votes=False)
    t.game.disqualify(t["Dr"])  # by day
    t.day()
    t.until("D", "night:mafia_kill", {"Lv": "Lv"})
    t.game.disqualify(t["Lv"])  # by night
    t.night({"D": "C1", "K": "M"})
    assert t.dead(2) == {"Lv", "C1"}
    assert t.role("Dp") == "deputy"
    t.night({"D": "K", "K": "M"})  # a night death of a role: the one inheritance is unused
    assert t.role("Dp") == "commissar"


def test_d34_werewolf_conversion_applies_when_the_last_clan_killer_is_disqualified():
    t = Table("D K Dr Lv W C1 C2 C3", votes=False)
    t.game.disqualify(t["D"])
    assert t.role("W") == "mafia"
    assert not t.game.over  # the converted werewolf keeps the mafia in the game


def test_d34_a_win_check_follows_the_town_wins_when_the_last_mafioso_is_removed():
    t = Table("D K Dr Lv C1 C2 C3 C4")
    t.until("Dr", "speak")
    t.game.disqualify(t["D"])
    assert t.game.over and t.game.pending() == {}
    assert t.game.state.winner == "town"
    assert t.game.events[-1].kind == "game_over"
    assert [e.kind for e in t.game.events[-3:]] == ["disqualified", "death", "game_over"]
    with pytest.raises(GameOver):
        t.game.submit(t["Dr"], PASS)


def test_d34_a_win_check_follows_the_mafia_wins_at_parity_after_a_removal():
    t = Table("D M K C1 C2")
    t.game.disqualify(t["C1"])
    assert t.game.over
    assert t.game.state.winner == "mafia"
    assert set(t.game.state.winners) == {t["D"], t["M"]}


def test_d34_a_game_with_disqualifications_replays_to_the_same_log():
    game = Game(load_variant("club"), 12, 7)  # a seeded deal: the log replays from it
    rng = random.Random(3)

    def play_until(stop) -> None:
        while not game.over and not stop():
            seat, request = min(game.pending().items())
            game.submit(seat, rng.choice(request.choices))

    play_until(lambda: any(r.kind == "nominate" for r in game.pending().values()))
    game.disqualify(min(game.pending()), "showed his card")  # while asked to nominate
    play_until(lambda: any(r.kind.startswith("night:") for r in game.pending().values()))
    assert not game.over
    game.disqualify(max(game.pending()))  # while asked a night action
    play_until(lambda: False)
    log = GameLog.from_game(game)
    assert len([d for d in log.decisions if d.get("host")]) == 2
    assert GameLog.from_game(replay(log)).to_jsonl() == log.to_jsonl()


@pytest.mark.parametrize("variant", ["club", "classic", "simple", "standard"])
def test_d34_random_removals_never_reach_the_removed_and_always_replay(variant):
    """Removals at random moments: the removed are never asked or offered again, every
    game ends, and each log replays byte for byte (every procedure copes)."""
    switch = {} if variant == "club" else {"rules.disqualification": True}
    rules = load_variant(variant, switch)
    for seed in range(12):
        game = Game(rules, 10, seed)
        rng = random.Random(seed)
        while not game.over:
            removed = game.state.disqualified
            for seat, request in sorted(game.pending().items()):
                assert seat not in removed
                assert not any(c.target in removed for c in request.choices)
            if rng.random() < 0.01 and len(game.state.living()) > 2:
                game.disqualify(rng.choice(game.state.living()))
                continue
            seat, request = min(game.pending().items())
            game.submit(seat, rng.choice(request.choices) if request.choices else PASS)
        log = GameLog.from_game(game, switch)
        assert GameLog.from_game(replay(log), switch).to_jsonl() == log.to_jsonl()


def test_d34_illegal_removals_raise_with_a_reason_and_change_nothing():
    t = Table(EIGHT)
    t.game.disqualify(t["C1"])
    before = snapshot(t.game)
    with pytest.raises(IllegalDisqualification, match="already out of the game"):
        t.game.disqualify(t["C1"])
    with pytest.raises(IllegalDisqualification, match="there is no seat 8"):
        t.game.disqualify(8)
    assert snapshot(t.game) == before
    classic = Game(load_variant("classic"), 7, 1)
    before = snapshot(classic)
    with pytest.raises(IllegalDisqualification, match="no disqualification") as error:
        classic.disqualify(0)
    assert isinstance(error.value, IllegalDecision)
    assert snapshot(classic) == before
    over = Table("D K Dr Lv C1 C2 C3 C4")
    over.game.disqualify(over["D"])
    before = snapshot(over.game)
    with pytest.raises(GameOver):
        over.game.disqualify(over["K"])
    assert snapshot(over.game) == before
