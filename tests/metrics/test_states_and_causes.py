"""Departures that are not `death` events, investigations that are not `check`s, and
beliefs scored against the sides of their time.

Palermo's players leave and come back through `state` events (ghost, imprisoned, out,
active) and its Detective and Medium answer with `investigate` results; the forum game's
night kill is a `murder`. Each test is a hand-built log whose numbers are worked out
below; the last one checks the departures of played Palermo games against the engine's
own player states.
"""

from __future__ import annotations

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.metrics.known_game import LogBuilder

from mafia_arena.agents import make_agent
from mafia_arena.engine.catalogue import StateChanged
from mafia_arena.engine.palermo.state import of
from mafia_arena.metrics import compute_metrics, extract_facts
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog, replay

#: P1 Known Mafioso A, P2 Corrupt Cop (mafia); P3 Detective, P4 Medium, P5-P6 Simple
#: Citizens, P7 Roommate (town).
PALERMO_ROLES = ["known_a", "corrupt_cop", "detective", "medium", "citizen", "citizen", "roommate"]
PALERMO_FACTIONS = ["mafia", "mafia", "town", "town", "town", "town", "town"]


def _state(b: LogBuilder, seat: int, state: str, cause: str) -> None:
    b.add("state", {"seat": seat, "state": state, "cause": cause, "text": ""})


def palermo_game() -> GameLog:
    """day 1  P7 is imprisoned, then P1 is voted out by the five other free seats;
              P7 is released.
    night     the Detective (P3) investigates P2: mafia; the Medium (P4) the ghost P1.
    day 2     P5 is assassinated. P3: "I am the Detective. I checked P2: mafia." (both
              true); P2: "I'm a simple citizen." (false). P1 votes as an echo ghost;
              P2 is voted out.
    day 3     P5 is resurrected; the town wins.
    """
    b = LogBuilder()
    b.add("setup", {"variant": "palermo", "players": 7, "composition": {}})
    for seat, (role, faction) in enumerate(zip(PALERMO_ROLES, PALERMO_FACTIONS, strict=True)):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    _state(b, 6, "imprisoned", "imprisonment")
    b.votes({0: 4, 1: 4, 2: 0, 3: 0, 4: 0, 5: 0})
    _state(b, 0, "ghost", "vote")
    _state(b, 6, "active", "cancel_imprisonment")
    b.at(2, "night")
    b.add(
        "night_result",
        {"step": "detective", "action": "investigate", "target": 1, "result": "mafia"},
        "seats",
        (2,),
    )
    b.add(
        "night_result",
        {"step": "medium", "action": "investigate", "target": 0, "result": "mafia"},
        "seats",
        (3,),
    )
    b.at(2, "day")
    _state(b, 4, "ghost", "assassination")
    b.say(2, "I am the Detective. I checked P2: mafia.")
    b.say(1, "I'm a simple citizen.")
    b.votes({0: 2, 1: 2, 2: 1, 3: 1, 5: 1, 6: 1})
    _state(b, 1, "ghost", "vote")
    b.at(3, "day")
    _state(b, 4, "active", "resurrection")
    b.add(
        "game_over",
        {
            "winner": "town",
            "winners": [2, 3, 4, 5, 6],
            "reason": "",
            "roles": {str(s): r for s, r in enumerate(PALERMO_ROLES)},
            "factions": {str(s): f for s, f in enumerate(PALERMO_FACTIONS)},
        },
    )
    return GameLog("palermo", {}, 7, 1, b.events, ["x"] * 7, {})


def test_palermo_departures_are_deaths_and_the_vote_an_execution() -> None:
    metrics = compute_metrics(palermo_game())
    game, seats = metrics["game"], metrics["per_seat"]
    assert game["executions"] == 2
    assert game["night_kills"] == 1  # the assassination of P5, who came back
    assert game["mafia_elim_share"] == 1.0
    assert game["mafia_survival"] == 0.0
    assert game["town_survival"] == 1.0  # P5 resurrected
    assert (seats["0"]["days_survived"], seats["1"]["days_survived"]) == (1, 2)
    assert seats["4"]["days_survived"] == 3


def test_palermo_ballots_count_only_seats_free_to_vote() -> None:
    """VSS: day 1 the free town seats are P3-P6 (P7 imprisoned), day 2 P3, P4, P6, P7
    (P5 a ghost): 4/4 each time. Exposures: mafia P1, P2 (4 + 0 town votes), then P2
    alone (4): 8/3; the ghost P1 is no longer exposed on day 2."""
    game = compute_metrics(palermo_game())["game"]
    assert game["vss"] == 1.0
    assert game["vss_cast"] == 1.0
    assert game["irp"] == 1.0  # the echo ghost P1 is mafia: not a town vote
    assert game["votes_per_mafia"] == pytest.approx(8 / 3)
    assert game["votes_per_town"] == 0.0


def test_palermo_investigations_are_checks() -> None:
    """The Detective's investigation of a living mafioso is a hit; the Medium's of a
    ghost is no hunt among the living and is not scored. P3's true result claim is not
    false; P2's claim of the Simple Citizen, by its readable name, is."""
    metrics = compute_metrics(palermo_game())
    game, seats = metrics["game"], metrics["per_seat"]
    assert game["investigator_hit_rate"] == 1.0
    assert seats["2"]["check_hit_rate"] == 1.0
    assert seats["3"]["check_hit_rate"] is None
    assert game["false_result_claims_town"] == 0
    assert game["false_role_claims_town"] == 0
    assert game["false_role_claims_mafia"] == 1
    assert seats["1"]["false_role_claims"] == 1


def test_the_forum_games_murder_is_a_night_kill() -> None:
    b = LogBuilder()
    b.add("setup", {"variant": "dictator", "players": 3, "composition": {}})
    for seat, role in enumerate(["mafia_boss", "citizen", "citizen"]):
        faction = "mafia" if seat == 0 else "citizens"
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    b.add("death", {"seat": 1, "cause": "murder", "role": None})
    log = GameLog("dictator", {}, 3, 1, b.events, ["x"] * 3, {})
    assert compute_metrics(log)["game"]["night_kills"] == 1


def test_beliefs_are_scored_against_the_sides_of_their_time() -> None:
    """P3 calls P2 surely town while P2 is a villager; P2 is converted to the mafia
    later. The belief was right: Brier 0, not 1."""
    b = LogBuilder()
    b.add("setup", {"variant": "standard", "players": 3, "composition": {}})
    for seat, (role, faction) in enumerate(
        [("mafioso", "mafia"), ("villager", "town"), ("villager", "town")]
    ):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    stated_at = len(b.events) - 1
    b.add("role_change", {"seat": 1, "role": "mafioso", "faction": "mafia"}, "host")
    beliefs = [{"seat": 2, "seq": stated_at, "day": 1, "probs": {"1": 0.0}}]
    log = GameLog("standard", {}, 3, 1, b.events, ["x"] * 3, {"beliefs": beliefs})
    assert compute_metrics(log)["game"]["brier"] == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_played_palermo_departures_match_the_engines_states(seed: int) -> None:
    rules = load_variant("palermo")
    result = play_match_sync(
        rules, [make_agent("heuristic") for _ in range(12)], seed, host_key=FIXED_HOST_KEY
    )
    states = of(replay(result.log)).states.states
    facts = extract_facts(result.log, rules)
    gone = {s for s in range(12) if not facts.survived(s)}
    assert gone == {s for s, state in enumerate(states) if state.value in ("ghost", "out")}
    voted_out = [
        e for e in result.log.events if isinstance(e.fact, StateChanged) and e.fact.cause == "vote"
    ]
    assert compute_metrics(result.log, rules)["game"]["executions"] == len(voted_out) >= 1


def test_a_silenced_seat_is_not_counted_as_failing_to_vote() -> None:
    """P4 is silenced for the day (the club's lover) and may not vote; P2 and P3 execute
    the mafioso P1. VSS is 2 of the 2 town seats free to vote, not 2 of 3."""
    b = LogBuilder()
    b.add("setup", {"variant": "standard", "players": 4, "composition": {}})
    for seat, (role, faction) in enumerate(
        [("mafioso", "mafia"), ("villager", "town"), ("villager", "town"), ("villager", "town")]
    ):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    b.add("silenced", {"seats": [3]})
    b.votes({0: 1, 1: 0, 2: 0})
    b.death(0, "execution")
    log = GameLog("standard", {}, 4, 1, b.events, ["x"] * 4, {})
    metrics = compute_metrics(log)
    assert metrics["game"]["vss"] == 1.0
    assert metrics["per_seat"]["3"]["vss"] is None
    # exposures: the town seats free to be voted, P2 and P3 (1 vote from P1 is mafia)
    assert metrics["game"]["votes_per_town"] == 0.0


def test_a_nominee_voting_for_himself_does_not_bus_a_partner() -> None:
    """Classic's final vote lets a nominee vote for himself: the mafioso P1, nominated,
    votes P1; his partner P2 votes the other nominee P3. No partner was voted: 0/2."""
    b = LogBuilder()
    b.add("setup", {"variant": "classic", "players": 4, "composition": {}})
    for seat, (role, faction) in enumerate(
        [
            ("mafioso", "mafia"),
            ("mafioso", "mafia"),
            ("citizen", "citizens"),
            ("citizen", "citizens"),
        ]
    ):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    b.votes({0: 0, 1: 2, 2: 0, 3: 0}, kind="final_vote")
    log = GameLog("classic", {}, 4, 1, b.events, ["x"] * 4, {})
    metrics = compute_metrics(log)
    assert metrics["game"]["bus_rate"] == 0.0
    assert metrics["per_seat"]["0"]["bus_rate"] == 0.0
