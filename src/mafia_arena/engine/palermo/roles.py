"""The roles the Palermo rules name, and the three attributes of every role (2.1).

The variant file gives each role its camp (`faction`), its formal team (`appears`:
what the Detective, the Medium and Pythia see) and whether it is a killer
(`traits.killer`). The rules below name roles where the seed does (the Mayor's mark,
the snitch's targets), so those names are fixed here, once.
"""

from __future__ import annotations

from mafia_arena.rules import Variant

KNOWN_A = "known_a"
KNOWN_B = "known_b"
HIDDEN = "hidden"
ARCHMAFIOSO = "archmafioso"
CORRUPT_COP = "corrupt_cop"
PROSTITUTE = "prostitute"
RIVAL = "rival"
DETECTIVE = "detective"
MEDIUM = "medium"
INFORMANT = "informant"
MAYOR = "mayor"
LAWYER = "lawyer"
ROOMMATE = "roommate"
CITIZEN = "citizen"

MAFIA_TEAM = frozenset({KNOWN_A, KNOWN_B, HIDDEN, ARCHMAFIOSO})
"""The four killer roles ("the mafia team")."""
KNOWN = frozenset({KNOWN_A, KNOWN_B})

MAFIA_CAMP = "mafia"
GOOD_CAMP = "town"
RIVAL_CAMP = "rival"
"""The activated Rival Mafioso's camp (solo)."""


def formal_team(variant: Variant, role: str) -> str:
    """``mafia`` or ``innocent``: the formal team, as investigations and Pythia see it."""
    return variant.appearance(role)


def is_formal_mafia(variant: Variant, role: str) -> bool:
    return formal_team(variant, role) == "mafia"


TITLES = {
    KNOWN_A: "Known Mafioso A",
    KNOWN_B: "Known Mafioso B",
    HIDDEN: "Hidden Mafioso",
    ARCHMAFIOSO: "Archmafioso",
    CORRUPT_COP: "Corrupt Cop",
    PROSTITUTE: "Prostitute",
    RIVAL: "Rival Mafioso",
    DETECTIVE: "Detective",
    MEDIUM: "Medium",
    INFORMANT: "Informant",
    MAYOR: "Mayor",
    LAWYER: "Lawyer",
    ROOMMATE: "Roommate",
    CITIZEN: "Simple Citizen",
}
"""The role names as announcements write them."""


def title(role: str) -> str:
    return TITLES.get(role, role.replace("_", " ").title())
