"""classic.md 5.3: every worked example, TC-N1..TC-N13 and TC-F1..TC-F3, played in a game.

`test_classic_nomination.py` checks the tally function alone; here each example's
nominations are cast by the players of a real game, and the test asserts what the game
publishes: the tally of each round, the runoff (its candidates, and one vote per open
place for each voter), the nominees, or the last dead's prompt in a deadlock.

The five-player setting of the source examples: a 7-player game (P1, P2 mafiosi, P3 the
detective) in which P7 is murdered in night 1, P6 is lynched on day 1 and night 2 has no
murder, so day 2 opens with P1..P5 alive and P6 as the last dead.
"""

from __future__ import annotations

import pytest
from tests.scenario import Plan, dealt, events, nominate, run

from mafia_arena.engine import PASS, Choice, Game

M, D, C = "mafioso", "detective", "citizen"
P1, P2, P3, P4, P5, P6, P7 = range(7)


def _nominating(game: Game) -> bool:
    return any(r.kind == "nominate" for r in game.pending().values())


def five_alive() -> Game:
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): P7,
        ("nominate", 1): lambda g, s, r: nominate(r, [P6, P5]),
        ("final_vote", 1): P6,
    }
    run(game, plan, until=lambda g: g.state.day == 2 and _nominating(g))
    assert game.state.living() == [P1, P2, P3, P4, P5]
    assert game.state.death_order[-1] == P6
    return game


def two_alive() -> Game:
    """P1 (a mafioso) and P7 (a citizen) alive at the day-4 nominations (SC-C14)."""
    game = dealt("classic", [M, M, D, C, C, C, C])
    plan: Plan = {
        ("night:mafia_kill", 1): P3,
        ("nominate", 1): lambda g, s, r: nominate(r, [P2, P4]),
        ("final_vote", 1): P2,
        ("night:mafia_kill", 2): P4,
        ("nominate", 2): lambda g, s, r: nominate(r, [P5, P6]),
        ("final_vote", 2): P5,
        ("night:mafia_kill", 3): P6,
    }
    run(game, plan, until=lambda g: g.state.living() == [P1, P7] and _nominating(g))
    return game


def today(game: Game, kind: str) -> list[dict]:
    """Payloads of `kind` published on the current day."""
    return [e.fact.to_payload() for e in game.events if e.kind == kind and e.day == game.state.day]


def cast(game: Game, ballots: dict[int, list[int]]) -> dict[int, int]:
    """Let every voter name `ballots[voter]` in one nomination round (the rest pass).

    Returns the number of names each voter was offered (the votes per voter).
    """
    left = {v: list(names) for v, names in ballots.items()}
    offered: dict[int, int] = {}
    rounds = len(today(game, "nomination_tally"))
    while _nominating(game) and len(today(game, "nomination_tally")) == rounds:
        ((voter, request),) = game.pending().items()
        places = request.info["places"]
        assert isinstance(places, int)
        offered.setdefault(voter, places)
        names = left[voter]
        game.submit(voter, Choice("target", names.pop(0)) if names else PASS)
    assert all(not names for names in left.values()), "a planned name was never asked"
    return offered


def _seat(choice: Choice) -> int:
    """The seat a target choice names."""
    assert choice.target is not None
    return choice.target


def tally_of(game: Game) -> dict[int, int]:
    return {int(s): c for s, c in today(game, "nomination_tally")[-1]["tally"].items()}


def runoff_of(game: Game) -> tuple[list[int], int]:
    last = today(game, "runoff")[-1]
    return last["candidates"], last["places"]


ABSTAIN: dict[int, list[int]] = {voter: [] for voter in range(5)}  # cast() copies it

# The source examples as ballots of five voters naming two players each (10 votes).
TC_N1 = {P1: [P2, P3], P2: [P1, P3], P3: [P1, P2], P4: [P1, P2], P5: [P1, P4]}
TC_N2 = {P1: [P2, P3], P2: [P1, P3], P3: [P1, P2], P4: [P1, P2], P5: [P3, P4]}
TC_N3 = {P1: [P2, P3], P2: [P1, P4], P3: [P1, P4], P4: [P1, P2], P5: [P1, P3]}

# (id, rounds of ballots, tally of each round, expected end of the nominations)
# End: ("nominees", seats) | ("runoff", candidates, places) | ("last_dead", candidates, picks)
CASES = [
    ("TC-N1", [TC_N1], [{P1: 4, P2: 3, P3: 2, P4: 1, P5: 0}], ("nominees", [P1, P2])),
    ("TC-N2", [TC_N2], [{P1: 3, P2: 3, P3: 3, P4: 1, P5: 0}], ("runoff", [P1, P2, P3], 2)),
    ("TC-N3", [TC_N3], [{P1: 4, P2: 2, P3: 2, P4: 2, P5: 0}], ("runoff", [P2, P3, P4], 1)),
    (
        "TC-N4",
        [{P1: [P2, P3], P2: [P1, P4], P3: [P1, P2], P4: [P1, P2], P5: [P1, P2]}],
        [{P1: 4, P2: 4, P3: 1, P4: 1, P5: 0}],
        ("nominees", [P1, P2]),
    ),
    (
        "TC-N5",
        [{P1: [P2, P3], P2: [P1, P4], P3: [P1, P2], P4: [P1, P3], P5: [P2, P4]}],
        [{P1: 3, P2: 3, P3: 2, P4: 2, P5: 0}],
        ("nominees", [P1, P2]),
    ),
    (
        "TC-N6",
        [TC_N2, {P1: [P2, P3], P2: [P1, P3], P3: [P1, P2], P4: [P1, P2], P5: [P1, P3]}],
        [{P1: 3, P2: 3, P3: 3, P4: 1, P5: 0}, {P1: 4, P2: 3, P3: 3}],
        ("runoff", [P2, P3], 1),
    ),
    (
        "TC-N7",
        [TC_N2, {P1: [P2, P3], P2: [P1, P3], P3: [P1, P2], P4: [P1, P2], P5: [P1, P2]}],
        [{P1: 3, P2: 3, P3: 3, P4: 1, P5: 0}, {P1: 4, P2: 4, P3: 2}],
        ("nominees", [P1, P2]),
    ),
    (
        "TC-N8",
        [TC_N3, {P1: [P2], P2: [P3], P3: [P2], P4: [P2], P5: [P4]}],
        [{P1: 4, P2: 2, P3: 2, P4: 2, P5: 0}, {P2: 3, P3: 1, P4: 1}],
        ("nominees", [P1, P2]),
    ),
    (
        "TC-N9",
        [TC_N3, {P1: [P2], P2: [P3], P3: [P2], P4: [P3], P5: [P4]}],
        [{P1: 4, P2: 2, P3: 2, P4: 2, P5: 0}, {P2: 2, P3: 2, P4: 1}],
        ("runoff", [P2, P3], 1),
    ),
    (
        "TC-N10",
        [TC_N3, {P1: [P2], P2: [P3], P3: [P4], P4: [], P5: []}],
        [{P1: 4, P2: 2, P3: 2, P4: 2, P5: 0}, {P2: 1, P3: 1, P4: 1}],
        ("last_dead", [P2, P3, P4], 1),
    ),
    (
        "TC-N11",
        [{P1: [], P2: [P1], P3: [P1], P4: [P1], P5: [P1]}],
        [{P1: 4, P2: 0, P3: 0, P4: 0, P5: 0}],
        ("runoff", [P2, P3, P4, P5], 1),
    ),
    (
        "TC-N12",
        [ABSTAIN],
        [dict.fromkeys(range(5), 0)],
        ("runoff", [P1, P2, P3, P4, P5], 2),
    ),
    (
        "TC-N12-deadlock",
        [ABSTAIN, ABSTAIN],
        [dict.fromkeys(range(5), 0), dict.fromkeys(range(5), 0)],
        ("last_dead", [P1, P2, P3, P4, P5], 2),
    ),
]

# Votes per voter in each round: the open places (classic.md 5.1 step 8, OP-C10).
PLACES = {
    "TC-N6": [2, 2],
    "TC-N7": [2, 2],
    "TC-N8": [2, 1],
    "TC-N9": [2, 1],
    "TC-N10": [2, 1],
    "TC-N12-deadlock": [2, 2],
}


@pytest.mark.parametrize(("case", "rounds", "tallies", "end"), CASES, ids=[c[0] for c in CASES])
def test_item2_worked_nomination_example_played_in_a_game(case, rounds, tallies, end):
    game = five_alive()
    for number, (ballots, expected) in enumerate(zip(rounds, tallies, strict=True)):
        offered = cast(game, ballots)
        assert tally_of(game) == expected
        places = PLACES.get(case, [2])[number]
        assert set(offered.values()) == {places}, "each voter has one vote per open place"
        assert sorted(offered) == [P1, P2, P3, P4, P5]
    what = end[0]
    if what == "nominees":
        assert not today(game, "runoff") or len(rounds) > 1
        assert today(game, "nominees")[-1]["seats"] == end[1]
        assert {r.kind for r in game.pending().values()} == {"plea"}
    elif what == "runoff":
        assert runoff_of(game) == (end[1], end[2])
        assert not today(game, "nominees")
        ((voter, request),) = game.pending().items()
        assert request.kind == "nominate" and request.info["places"] == end[2]
        assert {c.target for c in request.choices if c != PASS} == set(end[1]) - {voter}
    else:
        ((chooser, request),) = game.pending().items()
        assert chooser == P6 and request.kind == "last_dead"
        assert {c.target for c in request.choices} == set(end[1])
        picks: list[int] = []
        for _ in range(end[2]):
            last_dead = game.request(P6)
            assert last_dead is not None
            pick = sorted(_seat(c) for c in last_dead.choices)[-1]
            game.submit(P6, Choice("target", pick))
            picks.append(pick)
        assert today(game, "last_dead_decision")[-1]["chosen"] == picks
        assert today(game, "nominees")[-1]["seats"] == sorted(
            ([P1] if case == "TC-N10" else []) + picks
        )


def test_item2_tc_n13_two_living_players_are_both_nominated():
    game = two_alive()
    offered = cast(game, {P1: [P7], P7: []})
    assert tally_of(game) == {P1: 0, P7: 1}
    assert offered == {P1: 2, P7: 2}
    assert not today(game, "runoff")
    assert today(game, "nominees")[-1]["seats"] == [P1, P7]


# classic.md 5.3, the final-vote cases TC-F1..TC-F3, played through games.


def _to_final_vote(game: Game, a: int, b: int) -> None:
    day = game.state.day
    run(
        game,
        {("nominate", day): lambda g, s, r: nominate(r, [a, b])},
        until=lambda g: any(r.kind == "final_vote" for r in g.pending().values()),
    )
    assert today(game, "nominees")[-1]["seats"] == [a, b]


def test_item2_tc_f1_the_nominee_with_more_votes_is_lynched_and_his_card_shown():
    game = dealt("classic", [M, M, D, C, C, C, C, C])
    run(game, {("night:mafia_kill", 1): 7}, until=_nominating)
    _to_final_vote(game, P1, P4)
    assert len(game.pending()) == 7
    for seat in sorted(game.pending()):  # A (P1) 4, B (P4) 3
        game.submit(seat, Choice("target", P1 if seat in (P3, P4, P5, P6) else P4))
    assert events(game, "votes")[-1]["tally"] == {str(P1): 4, str(P4): 3}
    death = events(game, "death")[-1]
    assert death == {"seat": P1, "cause": "execution", "role": M}
    assert not events(game, "last_dead_decision")


def test_item2_tc_f2_a_tied_final_vote_of_six_is_decided_by_the_last_dead():
    game = dealt("classic", [M, M, D, C, C, C, C])
    run(game, {("night:mafia_kill", 1): P7}, until=_nominating)
    _to_final_vote(game, P1, P4)
    for seat in sorted(game.pending()):  # 3 : 3
        game.submit(seat, Choice("target", P1 if seat in (P4, P5, P6) else P4))
    ((chooser, request),) = game.pending().items()
    assert chooser == P7 and request.kind == "last_dead"
    game.submit(P7, Choice("target", P4))
    assert events(game, "death")[-1] == {"seat": P4, "cause": "execution", "role": C}


def test_item2_tc_f3_a_tie_of_five_with_one_timeout_is_decided_by_the_last_dead():
    game = five_alive()
    _to_final_vote(game, P1, P4)
    ballots = {P1: P4, P2: P4, P3: P1, P4: P1}  # 2 : 2; P5 times out
    for seat, target in ballots.items():
        game.submit(seat, Choice("target", target))
    game.submit_default(P5, "timeout")
    assert today(game, "votes")[-1]["votes"][str(P5)] is None
    ((chooser, request),) = game.pending().items()
    assert chooser == P6 and request.kind == "last_dead"
