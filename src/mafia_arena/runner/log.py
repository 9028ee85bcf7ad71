"""`GameLog`: a game's header and event log as JSON lines; `replay` rebuilds the game.

The header holds what determines the game (variant name and switches, players, seed);
the events include the host-only decision records, so the log alone replays to the same
final state and the same events.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia_arena.engine.catalogue import LOG_VERSION, DecisionRecord, GameEnded
from mafia_arena.engine.events import Event
from mafia_arena.engine.game import Game
from mafia_arena.rules import load_variant

FORMAT = f"mafia-arena-log/{LOG_VERSION}"
READABLE = ("mafia-arena-log/1", FORMAT)
"""Formats `load` reads: version 1 payloads are upgraded by `engine.catalogue`."""


@dataclass
class GameLog:
    variant: str
    overrides: dict[str, Any]
    players: int
    seed: int
    events: list[Event]
    seating: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_game(
        cls,
        game: Game,
        overrides: dict[str, Any] | None = None,
        seating: list[str] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> GameLog:
        # the switch values in force, plus any dotted overrides, so the log replays alone
        switches = {**game.variant.params, **(overrides or {})}
        return cls(
            game.variant.name,
            switches,
            game.players,
            game.seed,
            list(game.events),
            list(seating or []),
            dict(meta or {}),
        )

    def header(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "variant": self.variant,
            "overrides": self.overrides,
            "players": self.players,
            "seed": self.seed,
            "seating": self.seating,
            "meta": self.meta,
        }

    def to_jsonl(self) -> str:
        lines = [json.dumps(self.header(), sort_keys=True)]
        lines += [json.dumps(e.to_json(), sort_keys=True) for e in self.events]
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.to_jsonl(), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        return cls.loads(Path(path).read_text(encoding="utf-8"), str(path))

    @classmethod
    def loads(cls, text: str, source: str = "<log>") -> GameLog:
        """A log from its JSONL text (what `to_jsonl` wrote); `source` names it in errors."""
        lines = text.splitlines()
        header = json.loads(lines[0])
        if header.get("format") not in READABLE:
            raise ValueError(f"{source}: not a {FORMAT} file")
        events = [Event.from_json(json.loads(line)) for line in lines[1:] if line.strip()]
        return cls(
            header["variant"],
            header["overrides"],
            header["players"],
            header["seed"],
            events,
            header.get("seating", []),
            header.get("meta", {}),
        )

    @property
    def decisions(self) -> list[dict[str, Any]]:
        return [e.fact.record() for e in self.events if isinstance(e.fact, DecisionRecord)]

    @property
    def result(self) -> GameEnded | None:
        for event in reversed(self.events):
            if isinstance(event.fact, GameEnded):
                return event.fact
        return None


def replay(log: GameLog, *, upto: int | None = None) -> Game:
    """Rebuild the game by resubmitting the logged decisions (the first `upto` of them)."""
    game = Game(load_variant(log.variant, log.overrides), log.players, log.seed)
    for record in log.decisions[:upto]:
        game.resubmit(record)
    return game
