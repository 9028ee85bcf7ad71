"""`PalermoState`: what one Palermo game tracks besides the generic `GameState`.

Kept on `game.derived["palermo"]` (see `of`) so the generic engine stays unaware of
it. Only the Palermo rule modules mutate it; players learn its contents through events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mafia_arena.engine.player_states import StateBook

if TYPE_CHECKING:
    from mafia_arena.engine.catalogue import Fact
    from mafia_arena.engine.events import Visibility
    from mafia_arena.engine.game import Game

KEY = "palermo"


@dataclass(slots=True)
class Assassination:
    """The standing assassination submission of a night."""

    target: int
    assassin: int
    by: int


@dataclass(slots=True)
class Declaration:
    """One snitcher's half of a snitch declaration: the type and the named player."""

    kind: str
    """``simple`` (names the Informant), ``massacre_informant``, ``massacre_detective``
    (the two halves of the double snitch) or ``vendetta`` (names the Rival Mafioso)."""
    target: int


@dataclass(slots=True)
class PalermoState:
    """Player states, cards, the vote in progress, the night's submissions, counters."""

    states: StateBook
    cards: dict[int, str] = field(default_factory=dict)
    """The card each holder still holds (at most one per player)."""
    phase: str = "setup"
    round: int = 0
    # the vote of the round
    ballots: dict[int, int] = field(default_factory=dict)
    extra_vote: dict[int, int] = field(default_factory=dict)
    """Extra Vote players → their locked target (weight 2)."""
    extra_unlocked: set[int] = field(default_factory=set)
    """Extra Vote players whose target left: they may re-target once."""
    cancelled: set[int] = field(default_factory=set)
    exempt: set[int] = field(default_factory=set)
    imprisonment_standing: bool = False
    """An uncancelled Immediate Imprisonment was played this round."""
    echo: bool = False
    todays_victim: int | None = None
    """Assassinated at this round's NOON (may play Failed Assassination until VOTE CLOSE)."""
    took_part: set[int] = field(default_factory=set)
    """The seats holding a ballot at the end of the CHANGE WINDOW (7.2), recorded then by
    `vote.change_window`. Taking part is settled at that moment: a seat that leaves the
    Active state afterwards loses its ballot (4.3) but not its participation, so a seat
    sanctioned and released during VOTE-END ACTIONS is not charged an absence, and one
    still held at RESOLUTION has its consecutive count reset (`vote.charge_absences`)."""
    obliged: set[int] = field(default_factory=set)
    """The voters RESOLUTION charges an absence if they did not take part (7.1, 7.2):
    the Active players at VOTE CLOSE, less any who left the Active state and came back
    during the CHANGE WINDOW (they may vote there but are not obliged; see
    `changes.change`)."""
    voting_open: bool = True
    # imprisonment windows: seat → timed-phase ends still to come before it is final
    windows: dict[int, int] = field(default_factory=dict)
    imprisoned_round: dict[int, int] = field(default_factory=dict)
    """Imprisoned seat → the round its card was played (a cancel restores that round's
    vote only while it is still that round, before VOTE CLOSE)."""
    # absences
    absences_total: list[int] = field(default_factory=list)
    absences_consecutive: list[int] = field(default_factory=list)
    lawyer_used: bool = False
    cop_used: bool = False
    # the night
    block: int | None = None
    investigations: dict[int, int] = field(default_factory=dict)
    assassination: Assassination | None = None
    declarations: dict[int, Declaration] = field(default_factory=dict)
    snitch_used: str | None = None
    """The type of the game's one snitch, once declared and resolved."""
    vendetta_tonight: bool = False
    """Is tonight inside the vendetta window (8.4)? Settled when the night starts
    (`night.start_night`) and announced then: above 24 players the 50% rule is checked
    at the start of the Night, so a card that changes the Active count during the night
    (an imprisonment, a resurrection) neither closes nor opens the window announced."""
    activated: bool = False
    held_announcements: list[tuple[int, int, list[tuple[Fact, Visibility]]]] | None = None
    """While NOON resolves, each state change's events (where it is told: a permanent
    exit, another change, or after the announcement; the seat or place; the events),
    told together in an order that gives no cause away (`changes.hold_announcements`);
    None otherwise."""
    sanctioned: set[int] = field(default_factory=set)
    """Imprisoned by the moderator (4.4): no card window, only the moderator frees them."""
    moderated: int = 0
    """Moderator actions so far (a timed phase rechecks its moves after one)."""
    starting_players: int = 0
    used: dict[str, int] = field(default_factory=dict)
    """How often each card and ability was used (host bookkeeping for the benchmarks)."""

    def count(self, what: str) -> None:
        self.used[what] = self.used.get(what, 0) + 1


def of(game: Game) -> PalermoState:
    """The game's Palermo state (created by `flow.setup`)."""
    state: PalermoState = game.derived[KEY]
    return state
