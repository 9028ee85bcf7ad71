"""The rules engine: a deterministic game over an append-only, visibility-tagged log."""

from mafia_arena.engine.choices import PASS, Choice, Decision, Request, Speech
from mafia_arena.engine.errors import (
    GameOver,
    IllegalDecision,
    IllegalDisqualification,
    IllegalModeration,
)
from mafia_arena.engine.events import HOST, PUBLIC, Event, Visibility, private
from mafia_arena.engine.game import Game, seat_name

__all__ = [
    "HOST",
    "PASS",
    "PUBLIC",
    "Choice",
    "Decision",
    "Event",
    "Game",
    "GameOver",
    "IllegalDecision",
    "IllegalDisqualification",
    "IllegalModeration",
    "Request",
    "Speech",
    "Visibility",
    "private",
    "seat_name",
]
