"""Player states: active, ghost, imprisoned, permanently out (Palermo 4.1–4.3).

Most variants know two states, alive and dead. Palermo adds two more and lets players
come back: a *ghost* (out of the game, role hidden, may be resurrected), an
*imprisoned* player (frozen while a cancel window is open) and a *permanently out*
player (never returns; revealed unless a snitch took them). This module is the
variant-neutral part: the states, what each state may do (the capability table of
4.2), which moves between states exist and for which causes (4.3), and whether a move
reveals the role (3.5: only a permanent exit does, snitch exits excepted). Rule modules
keep one `StateBook` per game and ask it instead of testing ``alive``.

Why a table and not flags on the seat: every rule that asks "may this seat vote / be
targeted / play a card" then reads one row, so a new state or a changed capability is
one edit here, and the tests walk the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class PlayerState(StrEnum):
    """Where a player stands in the game."""

    ACTIVE = "active"
    GHOST = "ghost"
    IMPRISONED = "imprisoned"
    OUT = "out"
    """Permanently out: never returns."""


class Capability(StrEnum):
    """One row of the capability table (Palermo 4.2)."""

    POST = "post"
    """Post in the public discussion."""
    POST_CHANNEL = "post_channel"
    """Post in a private channel (mafia, roommates)."""
    VOTE = "vote"
    VOTED_FOR = "voted_for"
    PLAY_CARDS = "play_cards"
    ABILITIES = "abilities"
    """Use role abilities (night actions, vote-end powers)."""
    RESURRECTABLE = "resurrectable"
    GRAVE_ROBBABLE = "grave_robbable"
    ORACLE_TARGET = "oracle_target"
    DETECTIVE_TARGET = "detective_target"
    MEDIUM_TARGET = "medium_target"
    IMPRISONABLE = "imprisonable"
    ASSASSINABLE = "assassinable"
    """Targetable by an assassination or by snitch consequences."""
    COUNTED = "counted"
    """Counted in the end conditions."""
    ABSENCES = "absences"
    """Charged with absences (the vote is mandatory)."""


_C = Capability
CAPABILITIES: dict[tuple[PlayerState, bool], frozenset[Capability]] = {
    (PlayerState.ACTIVE, False): frozenset(
        {
            _C.POST,
            _C.POST_CHANNEL,
            _C.VOTE,
            _C.VOTED_FOR,
            _C.PLAY_CARDS,
            _C.ABILITIES,
            _C.ORACLE_TARGET,
            _C.DETECTIVE_TARGET,
            _C.IMPRISONABLE,
            _C.ASSASSINABLE,
            _C.COUNTED,
            _C.ABSENCES,
        }
    ),
    (PlayerState.GHOST, False): frozenset(
        {_C.RESURRECTABLE, _C.GRAVE_ROBBABLE, _C.ORACLE_TARGET, _C.MEDIUM_TARGET}
    ),
    (PlayerState.GHOST, True): frozenset(
        {_C.POST, _C.VOTE, _C.RESURRECTABLE, _C.GRAVE_ROBBABLE, _C.ORACLE_TARGET, _C.MEDIUM_TARGET}
    ),
    (PlayerState.IMPRISONED, False): frozenset(),
    (PlayerState.OUT, False): frozenset(),
}
"""(state, echo voter) → what the player may do or have done to them (4.2). Only a
ghost can be an echo voter; reading the public thread is open to everyone and not a
row. A ghost reads its private channel but does not post in it."""

TRANSITIONS: dict[tuple[PlayerState, PlayerState], frozenset[str]] = {
    (PlayerState.ACTIVE, PlayerState.GHOST): frozenset(
        {"assassination", "vote", "rival_killer", "snitch"}
    ),
    (PlayerState.ACTIVE, PlayerState.IMPRISONED): frozenset({"imprisonment", "sanction"}),
    (PlayerState.IMPRISONED, PlayerState.ACTIVE): frozenset(
        {"cancel_imprisonment", "sanction_lifted"}
    ),
    (PlayerState.IMPRISONED, PlayerState.GHOST): frozenset({"imprisonment_final"}),
    (PlayerState.GHOST, PlayerState.ACTIVE): frozenset({"resurrection", "failed_assassination"}),
    (PlayerState.GHOST, PlayerState.OUT): frozenset({"grave_robbing"}),
    (PlayerState.ACTIVE, PlayerState.OUT): frozenset({"absences", "penalty", "snitch"}),
}
"""(from, to) → the causes that make that move (4.3). There is no voluntary leaving."""

UNREVEALED_EXITS = frozenset({"snitch"})
"""Permanent exits that keep the role hidden: they are announced as assassinations."""


def reveals(to: PlayerState, cause: str) -> bool:
    """Does a move to `to` for `cause` reveal the player's role (3.5)?

    Only a permanent exit reveals, and a snitch's permanent exit does not: ghosts never
    reveal, so a ghost that returns has given nothing away.
    """
    return to is PlayerState.OUT and cause not in UNREVEALED_EXITS


class IllegalTransition(ValueError):
    """A state change the transition table does not allow (a rule module's bug)."""


@dataclass(slots=True)
class StateBook:
    """Every seat's state, the echo-voter flag, and the moves between states.

    `move` is the one place a state changes; it checks the transition table, so a rule
    that tries an impossible move (resurrecting the imprisoned, grave-robbing the
    living) fails loudly instead of corrupting the game.

    The seat lists (`active`, `seats_that`) are tuples kept until the next `move` (or a
    change of `echo`): a timed phase asks every seat what it may do, and every offer
    starts from these lists, while states change only a few times a round.
    """

    states: list[PlayerState]
    echo: bool = False
    """Echo from Beyond is in effect: every ghost is an echo voter."""
    history: list[tuple[int, PlayerState, PlayerState, str]] = field(default_factory=list)
    _lists: dict[object, tuple[int, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """(capability or None for Active, echo) → the seats, since the last move."""

    @classmethod
    def all_active(cls, players: int) -> StateBook:
        return cls([PlayerState.ACTIVE] * players)

    def of(self, seat: int) -> PlayerState:
        return self.states[seat]

    def is_active(self, seat: int) -> bool:
        return self.states[seat] is PlayerState.ACTIVE

    def is_echo_voter(self, seat: int) -> bool:
        return self.echo and self.states[seat] is PlayerState.GHOST

    def capabilities(self, seat: int) -> frozenset[Capability]:
        state = self.states[seat]
        return CAPABILITIES[(state, self.echo and state is PlayerState.GHOST)]

    def can(self, seat: int, capability: Capability) -> bool:
        return capability in self.capabilities(seat)

    def seats_that(self, capability: Capability) -> tuple[int, ...]:
        """Seats with `capability` now, in seat order."""
        key = (capability, self.echo)
        found = self._lists.get(key)
        if found is None:
            found = self._lists[key] = tuple(
                s for s in range(len(self.states)) if self.can(s, capability)
            )
        return found

    def active(self) -> tuple[int, ...]:
        """Active seats now, in seat order."""
        found = self._lists.get(None)
        if found is None:
            found = self._lists[None] = tuple(
                s for s, st in enumerate(self.states) if st is PlayerState.ACTIVE
            )
        return found

    def in_state(self, state: PlayerState) -> list[int]:
        return [s for s, st in enumerate(self.states) if st is state]

    def may_move(self, seat: int, to: PlayerState, cause: str) -> bool:
        return cause in TRANSITIONS.get((self.states[seat], to), frozenset())

    def move(self, seat: int, to: PlayerState, cause: str) -> PlayerState:
        """Move `seat` to `to` for `cause`; returns the state it left.

        Raises `IllegalTransition` if the table has no such move for that cause.
        """
        before = self.states[seat]
        if not self.may_move(seat, to, cause):
            raise IllegalTransition(f"seat {seat}: {before.value} -> {to.value} by {cause!r}")
        self.states[seat] = to
        self._lists.clear()
        self.history.append((seat, before, to, cause))
        return before
