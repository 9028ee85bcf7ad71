"""Playing styles: named presets of the heuristic's few free parameters.

One strategy, several temperaments. A `Style` changes how much a player talks, how
readily it accuses, when an investigator comes out, and how a mafioso lies; it never
changes what the player believes (the suspicion model is shared), so every preset stays
a competent player and the difference between presets is one of manner and risk.

Presets (agent names):

- ``heuristic`` — balanced: speaks every turn, accuses its top suspect once it has a
  reason, vouches for players it trusts; one mafioso in three teams fakes a checker.
- ``heuristic:liar`` — as mafia, one mafioso of the team claims the checker's role at
  its first speaking turn, then "checks" a town player as mafia on most days (framing)
  and now and then clears a partner; the partners back the fake results. As town it
  plays like ``heuristic`` (a town player never claims falsely in any preset). In
  Palermo the designated mafioso claims the Detective and posts one invented check a
  day in the same proportions (`palermo_claims.bluff_post`).
- ``heuristic:quiet`` — says little: no vouches, accuses only with a clear reason, an
  investigator comes out only when it has found mafia or is in danger; mafia never bluff.
- ``heuristic:aggressive`` — accuses from the first day and names a second suspect,
  investigators come out at once, mafia bluff and push their scapegoat harder.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Style:
    """The parameters one preset sets (see the module docstring for the presets)."""

    name: str
    accuse_above: float = 0.5
    """Town accuses its top suspect aloud only when that suspect's score exceeds this."""
    second_accusation: bool = False
    """Also name the second suspect (aggressive players spread the pressure)."""
    vouch: bool = True
    """Say so when a player looks clearly town."""
    day_one_talk: float = 0.6
    """Chance that a town player with nothing to go on still names a (random) suspect on
    day 1; each seat draws its own, so the table does not echo one name."""
    checker_reveal_day: int = 3
    """From this day on an investigator with results comes out even if not pressed."""
    bluff_chance: float = 0.35
    """Chance that a mafia team designates one member to fake an investigator."""
    bluff_day: int = 2
    """The first day the designated bluffer comes out (day 1 = its first speech)."""
    frame_rate: float = 0.7
    """Share of a bluffer's days with a new invented result that accuses a town player."""
    cover_rate: float = 0.15
    """Chance that an invented result clears a partner instead."""
    back_bluffer: bool = True
    """Partners echo the bluffer's fake accusations (a coordinated team)."""


BALANCED = Style("heuristic")
LIAR = Style(
    "heuristic:liar",
    bluff_chance=1.0,
    bluff_day=1,
    frame_rate=0.85,
    cover_rate=0.2,
)
QUIET = Style(
    "heuristic:quiet",
    accuse_above=1.5,
    vouch=False,
    day_one_talk=0.0,
    checker_reveal_day=5,
    bluff_chance=0.0,
)
AGGRESSIVE = Style(
    "heuristic:aggressive",
    accuse_above=-0.5,
    second_accusation=True,
    day_one_talk=1.0,
    checker_reveal_day=1,
    bluff_chance=0.6,
    bluff_day=1,
    frame_rate=0.9,
)

STYLES: dict[str, Style] = {s.name: s for s in (BALANCED, LIAR, QUIET, AGGRESSIVE)}
