"""Readable names for a variant's ids in the text view (roles, intrigue cards, night steps).

Contract
--------
* `DisplayNames.of(variant)` takes the names from the variant's public rules alone: a
  role's `RoleSpec.display` (Palermo's ``known_a`` is "Known Mafioso A"), an intrigue
  card's `CardSpec.title` (``echo`` is "Echo from Beyond") and a night step's
  `NightStep.display` (``mafia_kill`` is "the mafia's kill"). It reads nothing of a game,
  so it can carry nothing hidden: a line names only the ids its event already holds.
* `role(id)`, `card(id)` and `step(id)` give the name, or the id itself where the
  variant gives none (every role of most variants) or does not know the id.
* `role_and_id(id)` and `card_and_id(id)` give ``"Known Mafioso A (known_a)"``: the
  lines that tell a seat its own role or card keep the id beside the name, because the
  id is what the rules text lists the role or card under and what a terminal player
  types (a card's choice is keyed by its id, a role claim by the role's id).
  `step_and_id(id)` gives ``"the mafia's kill (mafia_kill)"`` in the same way.
* `PLAIN` (no names) renders every id as it is: `views.text.render_event`'s default,
  for callers that hold no variant.

A step's name is a phrase written to stand inside the transcript's sentences ("Team
picks for the mafia's kill (round 1)", "You could not act tonight (the doctor's
protection)"), lower case like any phrase there; `NightStep.label` is something else,
the instruction a request shows the actor. The rules text defines each step under its
name with the id beside it, so a name in a transcript meets its rule, and the id a
request kind carries (``night:mafia_kill``) stays findable.

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
    """The readable name of each role, card and night step id that has one (see the
    module doc)."""

    roles: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    cards: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    steps: Mapping[str, str] = field(default_factory=lambda: _frozen({}))

    @classmethod
    def of(cls, variant: Variant) -> DisplayNames:
        """The names `variant` gives: each role's ``display``, each card's ``title``,
        each night step's ``display`` (only those that differ from the id, so a variant
        without names renders as before)."""
        roles = {role: spec.display for role, spec in variant.roles.items()}
        cards = {}
        if variant.palermo is not None:
            cards = {card: spec.title for card, spec in variant.palermo.cards.items()}
        steps = {step.name: step.display for step in variant.night}
        return cls(_named(roles), _named(cards), _named(steps))

    def role(self, role: str) -> str:
        """The role's name, else its id."""
        return self.roles.get(role, role)

    def card(self, card: str) -> str:
        """The card's name, else its id."""
        return self.cards.get(card, card)

    def step(self, step: str) -> str:
        """The night step's name, else its id."""
        return self.steps.get(step, step)

    def role_and_id(self, role: str) -> str:
        """``"Known Mafioso A (known_a)"``; the bare id for a role without a name."""
        shown = self.roles.get(role)
        return role if shown is None else f"{shown} ({role})"

    def card_and_id(self, card: str) -> str:
        """``"Echo from Beyond (echo)"``; the bare id for a card without a name."""
        shown = self.cards.get(card)
        return card if shown is None else f"{shown} ({card})"

    def step_and_id(self, step: str) -> str:
        """``"the mafia's kill (mafia_kill)"``; the bare id for a step without a name."""
        shown = self.steps.get(step)
        return step if shown is None else f"{shown} ({step})"


PLAIN = DisplayNames()
"""No names: every id rendered as it is."""
