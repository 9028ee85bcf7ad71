"""Voting procedures: named, parameterised algorithms that a day step calls.

Each procedure is a generator `procedure(game, params) -> Flow` that asks for votes,
publishes what the variant makes public, and executes at most one player. Ties and
every other draw use the game's seeded RNG, so they are logged and replayable.
"""

from collections.abc import Callable
from typing import Any

from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.voting.accuse_defend import accuse_defend
from mafia_arena.engine.voting.nominate_final import nominate_final
from mafia_arena.engine.voting.plurality import plurality

Procedure = Callable[[Game, Any], Flow]
"""Called with the step's typed parameters (`rules.params.VOTE_PARAMS`)."""

PROCEDURES: dict[str, Procedure] = {
    "plurality": plurality,
    "nominate_final": nominate_final,
    "accuse_defend": accuse_defend,
}


def register(name: str, procedure: Procedure) -> None:
    """Add a procedure (a variant module registers its own)."""
    PROCEDURES[name] = procedure
