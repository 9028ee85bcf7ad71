"""Full games per second with random players, ours against TextArena in one run.

The baseline is TextArena's ``SecretMafia-v0`` (mafia, doctor, detective, villagers: the
closest to our ``standard``), driven with random valid actions the way its users drive
it: ``ta.make`` builds a fresh env for every game, then ``reset``, ``get_observation`` /
``step`` until done, ``close``. Two baselines:

- *TextArena raw* (``SecretMafia-v0-raw``, no wrappers) for the engine alone;
- *TextArena default* (``SecretMafia-v0``, its default wrappers, fresh env per game) for
  our environments.

A third TextArena row resets one default env for every game instead. Its observation
wrapper keeps the message history across resets (a TextArena bug), so each game pays
for every earlier one and the rate falls the longer it runs; it is printed for
reference only, never used as a baseline.

Our rows, for each of ``standard``, ``simple`` and ``classic`` at ``--players``:
the engine alone (`engine.Game`); the AEC ``env()`` with ``last()`` (observation and
action mask) at every step; the same with ``max_text=0`` (no text view in ``infos``);
and the Parallel ``parallel_env()``. Club (``--club-players``; 0 skips it) has no
TextArena counterpart, so its rows have no ratio.

Measurement: every row of ours is measured right next to its baseline (A then B,
B then A on the next repetition), ``--repeats`` times; each row reports the median
rate and each ratio the median of its adjacent pairs, so a burst of load on a shared
machine hits both sides of a ratio alike. TextArena is the ``bench`` extra
(``pip install -e .[bench]``); without it only our rows are printed.

    python benchmarks/engine_throughput.py [--players 10] [--club-players 16]
        [--seconds 1] [--repeats 3]

Targets (issue "speed"): engine alone >= 2x TextArena raw; AEC ``env()`` >= 1.5x
TextArena default (fresh env per game).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mafia_arena import env as mafia_env
from mafia_arena.engine import Game
from mafia_arena.rules import load_variant

VARIANTS = ("standard", "simple", "classic")
Play = Callable[[int], int]  # seed -> decisions made in that game
REUSED = "textarena default, one env reset per game (TextArena bug)"


def measure(play: Play, seconds: float, min_games: int = 5) -> tuple[float, float]:
    """(games per second, decisions per game), playing seeds 0, 1, … for `seconds`."""
    rate, per_game, _games = measure_games(play, seconds, min_games)
    return rate, per_game


def measure_games(play: Play, seconds: float, min_games: int = 5) -> tuple[float, float, int]:
    """`measure`, and the number of games it played."""
    start = time.perf_counter()
    games = decisions = 0
    while games < min_games or time.perf_counter() - start < seconds:
        decisions += play(games)
        games += 1
    return games / (time.perf_counter() - start), decisions / games, games


# ---------------------------------------------------------------------- our side
def engine_game(variant: str, players: int) -> Play:
    """The engine alone: every pending seat picks a random offered choice."""
    spec = load_variant(variant)

    def play(seed: int) -> int:
        game, rng, steps = Game(spec, players, seed), random.Random(seed), 0
        while not game.over:
            for seat, request in sorted(game.pending().items()):
                game.submit(seat, rng.choice(request.choices))
                steps += 1
        return steps

    return play


def engine_decisions(env: Any) -> int:
    """The decisions the engine recorded in the env's last game: the same count as the
    engine row's, so every row's time per decision divides by the same thing (the AEC
    loop's steps also count the night slots' waits, the Parallel loop's one per seat)."""
    return len(env.unwrapped.session.current.decisions)


def aec_game(variant: str, players: int, *, count_steps: bool = False, **kwargs: Any) -> Play:
    """The standard PettingZoo AEC loop over `env()`, `last()` at every step. A game
    counts its engine decisions, or with `count_steps` its agent-steps (every `step` of
    a live agent, the night slots' waits included: what the batched env is compared to)."""
    env = mafia_env.env(variant, players, **kwargs)
    rng = np.random.default_rng(0)

    def play(seed: int) -> int:
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps if count_steps else engine_decisions(env)

    return play


def parallel_game(variant: str, players: int, **kwargs: Any) -> Play:
    """The Parallel loop over `parallel_env()`: an action for every seat at every step, a
    random legal one for each seat with a request, the wait (0) for the others."""
    env = mafia_env.parallel_env(variant, players, **kwargs)
    rng = np.random.default_rng(0)

    def play(seed: int) -> int:
        observations, infos = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                if infos[agent]["request"] is None:  # waiting: its mask offers action 0 only
                    actions[agent] = 0
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                actions[agent] = int(legal[rng.integers(len(legal))])
            observations, _r, _t, _u, infos = env.step(actions)
        return engine_decisions(env)

    return play


# ---------------------------------------------------------------------- TextArena
def textarena_available() -> bool:
    try:
        import textarena  # noqa: F401
    except ImportError:
        return False
    return True


def textarena_game(env_id: str, players: int, fresh: bool = True) -> Play:
    """TextArena's SecretMafia with random valid actions.

    `fresh`: ``ta.make`` per game, as TextArena's users do; otherwise one env is made
    per measurement and reset for every game (see the module docstring: its
    observation wrapper then keeps every earlier game's history).
    """
    import textarena as ta
    from textarena.envs.SecretMafia.env import Phase

    shared = None if fresh else ta.make(env_id)

    def play(seed: int) -> int:
        env = ta.make(env_id) if shared is None else shared
        core = env
        while hasattr(core, "env"):
            core = core.env
        rng = random.Random(seed)
        env.reset(num_players=players, seed=seed)
        done, steps = False, 0
        while not done:
            player, _observation = env.get_observation()
            alive = core.state.game_state["alive_players"]
            phase = core.phase
            if phase == Phase.DAY_DISCUSSION:
                action = f"I suspect Player {rng.choice(alive)} is mafia."
            elif phase == Phase.NIGHT_MAFIA:
                roles = core.player_roles
                action = f"[{rng.choice([p for p in alive if roles[p] != 'Mafia'])}]"
            elif phase in (Phase.NIGHT_DOCTOR, Phase.NIGHT_DETECTIVE):
                action = f"[{rng.choice([p for p in alive if p != player])}]"
            else:  # day vote: any living player, as its prompt offers
                action = f"[{rng.choice(alive)}]"
            done, _info = env.step(action)
            steps += 1
        env.close()
        return steps

    return play


# ---------------------------------------------------------------------- the run
@dataclass
class Row:
    """One setting: its rates over the repetitions and, if it has one, its baseline."""

    label: str
    play: Play
    baseline: str | None = None
    rates: list[float] = field(default_factory=list)
    decisions: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    games: int = 0

    def run(self, seconds: float) -> float:
        rate, per_game, games = measure_games(self.play, seconds)
        self.games += games
        self.rates.append(rate)
        self.decisions.append(per_game)
        return rate

    @property
    def rate(self) -> float:
        return statistics.median(self.rates)

    @property
    def per_game(self) -> float:
        return statistics.median(self.decisions)


def build_rows(players: int, club_players: int, baseline: bool) -> dict[str, Row]:
    rows: dict[str, Row] = {}

    def add(label: str, play: Play, against: str | None = None) -> None:
        rows[label] = Row(label, play, against if baseline else None)

    if baseline:
        add("textarena raw", textarena_game("SecretMafia-v0-raw", players))
        add("textarena default (fresh env)", textarena_game("SecretMafia-v0", players))
    for variant in VARIANTS:
        add(f"{variant} engine", engine_game(variant, players), "textarena raw")
        add(
            f"{variant} AEC env()",
            aec_game(variant, players),
            "textarena default (fresh env)",
        )
        add(
            f"{variant} AEC env(max_text=0)",
            aec_game(variant, players, max_text=0),
            "textarena default (fresh env)",
        )
        add(
            f"{variant} Parallel env",
            parallel_game(variant, players),
            "textarena default (fresh env)",
        )
    if club_players:
        m = club_players
        add(f"club {m}p engine", engine_game("club", m))
        add(f"club {m}p AEC env()", aec_game("club", m))
        add(f"club {m}p AEC env(max_text=0)", aec_game("club", m, max_text=0))
        add(f"club {m}p Parallel env", parallel_game("club", m))
    if baseline:
        add(REUSED, textarena_game("SecretMafia-v0", players, fresh=False))
    return rows


def run(rows: dict[str, Row], repeats: int, seconds: float) -> None:
    """Each row of ours next to a fresh measurement of its baseline, order alternating;
    baselines are measured only in those pairs, the reused-env row once per repetition
    at its end."""
    baselines = {row.baseline for row in rows.values()} | {REUSED}
    for rep in range(repeats):
        for row in rows.values():
            if row.baseline is None:
                if row.label not in baselines:
                    row.run(seconds)
                continue
            base = rows[row.baseline]
            if rep % 2 == 0:
                ours, theirs = row.run(seconds), base.run(seconds)
            else:
                theirs, ours = base.run(seconds), row.run(seconds)
            row.ratios.append(ours / theirs)
        if REUSED in rows:
            rows[REUSED].run(seconds)


def report(rows: dict[str, Row], args: argparse.Namespace) -> None:
    print(
        f"\n{args.players} players (club: {args.club_players}), random valid actions, "
        f"median of {args.repeats} repetitions of >= {args.seconds:g} s each\n"
    )
    print(f"{'setting':58} {'games/s':>9} {'decisions/game':>15} {'decisions/s':>12} {'ratio':>6}")
    for row in rows.values():
        ratio = f"{statistics.median(row.ratios):6.2f}" if row.ratios else ""
        print(
            f"{row.label:58} {row.rate:9.1f} {row.per_game:15.1f} "
            f"{row.rate * row.per_game:12.0f} {ratio:>6}"
        )
    bug = rows.get(REUSED)
    if bug is not None:
        print(
            f"\n({REUSED!r}: {bug.games} games on one env; each game pays for the history "
            "of all earlier ones, so this rate falls the longer it runs: not a baseline)"
        )
    if "textarena raw" not in rows:
        print("\ntextarena is not installed (pip install -e .[bench]): no baseline, no ratios")
        return
    print(
        "\nratio: games/s of the row over its baseline measured next to it "
        "(median of the pairs)\n  engine rows over textarena raw; env rows over "
        "textarena default (fresh env per game)\n  targets: engine >= 2, AEC env() >= 1.5"
    )
    for variant in VARIANTS:
        engine = statistics.median(rows[f"{variant} engine"].ratios)
        aec = statistics.median(rows[f"{variant} AEC env()"].ratios)
        print(
            f"  {variant:9} engine/raw {engine:5.2f} ({'ok' if engine >= 2 else 'below target'})"
            f"   AEC/default {aec:5.2f} ({'ok' if aec >= 1.5 else 'below target'})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument(
        "--club-players", type=int, default=16, help="players of the club rows (0: no club rows)"
    )
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="minimum wall time per measurement"
    )
    parser.add_argument("--repeats", type=int, default=3, help="repetitions; rows report medians")
    args = parser.parse_args()
    rows = build_rows(args.players, args.club_players, textarena_available())
    run(rows, args.repeats, args.seconds)
    report(rows, args)


if __name__ == "__main__":
    main()
