"""`heuristic:liar`: the heuristic player, but as mafia it fakes an investigator's claims.

Why it exists: a town policy trained only against the plain heuristic learns to believe
every "My check: Px is mafia." (a heuristic mafioso rarely claims falsely), and then
loses to any mafia that lies. This opponent claims an investigating role on its first
speaking turn of the game, and on later days "checks" a living non-ally as mafia (or,
now and then, an ally as innocent). As town, and outside speaking turns, it plays
exactly like `heuristic`.
"""

from __future__ import annotations

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine.choices import Choice, Decision
from mafia_arena.views.view import View

INVESTIGATORS = ("detective", "commissar", "sheriff", "cop", "seer", "inspector")
LIE_RATE = 0.8  # share of later speaking turns with a fake check result


class LiarAgent(HeuristicAgent):
    name = "heuristic:liar"

    def decide(self, view: View) -> Decision:
        request = view.request
        if request is not None and request.kind == "speak" and _is_mafia(view):
            lie = self._lie(view, request.choices)
            if lie is not None:
                self.stats.decisions += 1
                return lie
        return super().decide(view)

    def _lie(self, view: View, choices: tuple[Choice, ...]) -> Choice | None:
        knowledge = view.knowledge
        if not self.notes.get("claimed"):
            role_claims = [
                c
                for c in choices
                if c.verb == "claim_role" and any(w in (c.value or "") for w in INVESTIGATORS)
            ]
            if role_claims:
                self.notes["claimed"] = True
                return self.rng.choice(role_claims)
        if self.rng.random() > LIE_RATE:
            return None
        allies = set(knowledge.allies) | {view.seat}
        frames = [
            c
            for c in choices
            if c.verb == "claim_result"
            and c.value == "mafia"
            and c.target not in allies
            and c.target is not None
            and knowledge.alive[c.target]
        ]
        covers = [
            c
            for c in choices
            if c.verb == "claim_result" and c.value == "innocent" and c.target in allies
        ]
        if covers and self.rng.random() < 0.2:
            return self.rng.choice(covers)
        return self.rng.choice(frames) if frames else None


def _is_mafia(view: View) -> bool:
    faction = view.knowledge.faction or ""
    return "mafia" in faction.lower()


def _register() -> None:
    from mafia_arena.agents.registry import register_scripted

    register_scripted(LiarAgent.name, LiarAgent)


_register()
