"""Terminal mode: one person plays one seat in the terminal against bots.

The seat's text view is printed incrementally (`views.text.render_event` over the
events its `SeatTracker` admits — the same lines an LLM reads), and each decision is
read from stdin: the number of a listed choice, or, on a speaking turn, any text.
No timers: the game waits for the person. The game runs through `runner.play_match`
like any other match; optionally it is stored like a tournament game (a GameLog and a
results record with ``agent_kind`` ``human``).
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from mafia_arena.agents.base import Agent
from mafia_arena.agents.human import Action, HumanAgent, decision_for
from mafia_arena.engine.choices import Decision
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import replay
from mafia_arena.runner.match import MatchResult, play_match
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.text import name, render_event
from mafia_arena.views.view import SeatTracker, View


class TerminalHuman(HumanAgent):
    """A `HumanAgent` whose actions come from a line reader instead of a mailbox."""

    def __init__(
        self, name: str = "human", read: Callable[[str], str] = input, out: TextIO | None = None
    ) -> None:
        super().__init__(f"human:{name}")
        self.read = read
        self.out = out or sys.stdout
        self.cursor = 0

    def show_new(self, knowledge: Knowledge) -> None:
        """Print the events this seat has not seen yet, in log order."""
        for event in knowledge.events[self.cursor :]:
            line = render_event(event, knowledge.seat)
            if line:
                self.write(line)
        self.cursor = len(knowledge.events)

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def act(self, view: View) -> Decision:
        request = view.request
        if request is None:
            raise ValueError("act called without a request")
        self.show_new(view.knowledge)
        self.write(f"\nNOW ({name(view.seat)}): {request.prompt}")
        for index, label in enumerate(request.labels):
            self.write(f"  [{index}] {label}")
        if request.free_text:
            self.write("  (or type what you want to say)")
        while True:
            try:
                line = (await asyncio.to_thread(self.read, "> ")).strip()
            except EOFError:
                raise  # the runner records the default as a fallback
            action = Action(0, choice=int(line)) if line.isdigit() else Action(0, text=line)
            try:
                decision = decision_for(request, action)
            except IllegalDecision as exc:
                self.write(f"  ! {exc.reason}")
                continue
            self.stats.decisions += 1
            return decision


def _seat_agents(
    agents: str | Sequence[Agent], players: int, variant_name: str, overrides: dict[str, Any]
) -> list[Agent]:
    if not isinstance(agents, str):
        return list(agents)
    from mafia_arena.seating import seat_agents

    return seat_agents(agents, players, load_variant(variant_name, overrides))


def play_in_terminal(
    variant: str,
    players: int,
    human_seat: int,
    agents: str | Sequence[Agent] = "random",
    seed: int | None = None,
    overrides: dict[str, Any] | None = None,
    *,
    player_name: str = "human",
    read: Callable[[str], str] = input,
    out: TextIO | None = None,
    results_dir: Path | None = None,
    logs_dir: Path | None = None,
) -> MatchResult:
    """Play `human_seat` (0-based) yourself; bots from `agents` take the other seats.

    `agents` is a seating spec (``random``, ``a,b,c``, ``town=x,mafia=y``) or one agent
    per seat (the human seat's entry is replaced). With `results_dir`, the game is stored
    like a web game (log under `logs_dir`, default ``runs/terminal``). Returns the match.
    Without `seed`, a random one is drawn (so terminal games deal different cards) and
    printed only after the game.
    """
    overrides = dict(overrides or {})
    rules = load_variant(variant, overrides)
    if not 0 <= human_seat < players:
        raise ValueError(f"seat {human_seat + 1} does not exist with {players} players")
    seated = _seat_agents(agents, players, variant, overrides)
    if len(seated) != players:
        raise ValueError(f"{len(seated)} agents for {players} players")
    human = TerminalHuman(player_name, read, out)
    seated[human_seat] = human
    seed = secrets.randbelow(2**31) if seed is None else seed
    result = asyncio.run(play_match(rules, seated, seed, overrides))
    game = replay(result.log)
    human.show_new(SeatTracker(human_seat).update(game))
    human.write(f"(game seed {seed}: replay this deal with --seed {seed})")
    if results_dir is not None:
        from mafia_arena.web.storage import SeatEntry, results_record, save_game

        game_id = f"terminal-{secrets.token_hex(6)}"
        entries = [SeatEntry(a.name, a.kind, a.stats) for a in seated]
        save_game(
            result.log,
            lambda path: results_record(game, overrides, entries, game_id, path, "terminal"),
            Path(results_dir),
            Path(logs_dir or "runs/terminal"),
            game_id,
        )
    return result
