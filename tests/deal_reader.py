"""A cheating player for the tests: it tries to rebuild the deal from what it is given.

Game seeds are small integers and `Game(variant, players, seed)` rebuilds every card,
so a player handed the game seed, or anything computed from the seed and the seat
without a secret, can read the whole deal: it tries every candidate seed 0..100000,
keeps those its given numbers betray (equal to one, or to a keyless derivation from the
seed and its seat), and accepts a candidate whose deal matches what it knows (its own
card, its allies). `DealReader` plays randomly and makes that attack once per game,
on its first decision; it keeps its verdict in `reports` and, where the environment
variable ``DEAL_READER_OUT`` names a folder, also writes it there (for games played in
other processes, e.g. Ray workers).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from mafia_arena.agents import registry
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine import Game
from mafia_arena.engine.choices import Decision
from mafia_arena.rules import Variant
from mafia_arena.views.view import View

CANDIDATES = range(100_001)
GAME_SEEDS = 2**32
"""Every game seed the drivers draw is below this (31 bits)."""
NAME = "deal-reader"
OUT = "DEAL_READER_OUT"


def keyless_derivations(seed: int, seat: int) -> Iterator[int]:
    """Ways a host without a secret might turn (game seed, seat) into a seat seed."""
    yield seed
    yield seed + seat
    yield seed * 1000 + seat
    yield hash((seed, seat))
    for text in (f"{seed}:{seat}", f"mafia-arena seat seed:{seed}:{seat}"):
        digest = hashlib.sha256(text.encode()).digest()
        yield int.from_bytes(digest[:8], "big") >> 1
        yield int.from_bytes(digest[:4], "big")


def plain_seat_seed(seed: int, seat: int) -> int:
    """The seat seed a keyless host would hand out (a plain hash of seed and seat)."""
    return list(keyless_derivations(seed, seat))[4]


def deal(variant: Variant, players: int, seed: int) -> list[str]:
    """The cards `Game(variant, players, seed)` deals."""
    return [s.card for s in Game(variant, players, seed).state.seats]


def betrayed_seeds(given: set[int], seat: int) -> list[int]:
    """Candidate game seeds the numbers in `given` point at, then the given numbers that
    could be game seeds themselves (below 2**32: tournaments and the web app draw 31-bit
    seeds, beyond the candidate range)."""
    hits = [s for s in CANDIDATES if any(d in given for d in keyless_derivations(s, seat))]
    return hits + sorted(g for g in given if g not in hits and 0 <= g < GAME_SEEDS)


def read_deal(
    variant: Variant,
    players: int,
    seat: int,
    given: set[int],
    card: str,
    allies: Mapping[int, str],
) -> list[str] | None:
    """The deal of a betrayed candidate seed that matches what the seat knows, if any."""
    for seed in betrayed_seeds(given, seat):
        cards = deal(variant, players, seed)
        if cards[seat] == card and all(cards[s] == role for s, role in allies.items()):
            return cards
    return None


class DealReader(RandomAgent):
    """Plays uniformly at random; on its first decision, tries to read the deal."""

    name = NAME
    reports: ClassVar[list[dict[str, Any]]] = []

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.seat = seat
        self.given = {seed}
        self.attacked = False

    def decide(self, view: View) -> Decision:
        if not self.attacked and view.knowledge.role is not None:
            self.attacked = True
            self._attack(view)
        return super().decide(view)

    def _attack(self, view: View) -> None:
        variant = self.variant
        assert variant is not None, "the driver did not call set_variant"
        knowledge = view.knowledge
        found = read_deal(
            variant,
            knowledge.players,
            self.seat,
            self.given,
            str(knowledge.role),
            dict(knowledge.allies),
        )
        report = {"seat": self.seat, "given": sorted(self.given), "found": found}
        type(self).reports.append(report)
        folder = os.environ.get(OUT)
        if folder:
            path = Path(folder) / f"{os.getpid()}-{random.SystemRandom().getrandbits(64):x}.json"
            path.write_text(json.dumps(report), encoding="utf-8")


def register() -> None:
    """Make ``deal-reader`` a scripted preset in this process (a Ray worker setup hook)."""
    registry.register_scripted(NAME, DealReader)


def reports_in(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
