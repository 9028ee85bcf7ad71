"""Win rates of one side over held-out seeded games, per opponent, with 95% intervals.

Every contender (a trained policy, random choices, the scripted co-player) plays the
same games: game i of an evaluation uses seed `seed + i` for the deal, and the scripted
players' seat seeds come from a host key made from `seed`, so the comparison is paired
(only the learner's decisions differ) and an evaluation repeats exactly on every run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mafia_arena.rl.team_env import Chooser, TeamEnv, TeamSetup
from mafia_arena.stats import wilson_interval

HELD_OUT_SEED = 1_000_000_007  # far from training seeds, which come from the env's draws


#: How a win rate (or a difference of two) over no games is printed: not as 0, nor as nan.
NO_GAMES = "no games"


@dataclass(frozen=True)
class WinRate:
    """`wins` of `contender`'s side in `games` games against `opponent`.

    Over no games nothing was measured: the rate is NaN, as its interval is, rather than
    a 0 that would read as "lost every game", and every printed form says `NO_GAMES`."""

    contender: str
    opponent: str
    games: int
    wins: int

    @property
    def rate(self) -> float:
        """wins / games; NaN when there are no games."""
        return self.wins / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of `rate`; (NaN, NaN) when there are no games."""
        return wilson_interval(self.wins, self.games)

    def shown(self, interval: bool = True) -> str:
        """The rate to 3 decimals, with its interval unless `interval` is False
        ("0.512 [0.498, 0.526]"), or `NO_GAMES`."""
        if not self.games:
            return NO_GAMES
        if not interval:
            return f"{self.rate:.3f}"
        lo, hi = self.interval
        return f"{self.rate:5.3f} [{lo:5.3f}, {hi:5.3f}]"

    def row(self) -> str:
        """One line of a report: contender, opponent, rate, interval and the count."""
        return (
            f"{self.contender:<22} vs {self.opponent:<16} {self.shown()}  "
            f"({self.wins}/{self.games})"
        )


def shown_margin(rate: WinRate, base: WinRate) -> str:
    """`rate`'s win rate minus `base`'s, signed to 3 decimals ("+0.012"), or `NO_GAMES`
    when either was measured over no games (a difference with nothing is no margin)."""
    if not (rate.games and base.games):
        return NO_GAMES
    return f"{rate.rate - base.rate:+.3f}"


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
