"""How much room a town voting learner has: votes informed by the detective's secret.

`benchmarks/rl_gain.py` asks a trained town voting policy to beat the heuristic's own
votes by 10 points against every opponent. This script measures what perfect use of
one hidden fact would give on the same held-out seeded games: every town vote is the
detective's — a living mafioso it has found (its private check results, which no other
seat's view holds), else what a heuristic player holding the detective's view would
vote — and otherwise (no detective left) the heuristic's own. No fair policy can do
this — a villager's view does not hold the detective's knowledge — so the row is a
ceiling, not a contender; what a learner can reach lies between the heuristic's votes
and it, and depends on how much of the detective's knowledge reaches the table
through its claims, which a votes-only learner does not control.

Two rows per opponent: "detective's finds" (a found mafioso, else the seat's own
heuristic vote) and "detective's view" (else the vote the heuristic would cast with the
detective's whole view), each with its room over the heuristic's votes.

    python benchmarks/rl_ceiling.py [--spec experiments/rl-town-votes.toml] [--games 2000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mafia_arena.agents.advice import advice_id
from mafia_arena.agents.base import SyncAgent
from mafia_arena.agents.registry import make_agent
from mafia_arena.engine import Game
from mafia_arena.rl.evaluate import HELD_OUT_SEED, WinRate, shown_margin, win_rate
from mafia_arena.rl.spec import load_train_spec
from mafia_arena.rl.team_env import Chooser, TeamEnv, TeamSetup

REPO = Path(__file__).resolve().parents[1]


def informed_chooser(env: TeamEnv, whole_view: bool) -> Chooser:
    """Every town vote follows the detective: a living mafioso it has found; else, with
    `whole_view`, the vote a heuristic player would cast holding the detective's view (a
    separate instance, so the seated players' generators are untouched); else the
    seat's own heuristic vote. Reads the env's game (the detective's private view): a
    ceiling, not a policy."""
    oracle = make_agent("heuristic")
    assert isinstance(oracle, SyncAgent)
    ballot: dict[str, object] = {}

    def detective_vote(game: Game) -> int | None:
        """The target the detective's view picks on this ballot (asked once per ballot,
        while the detective still has to vote), or None."""
        key = (id(game), len(game.decisions) - len(game.pending()))
        if ballot.get("key") != key:
            ballot["key"], ballot["target"] = key, None
            detectives = [s.seat for s in game.state.seats if s.card == "detective"]
            live = [d for d in detectives if game.state.alive(d) and game.request(d) is not None]
            if live:
                view = env.session.view(live[0])
                found = [
                    t
                    for t, r in view.knowledge.checks.items()
                    if r == "mafia" and game.state.alive(t)
                ]
                if found:
                    ballot["target"] = found[0]
                elif whole_view:
                    oracle.reset(live[0], 0)
                    oracle.set_variant(env.session.variant)
                    decision = oracle.decide(view)
                    ballot["target"] = getattr(decision, "target", None)
        target = ballot["target"]
        return target if isinstance(target, int) else None

    def choose(observation: object, mask: object) -> int:
        game, seat = env.session.game, env._seat
        assert game is not None and seat is not None
        target = detective_vote(game)
        request = game.request(seat)
        for choice in request.choices if request is not None else ():
            if target is not None and choice.target == target:
                assert request is not None
                action = advice_id(env.session.table, request, choice, env.setup.egocentric)
                if action is not None:
                    return action
        teacher = env.teacher_action()  # a vote always has one: the heuristic's choice
        assert teacher is not None
        return teacher

    return choose


def informed_rate(setup: TeamSetup, opponent: str, games: int, whole_view: bool) -> WinRate:
    """`win_rate` for the informed votes, on the same held-out games as every contender."""
    env = TeamEnv(setup, seed=HELD_OUT_SEED)
    choose = informed_chooser(env, whole_view)
    wins = sum(env.play(HELD_OUT_SEED + i, opponent, choose) for i in range(games))
    label = "detective's view" if whole_view else "detective's finds"
    return WinRate(label, opponent, games, wins)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=REPO / "experiments" / "rl-town-votes.toml")
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    if args.games < 1:  # a win rate over no games measures nothing
        parser.error("--games must be at least 1")
    setup = load_train_spec(args.spec).setup
    for opponent in setup.opponents:
        heuristic = win_rate(setup, "heuristic votes", None, opponent, args.games)
        print("  " + heuristic.row())
        for whole_view in (False, True):
            informed = informed_rate(setup, opponent, args.games, whole_view)
            room = shown_margin(informed, heuristic)
            print("  " + informed.row() + f"  room {room}")


if __name__ == "__main__":
    main()
