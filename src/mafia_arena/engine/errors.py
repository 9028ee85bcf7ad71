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


class IllegalDisqualification(IllegalDecision):
    """The host may not disqualify this seat now (no such seat, already out of the game,
    or the variant has no disqualification). The game state is unchanged.

    A subclass of `IllegalDecision` because a disqualification is recorded and replayed
    as a host decision; code that guards decisions guards this too.
    """


class IllegalModeration(IllegalDecision):
    """The game master's ruling is not possible now (a variant without rulings, an
    unknown ruling, no such post, a sanction without a reason). The state is unchanged.

    A subclass of `IllegalDecision` for the reason `IllegalDisqualification` is.
    """
