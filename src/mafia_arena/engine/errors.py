"""Typed errors of the engine."""


class IllegalDecision(ValueError):
    """A submitted decision is not legal now. The game state is unchanged.

    `reason` says why in words a player (or an LLM re-ask prompt) can act on.
    """

    def __init__(self, seat: int, reason: str) -> None:
        self.seat = seat
        self.reason = reason
        super().__init__(f"seat {seat}: {reason}")


class GameOver(RuntimeError):
    """A decision was submitted after the game ended."""
