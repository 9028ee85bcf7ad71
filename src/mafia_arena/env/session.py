"""`GameSession`: the engine-facing core shared by the AEC and the Parallel env.

It owns one `Game` and, per seat, a `SeatTracker` (the seat's `View`), the numeric
encoder and an incremental text transcript; it maps action ids to choices and back.
The PettingZoo classes only add the agent bookkeeping of their API.

Pickling: a running `Game` holds a generator and does not pickle, so a session pickles
as ``(variant, players, overrides, seed, decisions)`` and rebuilds the game on load by
replaying the decisions — the engine's determinism makes that exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from mafia_arena.engine import Choice, Game, IllegalDecision, Request, Speech
from mafia_arena.env.actions import ActionTable, build_action_table
from mafia_arena.rules import Variant, load_variant
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.text import render_view
from mafia_arena.views.view import SeatTracker, View


class IllegalActionError(ValueError):
    """An action that is not legal for the seat now; nothing was changed."""


class GameSession:
    """A variant at a player count, and the current game with its per-seat views."""

    def __init__(
        self,
        variant: str | Path | Variant,
        players: int,
        overrides: Mapping[str, Any] | None = None,
        max_text: int | None = None,
    ) -> None:
        self.source = variant
        self.overrides = dict(overrides or {})
        self.variant = (
            variant if isinstance(variant, Variant) else load_variant(variant, self.overrides)
        )
        self.players = players
        self.max_text = max_text
        self.table: ActionTable = build_action_table(self.variant, players)
        self.encoder = ObservationEncoder(self.variant, players)
        self.game: Game | None = None
        self.seed = 0
        self._trackers: list[SeatTracker] = []
        self._observed: list[tuple[View, dict[str, np.ndarray]] | None] = []

    # ------------------------------------------------------------------ lifecycle
    def new_game(self, seed: int) -> Game:
        self.seed = seed
        self.game = Game(self.variant, self.players, seed)
        self._trackers = [SeatTracker(s) for s in range(self.players)]
        self._observed = [None] * self.players
        self.encoder.reset()
        return self.game

    @property
    def over(self) -> bool:
        return self.game is not None and self.game.over

    def pending_seats(self) -> list[int]:
        """Seats that must decide now, in seat order."""
        return sorted(self.game.pending()) if self.game is not None else []

    # ------------------------------------------------------------------ views
    def view(self, seat: int) -> View:
        return self._trackers[seat].view(self.game)

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """The seat's observation and action mask.

        Built only when the seat's view changed since its last observation (new events
        for it, or a new request); otherwise the same arrays come back. A Parallel step
        observes every seat, and most seats' views do not change in most steps (a night
        step, a vote being cast). Callers must not write into them.
        """
        view = self.view(seat)
        last = self._observed[seat]
        if last is not None and last[0] is view:
            return last[1]
        if last is not None and last[0].request is view.request:
            mask = last[1]["action_mask"]  # same request, same legal actions
        else:
            mask = self.table.mask(view.request)
        obs = {"observation": self.encoder.encode(view), "action_mask": mask}
        self._observed[seat] = (view, obs)
        return obs

    def info(self, seat: int) -> dict[str, Any]:
        """The seat's text view and its legal choices with labels (for language agents)."""
        view = self.view(seat)
        info: dict[str, Any] = {"seat": seat, "request": _request_info(view.request, self.table)}
        if self.max_text != 0:
            text = render_view(view)
            if self.max_text is not None and len(text) > self.max_text:
                text = text[-self.max_text :]
            info["text"] = text
        if self.game is not None and self.game.over:
            state = self.game.state
            info["result"] = {"winner": state.winner, "winners": list(state.winners)}
        return info

    def text(self, seat: int) -> str:
        """The seat's whole text view (equal to `views.text.render_view`)."""
        return render_view(self.view(seat))

    def render(self, render_mode: str | None, seat: int) -> str | None:
        """PettingZoo `render` for both environments: the seat's text view, printed in
        ``"human"`` mode (returning None), returned in ``"ansi"`` mode; None before a game."""
        if render_mode is None or self.game is None:
            return None
        text = self.text(seat)
        if render_mode == "human":
            print(text)
            return None
        return text

    # ------------------------------------------------------------------ acting
    def check_action(self, seat: int, action: Any) -> Choice:
        """The choice `action` stands for, if it is legal for `seat` now; else raise."""
        request = self._request(seat)
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise IllegalActionError(
                f"player_{seat}: action {action!r} is not an integer action id"
            ) from None
        if not 0 <= index < self.table.size:
            raise IllegalActionError(
                f"player_{seat}: action {index} is outside 0..{self.table.size - 1}"
            )
        choice = self.table.choice_of(index)
        if choice not in request.choices:
            raise IllegalActionError(
                f"player_{seat}: action {index} ({choice.key}) is not legal for "
                f"{request.kind!r}; legal ids: {self.table.ids(request)}"
            )
        return choice

    def act(self, seat: int, action: Any) -> None:
        self.game.submit(seat, self.check_action(seat, action))

    def say(self, seat: int, text: str) -> None:
        """Submit free text for a speaking turn (requests with `free_text`)."""
        request = self._request(seat)
        if not request.free_text:
            raise IllegalActionError(
                f"player_{seat}: {request.kind!r} does not accept free text; use an action id"
            )
        try:
            self.game.submit(seat, Speech(str(text)))
        except IllegalDecision as exc:
            raise IllegalActionError(f"player_{seat}: {exc.reason}") from None

    def _request(self, seat: int) -> Request:
        if self.game is None:
            raise RuntimeError("reset() the environment before stepping it")
        request = self.game.request(seat)
        if request is None:
            raise IllegalActionError(f"player_{seat} has nothing to decide now")
        return request

    def team_rewards(self) -> dict[int, float]:
        """+1 for the winning faction's seats, -1 for the others, 0 for all on a draw."""
        state = self.game.state
        if state.winner is None:
            return dict.fromkeys(range(self.players), 0.0)
        winners = set(state.winners)
        return {s: 1.0 if s in winners else -1.0 for s in range(self.players)}

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "overrides": self.overrides,
            "players": self.players,
            "max_text": self.max_text,
            "seed": self.seed,
            "decisions": None if self.game is None else list(self.game.decisions),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(
            state["source"],
            state["players"],
            state["overrides"],  # type: ignore[misc]
            state["max_text"],
        )
        self.seed = state["seed"]
        if state["decisions"] is not None:
            self.new_game(self.seed)
            for record in state["decisions"]:
                self.game.resubmit(record)


def _request_info(request: Request | None, table: ActionTable) -> dict[str, Any] | None:
    if request is None:
        return None
    return {
        "kind": request.kind,
        "prompt": request.prompt,
        "free_text": request.free_text,
        "max_chars": request.max_chars,
        "default": request.default,
        "choices": [
            {"action": i, "key": table.keys[i], "label": label}
            for i, label in zip(table.ids(request), request.labels, strict=True)
        ],
    }
