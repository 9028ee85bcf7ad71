"""`TeamEnv`'s ``info``: ``seat`` is the number of the seat that decides now, of the
learner's side, and the info holds nothing else drawn from the deal (no role, no seed,
no other seat's side); an illegal move's refusal lists the ids the learner uses."""

from __future__ import annotations

import numpy as np
import pytest

from mafia_arena.rl.team_env import TeamEnv, TeamSetup

OPEN = {"side", "signals", "seat", "action_mask"}
"""The keys of the info of a step that leaves a decision open (docs/rl.md)."""
FINAL = {"side", "signals", "winner", "won", "opponent"}
"""The keys of the info of the step that ends the game."""


@pytest.mark.parametrize("side", ["town", "mafia"])
@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_info_seat_is_the_deciding_seat_and_the_info_holds_nothing_else_of_the_deal(
    variant: str, side: str
) -> None:
    players = 7 if variant == "standard" else 10
    env = TeamEnv(TeamSetup(variant=variant, players=players, side=side, kinds=("*",)), seed=5)
    for episode in range(2):
        obs, info = env.reset(seed=episode)
        game = env.session.current
        done = False
        while not done:
            assert set(info) == OPEN
            seat = info["seat"]
            assert type(seat) is int and seat in game.pending()
            assert env._sides[seat] == side  # one of the learner's own seats
            assert np.array_equal(obs, env.session.observe(seat)["observation"])
            assert np.array_equal(info["action_mask"], env.action_masks())
            assert all(set(signal) == {"seat", "side"} for signal in info["signals"])
            action = int(np.flatnonzero(info["action_mask"])[0])
            obs, _, done, _, info = env.step(action)
        assert set(info) == FINAL and info["side"] == side


def test_an_illegal_moves_refusal_lists_the_ids_the_egocentric_learner_uses() -> None:
    setup = TeamSetup(kinds=("*",), observation="history", egocentric=True)
    env = TeamEnv(setup, seed=0)
    _, info = env.reset(seed=0)
    table = env.session.table

    def absolute_ids() -> list[int]:
        request = env.session.view(info["seat"]).request
        assert request is not None
        return sorted(table.ids(request))

    # a decision whose relative ids differ from the table's (not seat 0's, whose
    # rotation is none, nor one that offers every seat)
    while np.flatnonzero(info["action_mask"]).tolist() == absolute_ids():
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not done
    legal = np.flatnonzero(info["action_mask"]).tolist()
    masked = next(i for i in range(env.actions) if i not in legal)
    _, reward, done, _, info = env.step(masked)
    assert done and reward == setup.illegal_reward
    assert info["illegal"].endswith(f"legal ids: {legal}")
