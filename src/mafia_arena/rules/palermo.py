"""The typed ``[palermo]`` table of a variant file: cards, phases, windows, limits.

Palermo (envs/palermo.toml, docs/rules/palermo.md) runs on a forum clock with intrigue
cards and player states instead of the night-step / day-step lists of the other
variants. What the engine needs as data lives here, so the rules text, the LLM prompts,
the env's action table and the engine all read one source: the cards with their deal
ratios and the phases each may be played in (3.4), the timed phases of a round and how
many moves a seat gets in each, the vendetta window by player count (8.4) and the
absence limits (7.2).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from mafia_arena.rules.numbers import refuse_loose_scalars

TimedPhase = Literal[
    "night_early",
    "night_late",
    "dead_time",
    "morning",
    "afternoon",
    "change_window",
]
CARD_PHASES: tuple[str, ...] = (
    "night_early",
    "night_late",
    "dead_time",
    "morning",
    "afternoon",
    "vote",
)
"""Where a card may be played; ``vote`` is the vote block (VOTE CLOSE to LAST WORDS)."""


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    strict_scalars = field_validator("*", mode="before")(classmethod(refuse_loose_scalars))


class CardSpec(_Spec):
    """One intrigue card (6.x): deal rule, timing windows, what it does in words."""

    title: str
    ratio: int | None = Field(default=None, ge=1)
    """One copy per `ratio` players (floor, at least 1); unset: `copies`."""
    copies: int = Field(default=1, ge=1)
    phases: tuple[
        Literal["night_early", "night_late", "dead_time", "morning", "afternoon", "vote"], ...
    ]
    description: str = ""

    def count(self, players: int) -> int:
        """How many copies a table of `players` gets (2.3: floor, at least one)."""
        if self.ratio is None:
            return self.copies
        return max(1, players // self.ratio)


class VendettaWindow(_Spec):
    """Up to `max_players` players, the vendetta is allowed on Nights 1..`nights`."""

    max_players: int = Field(ge=1)
    """A window up to 0 players (or fewer) would never apply: refused as a typo."""
    nights: int = Field(ge=0)


class PalermoSpec(_Spec):
    """Everything the Palermo engine reads from the variant file."""

    moves: int = Field(default=2, ge=1)
    """Moves (a vote, a card, an action, a post) a seat may make in one timed phase."""
    absences_consecutive: int = Field(default=2, ge=1)
    absences_total: int = Field(default=3, ge=1)
    max_rounds: int = Field(default=40, ge=1)
    """Safety net: past this many rounds the game is a draw (it always ends earlier)."""
    cards: dict[str, CardSpec]
    deal_first: str = "resurrection"
    """The card dealt first, split across camps when there are two or more copies."""
    deal_unique: str = "failed_assassination"
    """The unique card for a good-camp player other than the Rival Mafioso."""
    deal_order: tuple[str, ...]
    """The order in which the other cards are dealt (2.3 step 4)."""
    vendetta: tuple[VendettaWindow, ...]
    vendetta_above_share: float = 0.5
    """Above the last window's size: allowed on a Night that starts with at least this
    share of the starting players Active."""

    def vendetta_nights(self, players: int) -> int | None:
        """Nights 1..k on which the vendetta is allowed at this size; None: the share rule."""
        for window in sorted(self.vendetta, key=lambda w: w.max_players):
            if players <= window.max_players:
                return window.nights
        return None
