"""Win rates of one side over held-out seeded games, per opponent, with 95% intervals.

Every contender (a trained policy, random choices, the scripted co-player) plays the
same games: game i of an evaluation uses seed `seed + i` for the deal, and the scripted
players' seat seeds come from a host key made from `seed`, so the comparison is paired
(only the learner's decisions differ) and an evaluation repeats exactly on every run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mafia_arena.rl.team_env import Chooser, TeamEnv, TeamSetup
from mafia_arena.stats import wilson_interval

HELD_OUT_SEED = 1_000_000_007  # far from training seeds, which come from the env's draws


@dataclass(frozen=True)
class WinRate:
    contender: str
    opponent: str
    games: int
    wins: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    def row(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.contender:<22} vs {self.opponent:<16} {self.rate:5.3f} "
            f"[{lo:5.3f}, {hi:5.3f}]  ({self.wins}/{self.games})"
        )


def random_chooser(seed: int) -> Chooser:
    """Uniform among the legal actions: the 'random votes' baseline."""
    rng = np.random.default_rng(seed)
    return lambda observation, mask: int(rng.choice(np.flatnonzero(mask)))


def win_rate(
    setup: TeamSetup,
    contender: str,
    choose: Chooser | None,
    opponent: str,
    games: int,
    seed: int = HELD_OUT_SEED,
) -> WinRate:
    """Play `games` seeded games against `opponent`; `choose=None` is the co-player."""
    env = TeamEnv(setup, seed=seed)  # a host key from `seed`: the same seat seeds every run
    wins = sum(env.play(seed + i, opponent, choose) for i in range(games))
    return WinRate(contender, opponent, games, wins)
