"""The rules text of a forum game with a dictator (``rules.flow = "dictator"``).

The deck, the roles and when each night form runs come from the validated variant;
the dictatorship, the resolution order and the channels are the flow's own rules
(`engine.forum`), written out here once so every LLM player reads the same text.
"""

from __future__ import annotations

from mafia_arena.rules import Variant
from mafia_arena.rules.spec import NightStep

PARITY = {"even": "even nights only", "odd": "odd nights only", "all": "every night"}


def _when(step: NightStep) -> str:
    first = "from Night 0" if step.from_night == 0 else f"from Night {step.from_night}"
    if step.action == "copy_status":
        return "Night 0 only"
    if step.action == "murder":
        return f"{first}, every night, while holding the kill authority"
    return f"{first}, {PARITY[step.limits.nights]}"


def forum_rules_text(variant: Variant, players: int | None, head: list[str]) -> str:
    """`head` is the generic text's opening (title, players and deck)."""
    forum = variant.rules.forum
    lines = list(head)
    lines.append(
        "Parties: citizens and mafia. The citizens win when no mafia member is left "
        "in the game; the mafia win when no citizen is left, or when the dictator is a mafia "
        "member and the citizens are no more than the mafia. Everyone of the winning party "
        "wins, alive or not."
    )
    lines.append("Roles:")
    for role, spec in variant.roles.items():
        steps = [s for s in variant.night if role in s.actors]
        forms = "; ".join(f"{s.label} ({_when(s)})" for s in steps)
        title = spec.title or variant.factions[spec.faction].title
        line = f"- {role} ({spec.faction}, announced as {title!r}): {spec.description}"
        lines.append(line + (f" Night forms: {forms}." if forms else ""))
    acts = ["post in the thread"]
    if forum.private_messages:
        acts.append("write private messages (to one player or a group)")
    if forum.newspaper:
        acts.append("place newspaper ads")
    if forum.testaments:
        acts.append("write the testament")
    acts.append("hand the game master one of their forms")
    lines += [
        "Phases: Night 0, Day 1, Night 1, Day 2, ... In every phase each player may act "
        f"up to {forum.ticks} times before saying they are done: {', '.join(acts[:-1])}, "
        f"or {acts[-1]}. The last form of a kind counts.",
        "The dictator: all players elect him in Night 0 (only the winner is announced). "
        "Each day he alone orders one execution. Each night every other player may call "
        "a revolution naming a successor: more than half of the players in the game "
        "depose the dictator (his status stays secret) and the most-named player takes "
        "the office. No ballot or count of an election or a revolution is ever published. "
        "A dictator's own special role is suspended; he cannot be murdered. "
        "Whoever queries or compares the dictator is thrown into jail.",
        "The mafia's kill authority sends one murder each night with a death message; "
        "without a message nobody dies. Night results come the next morning.",
        "Statuses are announced on death; a deposed or disqualified player's is not.",
    ]
    if forum.newspaper:
        lines.append(
            f"Newspaper: anonymous ads under pseudonyms, at most "
            f"{forum.pseudonyms_per_edition} pseudonyms per player and one ad per "
            "pseudonym per edition; one edition at every phase end, ads in random order; "
            "pseudonyms can be given away and are never revealed."
        )
    if not forum.private_messages:
        lines.append("There are no private messages: players talk only in the thread.")
    if forum.testaments:
        changes = forum.testament_changes_per_round
        often = "once" if changes == 1 else "twice" if changes == 2 else f"{changes} times"
        lines.append(
            f"Testament: public or to chosen players, changed at most {often} per round, "
            "delivered when you leave the game (not on disqualification)."
        )
    if forum.inactivity_warnings is not None:
        lines.append(
            f"Post in the thread every day: a silent day (and the night after it) earns a "
            f"warning; {forum.inactivity_warnings} warnings disqualify."
        )
    lines.append("Nothing may prove a status; the game master's messages are yours alone.")
    return "\n".join(lines)
