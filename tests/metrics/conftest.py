"""Fixtures of the metric tests: the hand-built game of `known_game.py`."""

from __future__ import annotations

import pytest
from tests.metrics.known_game import build_known_game

from mafia_arena.runner.log import GameLog


@pytest.fixture
def known_game() -> GameLog:
    return build_known_game()
