"""The dictator forum game in numbers: faction win rates, abilities and channels used.

Plays seeded games of the dictator variant with heuristic players (every seat) and
reports each faction's win rate (and draws) with 95% Wilson intervals, the share of
games in which each form (ability, office, vote) and each channel was used at least
once with its interval, and the mean number of uses per game; and how often the
announcements of a game happened (revolutions, jailings, attacks, disqualifications).

    python benchmarks/dictator_stats.py [--games 10000] [--players 18] [--workers 2]
        [--seed 0] [--markdown table.md]

Every game must end without an error; a failing seed is re-raised with its seed.
`dictator_stats()` is the library entry point.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    DecisionRecord,
    DeliveredTestament,
    Disqualified,
    Narration,
    Office,
    PrivateMessage,
    PseudonymTransfer,
    SuicideAttack,
)
from mafia_arena.rules import load_variant
from mafia_arena.seat_seeds import seat_seed
from mafia_arena.stats import wilson_interval
from mafia_arena.views import SeatTracker

KEY = b"dictator-stats"


@dataclass
class Stats:
    """Counts over games (mergeable across worker chunks)."""

    games: int = 0
    seconds: float = 0.0
    days: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    used_games: Counter[str] = field(default_factory=Counter)
    used_total: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Stats) -> None:
        self.games += other.games
        self.seconds += other.seconds
        self.days += other.days
        for mine, theirs in (
            (self.wins, other.wins),
            (self.used_games, other.used_games),
            (self.used_total, other.used_total),
        ):
            mine.update(theirs)


def uses(game: Game) -> Counter[str]:
    """What one game used: forms by subject, channels, and announcements."""
    used: Counter[str] = Counter()
    for event in game.events:
        fact = event.fact
        if isinstance(fact, DecisionRecord) and fact.kind == "forum" and fact.choice:
            verb = fact.choice.split(":")[0]
            if verb not in ("pass", "post", "pm", "ad", "testament", "give"):
                used[f"form: {verb}"] += 1
        elif isinstance(fact, DecisionRecord) and fact.kind == "forum" and fact.act:
            verb = fact.act.split(":")[0]
            if verb not in ("post", "pm", "ad", "testament", "give"):
                used[f"form: {verb}"] += 1
        if isinstance(fact, PrivateMessage):
            used["channel: private message" + (" (group)" if len(fact.recipients) > 1 else "")] += 1
        elif isinstance(fact, PseudonymTransfer):
            used["channel: pseudonym transfer"] += 1
        elif isinstance(fact, DeliveredTestament):
            used[f"channel: testament delivered ({'public' if fact.public else 'private'})"] += 1
        elif event.kind == "newspaper":
            used["channel: newspaper ads"] += len(fact.texts)  # type: ignore[attr-defined]
        elif event.kind == "speech" and fact.kind == "post":  # type: ignore[attr-defined]
            used["channel: thread posts"] += 1
        elif event.kind == "death" and fact.cause == "murder":  # type: ignore[attr-defined]
            used["announced: murder with death message"] += 1
        elif event.kind == "death" and fact.cause == "execution":  # type: ignore[attr-defined]
            used["announced: execution"] += 1
        elif isinstance(fact, Office) and fact.deposed is not None:
            used["announced: dictator overthrown"] += 1
        elif isinstance(fact, Narration) and fact.step == "jail":
            used["announced: jailed"] += 1
        elif isinstance(fact, SuicideAttack):
            used["announced: suicide attack"] += 1
        elif isinstance(fact, Disqualified):
            used["announced: disqualification"] += 1
    return used


def play(players: int, seed: int) -> Game:
    variant = load_variant("dictator")
    game = Game(variant, players, seed)
    agents = []
    for seat in range(players):
        agent = HeuristicAgent()
        agent.reset(seat, seat_seed(KEY, seed, seat))
        agent.set_variant(variant)
        agents.append(agent)
    trackers = [SeatTracker(s) for s in range(players)]
    while not game.over:
        for seat in sorted(game.pending()):
            game.submit(seat, agents[seat].decide(trackers[seat].view(game)))
    errors = sum(a.stats.extra.get("errors", 0) for a in agents)
    if errors:
        raise RuntimeError(f"{errors:.0f} heuristic errors")
    return game


def play_chunk(players: int, seeds: Sequence[int]) -> Stats:
    stats = Stats()
    start = time.perf_counter()
    for seed in seeds:
        try:
            game = play(players, seed)
        except Exception as exc:
            raise RuntimeError(f"dictator with {players} players, seed {seed}: {exc!r}") from exc
        used = uses(game)
        stats.games += 1
        stats.days += game.state.day
        stats.wins[game.state.winner or "draw"] += 1
        stats.used_games.update(set(used))
        stats.used_total.update(used)
    stats.seconds = time.perf_counter() - start
    return stats


def dictator_stats(
    games: int, players: int = 18, seed: int = 0, workers: int = 1, chunk: int = 250
) -> Stats:
    jobs = [
        (players, range(start, min(start + chunk, seed + games)))
        for start in range(seed, seed + games, chunk)
    ]
    total = Stats()
    if workers <= 1:
        parts = [play_chunk(*job) for job in jobs]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(play_chunk, *zip(*jobs, strict=True)))
    for part in parts:
        total.merge(part)
    return total


def _rate(k: int, n: int) -> str:
    low, high = wilson_interval(k, n)
    return f"{100 * k / n:.1f} [{100 * low:.1f}, {100 * high:.1f}]" if n else "-"


def markdown(stats: Stats, players: int) -> str:
    n = stats.games
    lines = [
        f"{n} heuristic games, {players} players; mean length {stats.days / max(1, n):.2f} "
        f"rounds; {stats.seconds:.0f} s of play in all.",
        "",
        "| outcome | % of games (95% Wilson) |",
        "|---|---|",
    ]
    for outcome in ("citizens", "mafia", "draw"):
        lines.append(f"| {outcome} | {_rate(stats.wins[outcome], n)} |")
    lines += [
        "",
        "| used | % of games with at least one (95% Wilson) | mean per game |",
        "|---|---|---|",
    ]
    for item in sorted(stats.used_total):
        lines.append(
            f"| {item} | {_rate(stats.used_games[item], n)} | {stats.used_total[item] / n:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=18)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markdown", default="")
    args = parser.parse_args()
    stats = dictator_stats(args.games, args.players, args.seed, args.workers)
    table = markdown(stats, args.players)
    print(table)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as out:
            out.write(table + "\n")


if __name__ == "__main__":
    main()
