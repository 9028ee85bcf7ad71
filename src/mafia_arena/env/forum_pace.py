"""Forum pacing for the envs: rounds that show nothing early, windows of a fixed length.

The engine asks a window's rounds prompt by prompt and ends the window as soon as every
living seat has said it is done (`engine.forum.window`). The envs take a round as one
turn of every living seat, those not asked waiting. Two things would still show a seat
what others did in private, so this module keeps both from it:

- within a round, what the round's answers caused (a form noted, an attack, the
  window's end) is shown when the round is over, not when the last asked seat answers:
  which seat that was (the highest still going) would otherwise show in who saw it;
- a window always takes `rules.forum.ticks` rounds. When the engine's window ends
  early, the rounds it did not need are waiting rounds: nobody is asked, every seat
  alive at the window's end takes a turn that can only wait, and every view stays cut
  where the window's rounds ended (`Game.window_ends`), so the thread, the phase's
  outcome and the next window appear after the last round, as after a window that ran
  in full. Counted in turns, an early end would tell a seat that passed whether someone
  else was still writing private messages or handing in role forms.

The web app paces windows by time instead (`web/`); `rl.TeamEnv`, which shows a seat
only its own decisions, runs without this pacing.
"""

from __future__ import annotations

from dataclasses import dataclass

from mafia_arena.engine import Game
from mafia_arena.rules import Variant


@dataclass
class ForumPace:
    """What the seats may see now, and the waiting rounds still due in this window."""

    ticks: int
    enabled: bool
    rounds: int = 0
    """Rounds played in the current window."""
    seen: int = 0
    """How many of `Game.window_ends` have been taken into account."""
    waiting: int = 0
    """Waiting rounds left before the window's end is shown (0: none due)."""
    shown: int = 0
    """How many events of the log the seats may see (fixed from round to round)."""
    living: tuple[int, ...] = ()
    """The living seats as the seats know them: the ones that take this round's turns."""

    @classmethod
    def for_variant(cls, variant: Variant, *, enabled: bool) -> ForumPace:
        """On for forum games when `enabled` (the envs' fixed pacing), off otherwise."""
        forum_game = variant.rules.flow == "dictator"
        return cls(variant.rules.forum.ticks, enabled and forum_game)

    def start(self, game: Game) -> None:
        """A new game: its first round opens on everything logged so far."""
        self.rounds, self.seen, self.waiting = 0, 0, 0
        self._show_all(game)

    @property
    def cut(self) -> int | None:
        """How many events of the log the seats may see (None: no pacing, all)."""
        return self.shown if self.enabled else None

    def close_round(self, game: Game) -> None:
        """A round is over: show what it caused, or start the waiting rounds if the
        engine's window ended before its last round."""
        if not self.enabled:
            return
        if self.waiting:
            self.waiting -= 1
            if not self.waiting:
                self._show_all(game)
            return
        self.rounds += 1
        ends = game.window_ends
        if len(ends) > self.seen:
            self.seen = len(ends)
            rounds, self.rounds = self.rounds, 0
            if rounds < self.ticks:
                self.waiting = self.ticks - rounds
                self.shown, self.living = ends[-1]
                return
        self._show_all(game)

    def _show_all(self, game: Game) -> None:
        self.shown = len(game.events)
        self.living = tuple(game.state.living_seats())
