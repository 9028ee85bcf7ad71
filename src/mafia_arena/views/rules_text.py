"""The rules of a variant in plain English, generated from the variant's own data.

An LLM player is told exactly what the engine does, because the text is built from the
same `Variant` object the engine runs: the composition for this player count, each
role's faction and night step, the day's procedure and the win rules.
"""

from __future__ import annotations

from mafia_arena.rules import Variant
from mafia_arena.rules.composition import deck_counts

_ACTIONS = {
    "kill": "chooses a player to kill",
    "shoot": "may shoot a player (optional)",
    "protect": "protects a player from being killed tonight",
    "check": "learns whether a player appears as mafia",
    "arrest": "arrests a player: that player cannot act and nothing affects them tonight",
    "steal": "steals a player's action for the night",
    "frame": "frames a player so they appear as mafia to checks tonight",
    "copy": "copies another player's ability and uses it",
    "defend": "protects a player from tomorrow's execution",
    "silence": "silences a player for tomorrow (cannot speak, vote or be voted)",
    "compare": "learns whether two players are on the same team",
    "watch": "learns who tried to kill a player tonight",
    "check_or_kill": "either checks a player or kills one",
}
_WIN = {
    "eliminated": "when no player of {factions} is alive",
    "parity": "when they are at least as many as all other living players",
    "sole_survivors": "when only they are left alive",
    "clan": "when no killer outside the team is alive and they are at least half the living",
    "solo": "when alive with no other killer and at most {others} other players left",
}
_VOTING = {
    "plurality": "Everyone votes at once for one player; the most-voted player is executed.",
    "nominate_final": (
        "Each player names up to two suspects in turn; the two most named go to a final "
        "vote (runoffs settle ties); the player with more votes is executed, and a tied "
        "final vote is decided by the most recently dead player."
    ),
    "accuse_defend": (
        "Each player accuses one suspect; the most accused defend themselves; a second "
        "vote among them decides who is executed."
    ),
}


def rules_text(variant: Variant, players: int) -> str:
    """A compact rules summary for `players` players of `variant`."""
    counts = deck_counts(variant, players)
    lines = [
        f"Game: {variant.title}. {variant.description}".strip(),
        f"Players: {players} (P1..P{players}). Roles in play: "
        + ", ".join(f"{c} {r}" for r, c in counts.items())
        + ".",
    ]
    lines.append("Teams and how they win:")
    for name, faction in variant.factions.items():
        wins = " or ".join(
            _WIN[w.type].format(factions=", ".join(w.factions) or "any other team", others=w.others)
            for w in faction.win
        )
        lines.append(f"- {name}: wins {wins}.")
    lines.append("Roles:")
    for role in counts:
        spec = variant.roles[role]
        steps = [s for s in variant.night if role in s.actors]
        acts = "; ".join(
            f"at night {_ACTIONS.get(s.action, s.action)}"
            + (" (together with their team)" if s.group else "")
            for s in steps
        )
        detail = spec.description or acts or "no night action"
        lines.append(f"- {role} ({spec.faction}): {detail}")
    first = variant.rules.first_phase
    lines.append(
        f"The game starts with the {first}. "
        + (
            "Dead players' roles are revealed."
            if variant.rules.reveal_on_death
            else "Dead players' roles stay hidden."
        )
    )
    for step in variant.day:
        if step.type == "discussion":
            lines.append(f"Each day: {step.rounds} round(s) of discussion, one speech each.")
        elif step.type == "vote":
            lines.append(_VOTING.get(step.procedure, step.procedure))
    return "\n".join(lines)
