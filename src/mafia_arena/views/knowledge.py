"""`Knowledge`: a seat's facts, folded from the events admitted to that seat.

`apply` is the only way facts enter, and callers pass only events whose visibility
admits the seat (`SeatTracker` enforces it), so a view can hold nothing its seat may not
know. Facts: own role and faction, allies, who is alive, revealed roles, private night
results, the transcript of speeches, votes and nominations, and claims read from speech.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mafia_arena.engine.events import Event
from mafia_arena.speech.claims import Claim, extract_claims


@dataclass
class Knowledge:
    seat: int
    players: int = 0
    role: str | None = None
    faction: str | None = None
    roles_in_play: list[str] = field(default_factory=list)
    composition: dict[str, int] = field(default_factory=dict)
    allies: dict[int, str] = field(default_factory=dict)
    alive: list[bool] = field(default_factory=list)
    revealed: dict[int, str] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    known_results: dict[int, str] = field(default_factory=dict)
    claims: dict[int, list[Claim]] = field(default_factory=dict)
    votes: list[dict[int, int | None]] = field(default_factory=list)
    nominations: list[tuple[int, int]] = field(default_factory=list)
    day: int = 0
    phase: str = "setup"
    silenced: set[int] = field(default_factory=set)
    winner: str | None = None
    over: bool = False
    last_event: int = -1
    events: list[Event] = field(default_factory=list)

    def apply(self, event: Event) -> None:
        """Fold one admitted event into the facts."""
        self.events.append(event)
        self.last_event = event.seq
        self.day, self.phase = event.day, event.phase
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event.payload)

    # -- handlers, one per event kind that carries a fact
    def _on_setup(self, p: dict[str, Any]) -> None:
        self.players = p["players"]
        self.alive = [True] * self.players
        self.composition = dict(p["composition"])
        self.roles_in_play = list(p["composition"])

    def _on_role(self, p: dict[str, Any]) -> None:
        if p["seat"] == self.seat:
            self.role, self.faction = p["role"], p["faction"]

    def _on_role_change(self, p: dict[str, Any]) -> None:
        if p["seat"] == self.seat:
            self.role, self.faction = p["role"], p.get("faction", self.faction)

    def _on_allies(self, p: dict[str, Any]) -> None:
        self.allies.update({int(s): r for s, r in p["allies"].items()})

    def _on_death(self, p: dict[str, Any]) -> None:
        self.alive[p["seat"]] = False
        if "role" in p:
            self.revealed[p["seat"]] = p["role"]

    def _on_reveal(self, p: dict[str, Any]) -> None:
        self.revealed[p["seat"]] = p["role"]

    def _on_night_result(self, p: dict[str, Any]) -> None:
        self.results.append(dict(p))
        if p.get("action") == "check" and p["result"] in ("mafia", "innocent"):
            self.known_results[p["target"]] = p["result"]

    def _on_speech(self, p: dict[str, Any]) -> None:
        if p.get("kind") == "night_chat":
            return  # team talk is not a public claim; it stays in `events`
        claims = _claims_in(p["text"], tuple(self.roles_in_play))
        if claims:
            self.claims.setdefault(p["seat"], []).extend(claims)

    def _on_votes(self, p: dict[str, Any]) -> None:
        self.votes.append({int(v): t for v, t in p["votes"].items()})

    def _on_nomination(self, p: dict[str, Any]) -> None:
        self.nominations.append((p["seat"], p["target"]))

    def _on_silenced(self, p: dict[str, Any]) -> None:
        self.silenced = set(p["seats"])

    def _on_phase(self, p: dict[str, Any]) -> None:
        if p["phase"] == "night":
            self.silenced = set()

    def _on_game_over(self, p: dict[str, Any]) -> None:
        self.over, self.winner = True, p["winner"]
        self.revealed.update({int(s): r for s, r in p["roles"].items()})

    # -- derived
    def living(self) -> list[int]:
        return [s for s, a in enumerate(self.alive) if a]


@lru_cache(maxsize=8192)
def _claims_in(text: str, roles: tuple[str, ...]) -> tuple[Claim, ...]:
    """`extract_claims`, memoised: every seat that hears a speech reads the same text
    (claims are frozen, so sharing them is safe); this was a third of env step time."""
    return tuple(extract_claims(text, roles))
