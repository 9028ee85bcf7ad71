"""Readable names for a variant's ids in the text view (roles, Palermo's intrigue cards).

Contract
--------
* `DisplayNames.of(variant)` takes the names from the variant's public rules alone: a
  role's `RoleSpec.display` (Palermo's ``known_a`` is "Known Mafioso A") and an intrigue
  card's `CardSpec.title` (``echo`` is "Echo from Beyond"). It reads nothing of a game,
  so it can carry nothing hidden: a line names only the ids its event already holds.
* `role(id)` and `card(id)` give the name, or the id itself where the variant gives
  none (every role of most variants) or does not know the id.
* `role_and_id(id)` and `card_and_id(id)` give ``"Known Mafioso A (known_a)"``: the
  lines that tell a seat its own role or card keep the id beside the name, because the
  id is what the rules text lists the role or card under and what a terminal player
  types (a card's choice is keyed by its id, a role claim by the role's id).
* `PLAIN` (no names) renders every id as it is: `views.text.render_event`'s default,
  for callers that hold no variant.

Night steps keep their ids (``mafia_kill``): a variant names a step by its id only
(`NightStep.label` is the instruction a request shows the actor, not a name), and the
rules text calls each step by that id, so the transcript does too.

Why names are handed to the view rather than read from the events: an event carries
ids (the log stores them, replays and the numeric encoder read them), and which name an
id has belongs to the variant, which the seat's tracker knows (`views.view.SeatTracker`)
and hands to the seat's transcript.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from mafia_arena.rules import Variant

__all__ = ["PLAIN", "DisplayNames"]


def _frozen(names: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(names))


def _named(names: Mapping[str, str]) -> Mapping[str, str]:
    """The ids whose name says something else than the id (an empty name is none)."""
    return _frozen({key: shown for key, shown in names.items() if shown and shown != key})


@dataclass(frozen=True, slots=True)
class DisplayNames:
    """The readable name of each role and card id that has one (see the module doc)."""

    roles: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    cards: Mapping[str, str] = field(default_factory=lambda: _frozen({}))

    @classmethod
    def of(cls, variant: Variant) -> DisplayNames:
        """The names `variant` gives: each role's ``display``, each card's ``title``
        (only those that differ from the id, so a plain variant renders as before)."""
        roles = {role: spec.display for role, spec in variant.roles.items()}
        cards = {}
        if variant.palermo is not None:
            cards = {card: spec.title for card, spec in variant.palermo.cards.items()}
        return cls(_named(roles), _named(cards))

    def role(self, role: str) -> str:
        """The role's name, else its id."""
        return self.roles.get(role, role)

    def card(self, card: str) -> str:
        """The card's name, else its id."""
        return self.cards.get(card, card)

    def role_and_id(self, role: str) -> str:
        """``"Known Mafioso A (known_a)"``; the bare id for a role without a name."""
        shown = self.roles.get(role)
        return role if shown is None else f"{shown} ({role})"

    def card_and_id(self, card: str) -> str:
        """``"Echo from Beyond (echo)"``; the bare id for a card without a name."""
        shown = self.cards.get(card)
        return card if shown is None else f"{shown} ({card})"


PLAIN = DisplayNames()
"""No names: every id rendered as it is."""
