"""Public rule facts the heuristic reasons with: sides of roles, who checks or protects.

A `View` names its variant; the variant file is public (every player may read the
rules), so reading role → faction → side from it leaks nothing hidden. Overrides can
change counts but not these facts; counts come from the public setup event
(`Knowledge.composition`). When the variant cannot be loaded (a custom file that is not
on this machine) a name-based fallback keeps the agent playing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mafia_arena.rules import Variant

_EVIL_WORDS = ("mafia", "mafioso", "don", "godfather", "yakuza", "wolf", "maniac")


@dataclass(frozen=True)
class RuleBook:
    """What the rules say about roles and factions (not who holds them)."""

    name: str
    role_faction: Mapping[str, str] = field(default_factory=dict)
    faction_side: Mapping[str, str] = field(default_factory=dict)
    role_actions: Mapping[str, frozenset[str]] = field(default_factory=dict)
    role_appears: Mapping[str, str] = field(default_factory=dict)
    roles: tuple[str, ...] = ()
    # role -> is_evil, filled on first use: the answer is asked for every seat at every
    # decision, and the book never changes once built.
    _evil: dict[str, bool] = field(default_factory=dict, compare=False, repr=False)

    def side_of_faction(self, faction: str | None) -> str:
        """``town``, ``mafia`` or ``solo``; unknown factions are guessed from the name."""
        if faction is None:
            return "town"
        if faction in self.faction_side:
            return self.faction_side[faction]
        return "mafia" if _sounds_evil(faction) else "town"

    def side_of_role(self, role: str) -> str:
        if role in self.role_faction:
            return self.side_of_faction(self.role_faction[role])
        return "mafia" if _sounds_evil(role) else "town"

    def is_evil(self, role: str) -> bool:
        """True for roles the town wants dead (mafia and solo sides)."""
        evil = self._evil.get(role)
        if evil is None:
            evil = self._evil[role] = self.side_of_role(role) != "town"
        return evil

    def appearance(self, role: str) -> str:
        """What a check of `role` reports (``mafia`` / ``innocent`` / another word)."""
        return self.role_appears.get(role, "mafia" if self.is_evil(role) else "innocent")

    def roles_with(self, actions: Iterable[str]) -> frozenset[str]:
        """Roles that act in a night step whose action is one of `actions`."""
        wanted = set(actions)
        found = {r for r, acts in self.role_actions.items() if acts & wanted}
        if not found and "check" in wanted:
            found = {"detective"}
        if not found and "protect" in wanted:
            found = {"doctor"}
        return frozenset(found)

    @property
    def checker_roles(self) -> frozenset[str]:
        return self.roles_with(("check", "check_or_kill"))

    @property
    def protector_roles(self) -> frozenset[str]:
        return self.roles_with(("protect",))


def _sounds_evil(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _EVIL_WORDS)


def rulebook(variant: Variant) -> RuleBook:
    """The rule book of the variant being played (from `View.rules`; cached per object)."""
    cached = _BOOKS.get(id(variant))
    if cached is not None and cached[0] is variant:
        return cached[1]
    actions: dict[str, set[str]] = {r: set() for r in variant.roles}
    for step in variant.night:
        for actor in step.actors:
            actions.setdefault(actor, set()).add(step.action)
    book = RuleBook(
        name=variant.name,
        role_faction={r: s.faction for r, s in variant.roles.items()},
        faction_side={f: s.side for f, s in variant.factions.items()},
        role_actions={r: frozenset(a) for r, a in actions.items()},
        role_appears={r: variant.appearance(r) for r in variant.roles},
        roles=tuple(variant.roles),
    )
    if len(_BOOKS) > 64:
        _BOOKS.clear()
    _BOOKS[id(variant)] = (variant, book)  # the variant is kept, so its id stays its own
    return book


_BOOKS: dict[int, tuple[Variant, RuleBook]] = {}
