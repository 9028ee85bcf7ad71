"""LLM players under load: decisions per second and tokens per game with G games in flight.

Plays the same seeded games (``--games``, seeds 0, 1, …) once per setting of games in
flight (``--in-flight 1,2,4,8``): each game is a ``--variant`` game of ``--players``
seats, of which the first ``--llm-seats`` are the LLM agent and the rest ``--others``
(scripted). All games of a setting share one event loop and the agent's one client, so
their LLM requests overlap up to the agent's ``max_concurrency`` (``--max-concurrency``
overrides it; the bundled llama.cpp server computes one request at a time, so more
requests in flight mostly queue). Reported per setting: wall time, LLM decisions per
second (every model call that produced a decision or a speech), prompt and completion
tokens per decision, LLM tokens per game, re-asks, retries and fallbacks, the decision
rate relative to one game in flight, and **prefix-cache reuse**: the share of prompt
tokens the server did not have to evaluate because the start of the prompt was still in
its KV cache from the request before (the seat's stable prompt prefix is what makes
this possible; interleaved games evict each other's prefixes).

    python benchmarks/llm_throughput.py [--agent agents/local-smollm2.toml]
        [--base-url URL --model NAME] [--games 8] [--in-flight 1,4,8]
        [--variant standard] [--players 7] [--llm-seats 3] [--others heuristic]
        [--set discussion_rounds=1]

With the default agent the bundled model is served by a llama-cpp-python server started
(verbose, so it logs each prefix-cache hit) before the first measurement, its start-up
not timed; cache reuse is read from that server's log (``Llama.generate: N prefix-match
hit``). ``--base-url``/``--model`` point the same agent file at any other
OpenAI-compatible endpoint (cache reuse is then shown as ``-``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.files import resolve_agent_file
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.llm import load_agent_definition
from mafia_arena.llm.definition import AgentDefinition
from mafia_arena.rules import Variant, load_variant
from mafia_arena.runner import play_match

#: A fixed host key (seat seeds), so every setting plays exactly the same games.
HOST_KEY = b"llm-throughput".ljust(32, b"\0")


@dataclass
class Setting:
    """What one setting of games in flight measured: `AgentStats` fields of the LLM seats,
    summed over the setting's games."""

    in_flight: int
    games: int = 0
    seconds: float = 0.0
    totals: Counter[str] = field(default_factory=Counter)
    #: prompt tokens the server reused from its KV cache / prompt tokens of the LLM
    #: seats' calls (None: not measurable at this endpoint)
    cache_reuse: float | None = None

    def total(self, name: str) -> int:
        """One summed counter: decisions, tokens_in, tokens_out, reasks, retries, ..."""
        return int(self.totals[name])

    @property
    def decisions(self) -> int:
        return self.total("decisions")

    @property
    def decisions_per_s(self) -> float:
        return self.decisions / self.seconds if self.seconds else 0.0

    def per_decision(self, name: str) -> float:
        return self.total(name) / self.decisions if self.decisions else 0.0

    @property
    def tokens_per_game(self) -> float:
        tokens = self.total("tokens_in") + self.total("tokens_out")
        return tokens / self.games if self.games else 0.0


def seat_agents(
    definition: AgentDefinition, players: int, llm_seats: int, others: str
) -> list[Agent]:
    """The LLM agent in the first `llm_seats` seats, `others` in the rest."""
    return [
        LLMAgent(definition) if seat < llm_seats else make_agent(others) for seat in range(players)
    ]


async def measure(
    definition: AgentDefinition,
    variant: Variant,
    players: int,
    llm_seats: int,
    others: str,
    games: int,
    in_flight: int,
) -> Setting:
    """Play seeds 0..games-1 with at most `in_flight` games running at once."""
    setting = Setting(in_flight)
    gate = asyncio.Semaphore(in_flight)
    seated: list[list[Agent]] = []

    async def one(seed: int) -> None:
        async with gate:
            agents = seat_agents(definition, players, llm_seats, others)
            seated.append(agents)
            await play_match(variant, agents, seed, host_key=HOST_KEY)

    start = time.perf_counter()
    await asyncio.gather(*(one(seed) for seed in range(games)))
    setting.seconds = time.perf_counter() - start
    setting.games = games
    for agents in seated:
        for agent in agents[:llm_seats]:
            setting.totals.update(agent.stats.to_json())
    return setting


_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")


class CacheLog:
    """Prefix-cache hits of a llama-cpp-python server, read from its verbose log."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.offset = self._size()

    def _size(self) -> int:
        return self.path.stat().st_size if self.path is not None and self.path.exists() else 0

    def reused_since_last(self) -> int | None:
        """Prompt tokens the server took from its KV cache in the requests logged since
        the last call (None without a log)."""
        if self.path is None:
            return None
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        self.offset += len(data)
        return sum(int(m.group(1)) for m in _HIT.finditer(data.decode("utf-8", "replace")))


async def warm_up(definition: AgentDefinition, variant: Variant, players: int, others: str) -> None:
    """Start the endpoint (the local server, when the agent uses it) and make one call."""
    if definition.base_url == "local":
        from mafia_arena.llm.local_server import aget_local_server

        await aget_local_server()
    agents = seat_agents(definition, players, 1, others)
    from mafia_arena.engine import Game
    from mafia_arena.views.view import SeatTracker

    game = Game(variant, players, seed=10_000)
    agents[0].reset(0, 10_000)
    agents[0].set_variant(variant)
    while 0 not in game.pending():
        for seat in sorted(game.pending()):
            game.submit_default(seat, "warm-up")
    await agents[0].act(SeatTracker(0).view(game))


def table(settings: list[Setting]) -> str:
    base = settings[0].decisions_per_s if settings else 0.0
    lines = [
        f"{'in flight':>9} {'games':>5} {'wall s':>8} {'decisions':>9} {'dec/s':>7} "
        f"{'vs 1':>6} {'prompt tok/dec':>14} {'compl tok/dec':>13} {'tok/game':>9} "
        f"{'reasks':>6} {'retries':>7} {'fallbacks':>9} {'cache reuse':>11}"
    ]
    for s in settings:
        ratio = s.decisions_per_s / base if base else 0.0
        reuse = "-" if s.cache_reuse is None else f"{s.cache_reuse:.0%}"
        lines.append(
            f"{s.in_flight:>9} {s.games:>5} {s.seconds:>8.1f} {s.decisions:>9} "
            f"{s.decisions_per_s:>7.2f} {ratio:>5.2f}x {s.per_decision('tokens_in'):>14.0f} "
            f"{s.per_decision('tokens_out'):>13.1f} {s.tokens_per_game:>9.0f} "
            f"{s.total('reasks'):>6} {s.total('retries'):>7} {s.total('fallbacks'):>9} "
            f"{reuse:>11}"
        )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> list[Setting]:
    path = resolve_agent_file(args.agent)
    if path is None:
        raise SystemExit(f"no agent file {args.agent!r}")
    definition = load_agent_definition(path)
    changes: dict[str, object] = {}
    if args.base_url:
        changes["base_url"] = args.base_url
    if args.model:
        changes["model"] = args.model
    if args.max_concurrency:
        changes["max_concurrency"] = args.max_concurrency
    server = None
    if definition.is_local and not args.base_url:
        # our own verbose server, addressed like any endpoint, so its log shows cache hits
        from mafia_arena.llm.local_server import LocalServer

        server = await asyncio.to_thread(LocalServer(verbose=True).start)
        changes.update(base_url=server.base_url, structured_output_format="json_object")
    if changes:
        definition = definition.model_copy(update=changes)
    overrides = dict(_switch(item) for item in args.set)
    variant = load_variant(args.variant, overrides)
    try:
        await warm_up(definition, variant, args.players, args.others)
        cache = CacheLog(server.log_path if server is not None else None)
        settings = []
        for in_flight in [int(n) for n in args.in_flight.split(",")]:
            setting = await measure(
                definition,
                variant,
                args.players,
                args.llm_seats,
                args.others,
                args.games,
                in_flight,
            )
            reused = cache.reused_since_last()
            prompt = setting.total("tokens_in")
            setting.cache_reuse = reused / prompt if reused is not None and prompt else None
            settings.append(setting)
            print(table(settings).splitlines()[-1], flush=True)
        await aclose_shared_clients()
    finally:
        if server is not None:
            server.stop()
    return settings


def _switch(item: str) -> tuple[str, object]:
    key, _, raw = item.partition("=")
    try:
        return key, json.loads(raw)
    except json.JSONDecodeError:
        return key, raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="agents/local-smollm2.toml")
    parser.add_argument("--base-url", help="point the agent at another endpoint")
    parser.add_argument("--model", help="model name at that endpoint")
    parser.add_argument("--max-concurrency", type=int, help="override the agent's limit")
    parser.add_argument("--games", type=int, default=8, help="games per setting")
    parser.add_argument("--in-flight", default="1,4,8")
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=7)
    parser.add_argument("--llm-seats", type=int, default=3)
    parser.add_argument("--others", default="heuristic")
    parser.add_argument("--set", action="append", default=[], help="switch KEY=VALUE")
    args = parser.parse_args()
    settings = asyncio.run(main_async(args))
    print()
    print(
        f"{args.variant}, {args.players} players, {args.llm_seats} seats {args.agent}, "
        f"the rest {args.others}; the same {args.games} seeded games per setting"
    )
    print(table(settings))


if __name__ == "__main__":
    main()
