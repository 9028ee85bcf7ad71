"""What the heuristic does in each role, in hand-built situations."""

from __future__ import annotations

from typing import Any

import pytest
from tests.agents.support import (
    dealt,
    drive,
    heuristic_decides,
    pending_kind,
    synthetic_view,
    target,
)

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.agents.heuristic.night import NIGHT_STRATEGIES
from mafia_arena.engine.choices import PASS, Choice, Request, Speech
from mafia_arena.engine.game import Game
from mafia_arena.engine.speech_acts import render_act, speech_acts
from mafia_arena.speech.claims import Claim, extract_claims

M, DOC, DET, V, C = "mafioso", "doctor", "detective", "villager", "citizen"
STANDARD = [M, M, DOC, DET, V, V, V]  # seats 0, 1 mafia; 2 doctor; 3 detective
CLAIM = "I claim to be the detective. My check: P1 is mafia."


def night_one(kill: int = 6, protect: int = 4, check: int = 0):
    """A script for standard night 1: the mafia kill `kill`, and so on."""

    def script(game: Game, seat: int, request: Request) -> Choice | None:
        picks = {
            "night:mafia_kill": kill,
            "night:doctor_protect": protect,
            "night:detective_check": check,
        }
        if request.kind in picks:
            return Choice("target", picks[request.kind])
        return None

    return script


def with_claim(base, speaker: int = 3, text: str = CLAIM, vote: int | None = None):
    """`base`, plus `speaker` saying `text` on day 1 and everyone voting `vote`."""

    def script(game: Game, seat: int, request: Request):
        if request.kind == "speak" and seat == speaker and game.state.day == 1:
            return Speech(text)
        if request.kind == "vote" and vote is not None:
            return (
                Choice("target", vote)
                if Choice("target", vote) in request.choices
                else request.choices[0]
            )
        return base(game, seat, request)

    return script


def test_town_votes_the_player_a_detective_claim_names() -> None:
    game = drive(dealt("standard", STANDARD), with_claim(night_one()), pending_kind("vote"))
    for seat in (2, 4, 5):
        assert target(heuristic_decides(game, seat)) == 0


def test_detective_reveals_a_found_mafioso() -> None:
    game = drive(dealt("standard", STANDARD), night_one(check=1), pending_kind("speak", 3))
    decision = heuristic_decides(game, 3)
    text = decision.text if isinstance(decision, Speech) else ""
    claims = extract_claims(text, [DET])
    assert Claim("claim_role", None, DET) in claims
    assert Claim("claim_result", 1, "mafia") in claims


def test_detective_keeps_quiet_with_only_an_innocent_result() -> None:
    game = drive(dealt("standard", STANDARD), night_one(check=4), pending_kind("speak", 3))
    decision = heuristic_decides(game, 3)
    text = decision.text if isinstance(decision, Speech) else ""
    assert decision != Choice("claim_role", None, DET) and "detective" not in text


def _night_two(seed: int = 0) -> Game:
    script = with_claim(night_one(), text="I claim to be the detective.", vote=5)
    return drive(
        dealt("standard", STANDARD, seed),
        script,
        lambda g: g.state.day == 2 and g.state.phase == "night",
    )


def test_doctor_mostly_protects_the_claimed_detective() -> None:
    game = _night_two()
    game = drive(game, lambda g, s, r: None, pending_kind("night:doctor_protect"))
    picks = [target(heuristic_decides(game, 2, seed)) for seed in range(40)]
    assert picks.count(3) >= 22 and len(set(picks)) > 1  # preferred, yet randomised


def test_mafia_kill_the_claimed_detective() -> None:
    game = _night_two()
    assert pending_kind("night:mafia_kill")(game)
    assert target(heuristic_decides(game, 0)) == 3
    assert target(heuristic_decides(game, 1)) == 3


def test_mafia_converge_on_the_lowest_seats_pick_in_round_two() -> None:
    def split(game: Game, seat: int, request: Request):
        return Choice("target", 4 if seat == 0 else 5)

    game = dealt("standard", STANDARD)
    first = game.request(0)
    assert first is not None
    game.submit(0, split(game, 0, first))
    second = game.request(1)
    assert second is not None
    game.submit(1, split(game, 1, second))
    assert {r.kind for r in game.pending().values()} == {"night:mafia_kill"}
    assert target(heuristic_decides(game, 0)) == 4
    assert target(heuristic_decides(game, 1)) == 4


@pytest.mark.parametrize("seed", range(12))
def test_mafia_do_not_vote_their_teammate_without_need(seed: int) -> None:
    game = drive(dealt("standard", STANDARD, seed), night_one(), pending_kind("vote"))
    assert target(heuristic_decides(game, 0, seed)) != 1
    assert target(heuristic_decides(game, 1, seed)) != 0


def test_detective_answers_a_counter_claim() -> None:
    game = drive(
        dealt("standard", STANDARD),
        with_claim(night_one(check=4), speaker=0, text="I am the detective."),
        pending_kind("speak", 3),
    )
    decision = heuristic_decides(game, 3)
    claims = extract_claims(decision.text if isinstance(decision, Speech) else "", [DET])
    assert Claim("claim_role", None, DET) in claims and Claim("accuse", 0) in claims
    game = drive(game, lambda g, s, r: None, pending_kind("vote"))
    assert target(heuristic_decides(game, 3)) == 0  # the detective knows the liar


def test_classic_nominations_skip_known_town_and_name_known_mafia() -> None:
    roles = [M, M, DET, C, C, C, C]

    def script(game: Game, seat: int, request: Request):
        if request.kind == "night:mafia_kill":
            return Choice("target", 6)
        if request.kind == "night:detective_check":
            return Choice("target", 3)
        return None

    game = drive(dealt("classic", roles), script, pending_kind("nominate", 2))
    named: list[int | None] = []
    while (request := game.request(2)) is not None and request.kind == "nominate":
        decision = heuristic_decides(game, 2)
        named.append(target(decision))
        game.submit(2, decision)
        if decision == PASS:
            break
    assert 3 not in named and 2 not in named


def _last_dead_view(role: str, faction: str, allies: dict[str, str] | None = None):
    request = Request(
        6,
        "last_dead",
        "decide",
        (Choice("target", 0), Choice("target", 4)),
        ("P1", "P5"),
        default="random",
    )
    events: list[tuple[str, dict[str, Any], frozenset[int] | None]] = (
        [
            (
                "night_result",
                {"step": "detective_check", "action": "check", "target": 0, "result": "mafia"},
                frozenset({6}),
            )
        ]
        if role == DET
        else []
    )
    if allies:
        events.append(("allies", {"seat": 6, "allies": allies}, frozenset({6})))
    events.append(("death", {"seat": 6, "cause": "night", "role": role}, None))
    return synthetic_view("classic", {M: 2, DET: 1, C: 4}, 6, role, faction, request, events)


def test_last_dead_town_condemns_the_suspect_and_mafia_spare_their_own() -> None:
    town = HeuristicAgent(strict=True)
    town.reset(6, 0)
    assert target(town.decide(_last_dead_view(DET, "citizens"))) == 0
    mafia = HeuristicAgent(strict=True)
    mafia.reset(6, 0)
    view = _last_dead_view(M, "mafia", {"0": M})
    assert target(mafia.decide(view)) == 4


def night_decides(
    action: str,
    role: str,
    faction: str,
    *,
    optional: bool = True,
    events: tuple[tuple[str, dict, frozenset[int] | None], ...] = (),
) -> tuple[Choice, tuple[Choice, ...]]:
    """Seat 0's decision on a night request of `action` (targets 1-4; with a pass if
    `optional`), and the request's choices."""
    targets = tuple(Choice("target", s) for s in (1, 2, 3, 4))
    if action == "check_or_kill":
        targets = tuple(Choice(v, s) for v in ("check", "kill") for s in (1, 2, 3, 4))
    choices = (PASS, *targets) if optional else targets
    request = Request(
        0,
        f"night:{action}",
        "Night 1: act (pick 1 of 1)",
        choices,
        tuple(c.key for c in choices),
        info={"step": action, "action": action},
    )
    view = synthetic_view(
        "standard", {M: 1, DOC: 1, DET: 1, V: 2}, 0, role, faction, request, events, phase="night"
    )
    agent = HeuristicAgent(strict=True)
    agent.reset(0, 0)
    decision = agent.decide(view)
    assert isinstance(decision, Choice)
    return decision, choices


@pytest.mark.parametrize("action", [*sorted(NIGHT_STRATEGIES), "unheard_of"])
@pytest.mark.parametrize(("role", "faction"), [(V, "town"), (M, "mafia")])
def test_every_night_action_picks_a_target_rather_than_pass(
    action: str, role: str, faction: str
) -> None:
    """(Except a town shot on nothing: see the next test.)"""
    decision, choices = night_decides(action, role, faction)
    assert decision in choices
    if action == "shoot" and faction == "town":
        assert decision == PASS
    else:
        assert target(decision) is not None


def test_a_town_shooter_fires_only_on_a_strong_read_and_holds_otherwise() -> None:
    found = (
        (
            "night_result",
            {"step": "detective_check", "action": "check", "target": 3, "result": "mafia"},
            frozenset({0}),
        ),
    )
    assert night_decides("shoot", V, "town")[0] == PASS  # nothing to go on: hold
    assert target(night_decides("shoot", DET, "town", events=found)[0]) == 3
    forced, _ = night_decides("shoot", V, "town", optional=False)  # no pass offered
    assert target(forced) in (1, 2, 3, 4)
    assert target(night_decides("shoot", M, "mafia")[0]) in (1, 2, 3, 4)


@pytest.mark.parametrize(("role", "faction"), [(C, "citizens"), (M, "mafia")])
def test_a_nominee_pleads_against_the_other_nominee(role: str, faction: str) -> None:
    others = [0, 1, 2, 4, 5, 6]
    acts = tuple(speech_acts(3, others, [M, DET, C]))
    request = Request(
        3,
        "plea",
        "Day 1: your final plea.",
        acts,
        tuple(render_act(a) for a in acts),
        free_text=True,
    )
    events: list[tuple[str, dict[str, Any], frozenset[int] | None]] = [
        ("nominees", {"seats": [3, 5]}, None)
    ]
    if role == M:
        events.append(("allies", {"seat": 3, "allies": {"0": M}}, frozenset({3})))
    view = synthetic_view("classic", {M: 2, DET: 1, C: 4}, 3, role, faction, request, events)
    agent = HeuristicAgent(strict=True)
    agent.reset(3, 0)
    decision = agent.decide(view)
    text = decision.text if isinstance(decision, Speech) else render_act(decision)
    assert Claim("accuse", 5) in extract_claims(text, [M, DET, C])


def _club_night_view(role: str, action: str, seat: int = 5):
    """Club night 2 for a town `role`: P4 claimed commissar and "found" P1 mafia."""
    choices = tuple(Choice("target", s) for s in range(10) if s != seat)
    request = Request(
        seat,
        f"night:{action}",
        "Night 2: act (pick 1 of 1)",
        choices,
        tuple(c.key for c in choices),
        info={"step": action, "action": action},
    )
    text = "I am the commissar. My check: P1 is mafia."
    events = [("speech", {"seat": 3, "text": text, "kind": "discussion"}, None)]
    composition = {"don": 1, "mafia": 2, "maniac": 1, "commissar": 1, role: 1, "civilian": 4}
    if role == "captain":
        composition["civilian"] = 3
        composition["doctor"] = 1
    return synthetic_view("club", composition, seat, role, "town", request, events, day=2)


@pytest.mark.parametrize(("role", "action"), [("lover", "silence"), ("captain", "arrest")])
def test_club_town_never_shields_or_blanks_the_commissars_suspect(role: str, action: str) -> None:
    """A silenced player cannot be voted against, and an arrested one's check comes
    back empty: neither the lover nor the captain touches the town's main suspect."""
    picks = []
    for seed in range(30):
        agent = HeuristicAgent(strict=True)
        agent.reset(5, seed)
        picks.append(target(agent.decide(_club_night_view(role, action))))
    assert 0 not in picks
    assert len(set(picks)) > 2  # not one fixed seat either
