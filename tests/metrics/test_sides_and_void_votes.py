"""Metrics that must read each act with the facts of its moment: a false claim counts
for the side its speaker held when he made it, and a vote on a player who had already
left the game picked nobody. Each game is a hand-built log worked out in its docstring.
"""

from __future__ import annotations

from tests.host_key import FIXED_HOST_KEY
from tests.metrics.known_game import LogBuilder

from mafia_arena.agents import make_agent
from mafia_arena.engine.catalogue import Death, StateChanged, Votes
from mafia_arena.metrics import compute_metrics, extract_facts
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import GameLog


def _state(b: LogBuilder, seat: int, state: str, cause: str) -> None:
    b.add("state", {"seat": seat, "state": state, "cause": cause, "text": ""})


def converted_liar() -> GameLog:
    """standard, 4 players: P1 mafioso; P2 villager; P3 doctor; P4 villager.

    day 1  P2 (a villager) claims the doctor: a false claim of the town side.
           P2 is converted to the mafia (a `role_change`).
    day 2  P2 (now a mafioso) claims the detective and states a check he never made:
           false claims of the mafia side. The game ends on day 3.

    By side at the claim: town 1 role claim (stood 3 − 1 = 2 days), mafia 1 role claim
    (3 − 2 = 1 day) and 1 result claim. Read by P2's final side, all three would be
    the mafia's and the town would have none.
    """
    b = LogBuilder()
    b.add("setup", {"variant": "standard", "players": 4, "composition": {}})
    deal = [("mafioso", "mafia"), ("villager", "town"), ("doctor", "town"), ("villager", "town")]
    for seat, (role, faction) in enumerate(deal):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    b.say(1, "I am the doctor.")
    b.add("role_change", {"seat": 1, "role": "mafioso", "faction": "mafia"}, "seats", (1,))
    b.at(2, "day")
    b.say(1, "I am the detective.")
    b.say(1, "My check: P4 is mafia.")
    b.at(3, "day")
    b.add(
        "game_over",
        {
            "winner": "mafia",
            "winners": [0, 1],
            "reason": "",
            "roles": {"0": "mafioso", "1": "mafioso", "2": "doctor", "3": "villager"},
            "factions": {"0": "mafia", "1": "mafia", "2": "town", "3": "town"},
        },
    )
    return GameLog("standard", {}, 4, 1, b.events, ["x"] * 4, {})


def test_false_claims_count_for_the_side_of_their_moment() -> None:
    metrics = compute_metrics(converted_liar())
    game, seat = metrics["game"], metrics["per_seat"]["1"]
    assert game["false_role_claims_town"] == 1
    assert game["false_claim_days_town"] == 2.0
    assert game["false_role_claims_mafia"] == 1
    assert game["false_claim_days_mafia"] == 1.0
    assert game["false_result_claims_town"] == 0
    assert game["false_result_claims_mafia"] == 1
    # per seat: both of P2's role claims, whatever his side
    assert seat["false_role_claims"] == 2
    assert seat["false_claim_days"] == 1.5
    assert seat["false_claim_days_sq"] == (2**2 + 1**2) / 2  # the spread: 2 days and 1
    assert seat["false_result_claims"] == 1


PALERMO_ROLES = ["known_a", "corrupt_cop", "detective", "citizen", "citizen"]
PALERMO_FACTIONS = ["mafia", "mafia", "town", "town", "town"]


def vote_on_a_departed_player() -> GameLog:
    """palermo, 5 players: P1 Known Mafioso A, P2 Corrupt Cop (mafia); P3-P5 town.

    day 1  P1 leaves the game during the day (removed, `out`); the published ballot
           still holds the votes cast on him before (P2 and P3), which Palermo's count
           ignores; P4 votes P2, P5 votes P4. Nobody is executed.

    The votes on P1 picked nobody: town votes are P4 -> P2 (mafia) and P5 -> P4 (town):
    irp 1/2, not 2/3 (P3's void vote on the gone mafioso is no hit); P3 has no vote:
    irp None. P2 (mafia) cast no live vote: bus_rate None, not 1 (a "vote on his
    partner" who was gone). Exposures: P2 (mafia) 1 town vote, P3, P4, P5 (town) 1:
    votes per mafia 1/1, per town 1/3.
    """
    b = LogBuilder()
    b.add("setup", {"variant": "palermo", "players": 5, "composition": {}})
    for seat, (role, faction) in enumerate(zip(PALERMO_ROLES, PALERMO_FACTIONS, strict=True)):
        b.add("role", {"seat": seat, "role": role, "faction": faction}, "seats", (seat,))
    b.at(1, "day")
    _state(b, 0, "out", "absences")
    b.votes({1: 0, 2: 0, 3: 1, 4: 3})
    b.at(2, "day")
    b.add(
        "game_over",
        {
            "winner": None,
            "winners": [],
            "reason": "",
            "roles": {str(s): r for s, r in enumerate(PALERMO_ROLES)},
            "factions": {str(s): f for s, f in enumerate(PALERMO_FACTIONS)},
        },
    )
    return GameLog("palermo", {}, 5, 1, b.events, ["x"] * 5, {})


def test_a_vote_on_a_player_already_gone_is_void() -> None:
    metrics = compute_metrics(vote_on_a_departed_player())
    game, seats = metrics["game"], metrics["per_seat"]
    assert game["irp"] == 1 / 2
    assert seats["2"]["irp"] is None
    assert seats["3"]["irp"] == 1.0
    assert game["bus_rate"] is None
    assert seats["1"]["bus_rate"] is None
    assert game["votes_per_mafia"] == 1.0
    assert game["votes_per_town"] == 1 / 3


def _departed_before_each_ballot(log: GameLog) -> list[tuple[dict[int, int | None], set[int]]]:
    """Each published ballot's votes with the seats out of the game at that moment, read
    from the raw events (deaths; Palermo moves to ghost or out, back to active)."""
    gone: set[int] = set()
    out: list[tuple[dict[int, int | None], set[int]]] = []
    for event in log.events:
        fact = event.fact
        if isinstance(fact, Death):
            gone.add(fact.seat)
        elif isinstance(fact, StateChanged):
            if fact.state in ("ghost", "out"):
                gone.add(fact.seat)
            elif fact.state == "active":
                gone.discard(fact.seat)
        elif isinstance(fact, Votes):
            out.append((dict(fact.votes), set(gone)))
    return out


def test_played_palermo_ballots_on_assassinated_players_are_void() -> None:
    """Played Palermo games: a player assassinated during the day keeps the ballots cast
    on him in the published `votes` (the engine's count skips them). The metrics' ballots
    must hold none of them; across these seeds at least one such ballot occurs, so the
    check is not empty."""
    rules = load_variant("palermo")
    raw_void = 0
    for seed in range(6):
        result = play_match_sync(
            rules, [make_agent("heuristic") for _ in range(12)], seed, host_key=FIXED_HOST_KEY
        )
        published = _departed_before_each_ballot(result.log)
        ballots = extract_facts(result.log, rules).ballots
        assert len(ballots) == len(published)
        for ballot, (votes, gone) in zip(ballots, published, strict=True):
            raw_void += sum(t is not None and t in gone for t in votes.values())
            assert not {t for t in ballot.votes.values() if t is not None} & gone
            assert ballot.votes.keys() == votes.keys()  # the voters stay: void, not dropped
    assert raw_void >= 1


def test_a_role_dealt_without_its_party_counts_for_its_roles_faction() -> None:
    """dictator OP-D14: the question mark is dealt his role without a party (no faction
    in his `role` event). Until he copies a status at the end of Night 0, the metrics
    count him for his role's faction in the variant, the citizens: the town side; from
    the copy on, for the copied party ("a question mark counts for the party it
    copied"), on Day 1 too, although he is told it only on Day 2."""
    from tests.dictator.table import Q, R, Table, c

    from mafia_arena.engine.catalogue import PhaseStart, RoleChange, RoleDealt
    from mafia_arena.metrics.facts import sides_at

    t = Table().to("night", 0)
    t.act(Q, c("copy_status", R)).to("day", 2)
    dealt = next(e for e in t.game.events if e.fact == RoleDealt(Q, "question_mark", None))
    day_one = next(e for e in t.game.events if e.fact == PhaseStart("day", 1))
    told = next(e for e in t.game.events if isinstance(e.fact, RoleChange) and e.fact.seat == Q)
    assert dealt.seq < day_one.seq < told.seq
    facts = extract_facts(GameLog.from_game(t.game))
    assert sides_at(facts, dealt.seq)[Q] == "town"
    assert sides_at(facts, day_one.seq)[Q] == "mafia"
    assert facts.side_of(Q) == "mafia"
