"""Club Mafia in numbers: how often each role's ability fires and how often each side wins.

Plays seeded games of each club preset (club.md 2.2) with the given agents and reports,
per preset, each faction's win rate (and draws) with 95% Wilson intervals, and per role
the share of games in which the holder of that card used an ability at least once (a
night action, or a trait firing: conversion, succession, inheritance, activation,
retaliation, surviving by immunity) with its interval and the mean number of uses.

    python benchmarks/club_stats.py [--games 10000] [--presets 8,10,12,16,20,26]
        [--agents random] [--workers 2] [--seed 0] [--markdown table.md]

`club_stats()` is the library entry point (heuristic players can be measured with
``agents=("heuristic",)``). Every game must end without an error; a failing seed is
re-raised with its preset and seed. Random agents take a fast path that picks uniformly
among the legal choices with the game's own loop (no views are built); other agents play
through `runner.play_match_sync`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from mafia_arena.agents import make_agent
from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import NightAction, Protected, Trigger
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.stats import wilson_interval

PRESETS = (8, 10, 12, 16, 20, 26)


@dataclass
class PresetStats:
    """Counts over the games of one preset (mergeable across worker chunks)."""

    players: int
    games: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    days: int = 0
    saves: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    draws: Counter[str] = field(default_factory=Counter)
    dealt: Counter[str] = field(default_factory=Counter)
    fired_games: Counter[str] = field(default_factory=Counter)
    fired_total: Counter[str] = field(default_factory=Counter)

    def merge(self, other: PresetStats) -> None:
        self.games += other.games
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds
        self.days += other.days
        self.saves += other.saves
        for mine, theirs in (
            (self.wins, other.wins),
            (self.draws, other.draws),
            (self.dealt, other.dealt),
            (self.fired_games, other.fired_games),
            (self.fired_total, other.fired_total),
        ):
            mine.update(theirs)


def record(stats: PresetStats, game: Game) -> None:
    """Fold one finished game into `stats`: winner, cards dealt, abilities used.

    A copy with nothing to copy (the source arrested or without a night skill) is
    recorded as a copy step's action without a `skill`; it is no use of the ability.
    The typed fact is read, not its stored payload, which leaves an empty `skill` out
    and so looks like any other step's action.
    """
    cards = {seat.seat: seat.card for seat in game.state.seats}
    copies = {step.name for step in game.variant.night if step.action == "copy"}
    used: Counter[str] = Counter()
    for event in game.events:
        fact = event.fact
        if isinstance(fact, NightAction):
            if fact.step in copies and fact.skill is None:
                continue
            for seat in fact.seats:
                used[cards[seat]] += 1
        elif isinstance(fact, Trigger):
            used[cards[fact.seat]] += 1
        elif isinstance(fact, Protected):
            stats.saves += 1
    stats.games += 1
    stats.days += game.state.day
    stats.wins[game.state.winner or "draw"] += 1
    if game.state.winner is None:
        reason = game.events[-1].fact.to_payload().get("reason") or (
            "nobody alive" if not game.state.living() else "both clans at parity"
        )
        stats.draws[reason] += 1
    stats.dealt.update(set(cards.values()))
    stats.fired_games.update(set(used))
    stats.fired_total.update(used)


def play_random(variant: Variant, players: int, seed: int) -> Game:
    """A game of uniformly random legal choices (the fast path for random agents)."""
    game, rng = Game(variant, players, seed), random.Random(f"club-stats:{seed}")
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    return game


def play_chunk(players: int, seeds: Sequence[int], agents: Sequence[str]) -> PresetStats:
    """Play `seeds` of the `players` preset; one worker's share."""
    variant = load_variant("club")
    stats = PresetStats(players)
    start, cpu = time.perf_counter(), time.process_time()
    for seed in seeds:
        try:
            if tuple(agents) == ("random",):
                game = play_random(variant, players, seed)
            else:
                seated = [make_agent(agents[i % len(agents)]) for i in range(players)]
                result = play_match_sync(variant, seated, seed)
                game = _final_state(variant, players, seed, result.log)
        except Exception as exc:
            raise RuntimeError(f"club with {players} players, seed {seed}: {exc!r}") from exc
        record(stats, game)
    stats.seconds = time.perf_counter() - start
    stats.cpu_seconds = time.process_time() - cpu
    return stats


def _final_state(variant: Variant, players: int, seed: int, log: object) -> Game:
    from mafia_arena.runner import replay

    return replay(log)  # type: ignore[arg-type]


def club_stats(
    games: int,
    presets: Sequence[int] = PRESETS,
    agents: Sequence[str] = ("random",),
    seed: int = 0,
    workers: int = 1,
    chunk: int = 250,
) -> dict[int, PresetStats]:
    """Play `games` seeded games (seeds seed..seed+games-1) of each preset."""
    jobs = [
        (n, range(start, min(start + chunk, seed + games)), tuple(agents))
        for n in presets
        for start in range(seed, seed + games, chunk)
    ]
    results = {n: PresetStats(n) for n in presets}
    if workers <= 1:
        parts = [play_chunk(*job) for job in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(play_chunk, *zip(*jobs, strict=True)))
    for part in parts:
        results[part.players].merge(part)
    return results


def _rate(k: int, n: int) -> str:
    low, high = wilson_interval(k, n)
    return f"{100 * k / n:.1f} [{100 * low:.1f}, {100 * high:.1f}]" if n else "-"


def markdown(results: dict[int, PresetStats], variant: Variant) -> str:
    """Two tables: win rates by faction, and ability use by role, per preset."""
    presets = sorted(results)
    factions = [*variant.factions, "draw"]
    lines = [
        "| outcome (% of games, 95% Wilson) | "
        + " | ".join(f"{n} players" for n in presets)
        + " |",
        "|---" * (len(presets) + 1) + "|",
    ]
    for name in factions:
        row = [_rate(results[n].wins[name], results[n].games) for n in presets]
        if any(results[n].wins[name] for n in presets):
            lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines.append("| games | " + " | ".join(str(results[n].games) for n in presets) + " |")
    lines.append(
        "| mean length (days) | "
        + " | ".join(f"{results[n].days / max(1, results[n].games):.2f}" for n in presets)
        + " |"
    )
    for reason in sorted({r for n in presets for r in results[n].draws}):
        lines.append(
            f"| draws: {reason} | "
            + " | ".join(str(results[n].draws[reason]) for n in presets)
            + " |"
        )
    lines.append(
        "| lawyer saves per game | "
        + " | ".join(f"{results[n].saves / max(1, results[n].games):.3f}" for n in presets)
        + " |"
    )
    lines += [
        "",
        "| role: used its ability (% of games dealt, 95% Wilson; mean uses) | "
        + " | ".join(f"{n} players" for n in presets)
        + " |",
        "|---" * (len(presets) + 1) + "|",
    ]
    for role in variant.roles:
        if not any(results[n].dealt[role] for n in presets):
            continue
        cells = []
        for n in presets:
            dealt = results[n].dealt[role]
            cells.append(
                f"{_rate(results[n].fired_games[role], dealt)}; "
                f"{results[n].fired_total[role] / dealt:.2f}"
                if dealt
                else "-"
            )
        lines.append(f"| {role} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--presets", default=",".join(map(str, PRESETS)))
    parser.add_argument("--agents", default="random", help="comma-separated agent specs")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", help="also write the tables to this file")
    args = parser.parse_args()
    presets = [int(n) for n in args.presets.split(",")]
    start = time.perf_counter()
    results = club_stats(args.games, presets, args.agents.split(","), args.seed, args.workers)
    wall = time.perf_counter() - start
    table = markdown(results, load_variant("club"))
    print(table)
    for n in presets:
        r = results[n]
        print(
            f"{n} players: {r.games} games, {r.games / r.cpu_seconds:.1f} games per CPU "
            f"second ({r.games / r.seconds:.1f} per worker wall second)"
        )
    print(f"wall time {wall:.1f}s with {args.workers} worker(s)")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(table)


if __name__ == "__main__":
    main()
