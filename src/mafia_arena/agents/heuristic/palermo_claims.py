"""Public check claims in Palermo: which ones the good camp believes, and the mafia's fakes.

Palermo's good camp votes the first mafioso named in a public check claim, so a check
claim is the strongest move at the table, and a lying mafioso's best weapon. Two halves:

- `credibility` reads the public record alone (the claims, the roles revealed on exit)
  and sorts the claimants, alike at every good-camp seat: a *liar* is a claimant the
  reveals contradict (a "mafia" result revealed formally a citizen, an "innocent" one
  revealed formally mafia, a claimed role that the seat or another seat was revealed to
  hold otherwise); a *doubtful* claimant shares a unique claimed role with another
  unrefuted claimant and has no "mafia" result confirmed by a reveal (one of the two is
  lying and the table cannot yet tell which). Neither one's results are believed.
- `bluff_post` is the lying mafioso's post: one designated member of the mafia team
  claims the Detective's role and publishes one invented result a day, mostly framing a
  non-ally (first the real checkers who threaten the team), sometimes clearing a
  partner; it never names a partner as mafia. Everything it uses is the seat's own
  View: its allies, the public claims.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mafia_arena.agents.heuristic.bluff import designated, invent_result
from mafia_arena.agents.heuristic.style import Style
from mafia_arena.engine.choices import Choice, shared_choice
from mafia_arena.engine.palermo.roles import DETECTIVE, MAFIA_TEAM, RIVAL
from mafia_arena.views.knowledge import Knowledge

FORMAL_MAFIA = MAFIA_TEAM | {RIVAL}
"""The roles a check, the Medium and Pythia see as formally mafia (2.1)."""
FAKE_ROLE = DETECTIVE
"""The role a lying mafioso claims: the one whose results the town reads as checks."""


@dataclass(frozen=True, slots=True)
class Credibility:
    """The claimants whose check claims the good camp does not believe."""

    liars: tuple[int, ...]
    """Claimants the reveals contradict, in the order they were found out."""
    doubtful: frozenset[int]
    """Claimants of a unique role another unrefuted claimant also claims."""

    def believed(self, seat: int) -> bool:
        return seat not in self.doubtful and seat not in self.liars


EVERYONE = Credibility((), frozenset())
"""Every claimant believed: to read what the claims say, trusted or not."""


def credibility(k: Knowledge) -> Credibility:
    """Sort the public claimants by what the reveals say of them (see the module)."""
    revealed = k.revealed
    claimed: dict[int, str] = {}
    liars: dict[int, None] = {}
    confirmed: set[int] = set()
    for said in k.said:
        claim = said.claim
        if claim.kind == "claim_role" and claim.value is not None:
            claimed.setdefault(said.seat, claim.value)
        elif claim.kind == "claim_result" and claim.target is not None:
            if claim.target not in revealed:
                continue
            formally = revealed[claim.target] in FORMAL_MAFIA
            if (claim.value == "mafia") != formally:
                liars[said.seat] = None
            elif formally:
                confirmed.add(said.seat)
    holders = {role: seat for seat, role in revealed.items()}
    for seat, role in claimed.items():
        holder = holders.get(role)
        unique = k.composition.get(role, 0) == 1
        if revealed.get(seat, role) != role or (unique and holder not in (None, seat)):
            liars[seat] = None
    rivals: dict[str, list[int]] = {}
    for seat, role in claimed.items():
        if seat not in liars and k.composition.get(role, 0) == 1:
            rivals.setdefault(role, []).append(seat)
    doubtful = {
        seat
        for seats in rivals.values()
        if len(seats) > 1
        for seat in seats
        if seat not in confirmed
    }
    return Credibility(tuple(liars), frozenset(doubtful))


def named_mafia(k: Knowledge, cred: Credibility) -> list[int]:
    """The seats named formally mafia in believed public check claims, in order named."""
    return [
        s.claim.target
        for s in k.said
        if s.claim.kind == "claim_result"
        and s.claim.value == "mafia"
        and s.claim.target is not None
        and cred.believed(s.seat)
    ]


def claimants(k: Knowledge, role: str) -> list[int]:
    """The seats that claimed `role` publicly, in the order they first did."""
    seats = (s.seat for s in k.said if s.claim.kind == "claim_role" and s.claim.value == role)
    return list(dict.fromkeys(seats))


def is_bluffer(k: Knowledge, seat: int, seed: int, chance: float) -> bool:
    """Is this seat its team's designated fake checker? The lowest seat of the mafia
    team (as it knows the team from its allies) decides, by its own seeded coin against
    the style's `bluff_chance`, so at most one member of a team ever lies this way."""
    if k.role not in MAFIA_TEAM or not k.composition.get(FAKE_ROLE, 0):
        return False
    team = {s for s, r in k.allies.items() if r in MAFIA_TEAM}
    return designated(seat, team, f"palermo-bluff:{seed}", chance)


def bluff_post(
    k: Knowledge,
    seat: int,
    friends: set[int],
    rng: random.Random,
    notes: dict[str, object],
    style: Style,
) -> list[Choice]:
    """Today's fake claim, once a day: the role claim the first time, then one invented
    result. A real checker (a rival claimant of the role, or a claimant who named a
    partner) is framed first; else a draw against the style's rates frames a random
    non-ally, clears a partner, or clears a non-ally. Never a partner as mafia."""
    alive = k.alive
    acts: list[Choice] = []
    if not notes.get("palermo_bluffed"):
        notes["palermo_bluffed"] = True
        acts.append(shared_choice("claim_role", None, FAKE_ROLE))
    faked: set[int] = notes.setdefault("palermo_faked", set())  # type: ignore[assignment]
    fresh = [s for s in range(k.players) if alive[s] and s != seat and s not in faked]
    outsiders = [s for s in fresh if s not in friends]
    partners = [s for s in fresh if s in friends]
    threats = [
        s.seat
        for s in k.said
        if s.seat in outsiders
        and (
            (s.claim.kind == "claim_role" and s.claim.value == FAKE_ROLE)
            or (
                s.claim.kind == "claim_result"
                and s.claim.value == "mafia"
                and s.claim.target in friends
            )
        )
    ]
    pick = invent_result(
        rng, style, threats[0] if threats else None, partners, outsiders, rng.choice
    )
    if pick is not None:
        faked.add(pick[0])
        acts.append(shared_choice("claim_result", *pick))
    return acts


def frames(k: Knowledge, friends: set[int]) -> list[int]:
    """Living non-allies a partner has publicly "checked" as mafia, latest first (the
    fakes the rest of the team backs)."""
    return list(
        dict.fromkeys(
            s.claim.target
            for s in reversed(k.said)
            if s.seat in friends
            and s.claim.kind == "claim_result"
            and s.claim.value == "mafia"
            and s.claim.target is not None
            and s.claim.target not in friends
            and k.alive[s.claim.target]
        )
    )
