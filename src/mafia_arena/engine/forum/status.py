"""Statuses: the status message's wording, what investigations see, what a reveal shows.

All wording comes from the variant (faction and role `title` and `status_line`), so the
rules here are the algorithms of dictator.md 2.3, 4.12 and 4.13 and nothing else.
"""

from __future__ import annotations

from mafia_arena.engine.forum.state import forum
from mafia_arena.engine.game import Game, seat_name

UNKNOWN = "Status unbekannt"
DARK_PAST = "hatte eine dunkle Vergangenheit"


def trait(game: Game, seat: int, name: str) -> bool:
    """Does the seat's current role carry trait `name`?"""
    return bool(game.variant.roles[game.state.role(seat)].traits.get(name))


def has_dark_past(game: Game, seat: int) -> bool:
    return bool(game.state.seats[seat].flags.get("dark_past"))


def is_question_mark(game: Game, seat: int) -> bool:
    return bool(game.state.seats[seat].flags.get("question_mark"))


def knows_status(game: Game, seat: int) -> bool:
    """A question mark learns his copied status on Day 2 and acts only from then on."""
    learns = game.state.seats[seat].flags.get("learns_on_day")
    return learns is None or game.state.day >= learns


def party_title(game: Game, faction: str) -> str:
    spec = game.variant.factions[faction]
    return spec.title or faction


def standard_status(game: Game, role: str, faction: str) -> str:
    """ "Partei – Rolle", or the party alone for a plain role (3.8: "Bürger")."""
    title = game.variant.roles[role].title
    party = party_title(game, faction)
    return f"{party} – {title}" if title else party


def true_status(game: Game, seat: int) -> str:
    """The seat's status in standard form; a question mark's ends in its own title."""
    s = game.state.seats[seat]
    role = game.variant.roles[s.role].told_as or s.role  # a dark past stays unnamed
    status = standard_status(game, role, s.faction)
    if is_question_mark(game, seat):
        status += f" ({game.variant.roles[s.card].title or s.card})"
    return status


def informed(game: Game, seat: int) -> bool:
    """An informed mafia member (4.0): knows his comrades (not the terrorist), and a
    question mark only once he has learnt his copy."""
    s = game.state.seats[seat]
    spec = game.variant.roles[s.role]
    return (
        s.alive and game.variant.side(s.faction) == "mafia" and bool(spec.knows_roles)
    ) and knows_status(game, seat)


def status_lines(game: Game, seat: int, role: str, faction: str) -> tuple[str, ...]:
    """The status message for `role` (2.3): the party line, then the role's own line."""
    spec = game.variant.roles[role]
    told = game.variant.roles[spec.told_as] if spec.told_as else spec
    lines: list[str] = []
    if told.party_line:
        lines.append(game.variant.factions[faction].status_line)
    if told.status_line:
        known = set(spec.knows_roles)
        if is_question_mark(game, seat):  # a copy also knows the one he copied (SD-17)
            known.add(role)
        comrades = ", ".join(
            seat_name(s.seat)
            for s in game.state.seats
            if s.seat != seat and s.alive and s.role in known and informed(game, s.seat)
        )
        lines.append(told.status_line.format(comrades=comrades))
    return tuple(line for line in lines if line)


def apparent_mafia(game: Game, seat: int, night: int, murdered: int | None) -> bool:
    """What an investigation sees in Night `night` (4.12): the terrorist (a role that
    appears innocent) looks citizen; a dark past looks mafia in Nights 1 and 2 unless
    murdered tonight; otherwise the true party."""
    s = game.state.seats[seat]
    if game.variant.roles[s.role].appears is not None:
        return game.variant.roles[s.role].appears == "mafia"
    if has_dark_past(game, seat):
        return seat != murdered and night in (1, 2)
    return game.variant.factions[s.faction].appears == "mafia"


def shown_status(game: Game, seat: int, cause: str) -> str | None:
    """The status announced when `seat` leaves the game by `cause` (4.13), or None.

    Causes: ``murder``, ``execution``, ``attack`` (the victim), ``attacker``, ``jail``,
    ``deposed``, ``disqualification``.
    """
    if cause in ("deposed", "disqualification"):
        return None
    s = game.state.seats[seat]
    if cause == "attacker":
        return standard_status(game, s.role, s.faction)
    state = forum(game)
    if cause == "execution" and state.passports.get(seat) == game.state.day - 1:
        return UNKNOWN
    if has_dark_past(game, seat):
        return party_title(game, s.faction) if cause == "murder" else DARK_PAST
    if seat in state.pointing:
        return state.pointing[seat]
    return true_status(game, seat)
