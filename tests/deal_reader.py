"""A cheating player for the tests: it tries to rebuild the deal from what it is given.

Game seeds are small integers and `Game(variant, players, seed)` rebuilds every card,
so a player handed the game seed, or anything computed from the seed and the seat
without a secret, can read the whole deal. The reader gathers every integer it can
see: the seed `reset` hands it, every field of every event in its view's knowledge
(day, phase, each fact's fields, digits in their text, each event's number in its own
stream), and the numbers in its request (choices, labels, prompt, `info`). It tries
every candidate seed 0..100000 that one of those numbers betrays (equal to it, or to a
keyless derivation from the seed and its seat), and each number below 2**32 as a seed
itself, and keeps the candidates whose deal agrees with everything it knows (its own
card, its allies, the cards shown so far).

Small public numbers (seats, days, counts) are candidates too, so a candidate can agree
with what a seat knows by chance; only the game's own seed rebuilds the game, so the
verdict is whether the game seed is among the reader's `matches` (`reproduces`): tests
play games whose seed no public count reaches.

Where the game shuffles the seat names shown to LLM players, the reader also tries
every candidate seed whose keyless shuffle gives the names it was handed.

`DealReader` plays randomly and attacks on its first decision, then again whenever a
new day or phase has shown it new numbers; its verdict (`seat`, `given`: the seed of
`reset`, `seen`: the numbers mined, `matches`: candidate seed → deal) is kept in
`reports` and, where the environment variable ``DEAL_READER_OUT`` names a folder, also
written there (for games played in other processes, e.g. Ray workers).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from mafia_arena.agents import registry
from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine import Game
from mafia_arena.engine.choices import Decision, Request
from mafia_arena.rules import Variant
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.shown_names import Presentation
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


def keyless_names(seed: int, players: int) -> tuple[int, ...]:
    """The shuffled seat names a host without a secret would draw from the game seed."""
    order = list(range(players))
    random.Random(f"{seed}:names").shuffle(order)
    return tuple(order)


def seeds_behind_names(names: tuple[int, ...]) -> list[int]:
    """Candidate game seeds whose keyless name shuffle is `names` (the presentation an
    LLM player is handed when the experiment shuffles names)."""
    return [s for s in CANDIDATES if keyless_names(s, len(names)) == names]


def betrayed_seeds(given: set[int], seat: int) -> list[int]:
    """Candidate game seeds the numbers in `given` point at, then the given numbers that
    could be game seeds themselves (below 2**32: tournaments and the web app draw 31-bit
    seeds, beyond the candidate range)."""
    hits = [s for s in CANDIDATES if any(d in given for d in keyless_derivations(s, seat))]
    return hits + sorted(g for g in given if g not in hits and 0 <= g < GAME_SEEDS)


def agrees(cards: list[str], seat: int, card: str, known: Mapping[int, str]) -> bool:
    """Whether a deal gives `seat` its `card` and every seat in `known` its card."""
    return cards[seat] == card and all(cards[s] == role for s, role in known.items())


def read_deal(
    variant: Variant,
    players: int,
    seat: int,
    given: set[int],
    card: str,
    allies: Mapping[int, str],
) -> list[str] | None:
    """The deal of the first betrayed candidate seed that matches what the seat knows."""
    for seed in betrayed_seeds(given, seat):
        cards = deal(variant, players, seed)
        if agrees(cards, seat, card, allies):
            return cards
    return None


_DIGITS = re.compile(r"\d+")


def integers(value: object) -> Iterator[int]:
    """Every integer in `value`: ints (not bools), the digit runs of strings, and those
    inside dataclasses (every field), mappings (keys and values) and collections."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, float):
        if value.is_integer():
            yield int(value)
    elif isinstance(value, str):
        yield from (int(d) for d in _DIGITS.findall(value))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from integers(getattr(value, f.name))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from integers(key)
            yield from integers(item)
    elif isinstance(value, Iterable):
        for item in value:
            yield from integers(item)


def seen_in(knowledge: Knowledge, start: int = 0) -> set[int]:
    """The integers of the seat's events from its `start`-th on (each event's number in
    the seat's stream included) and the knowledge's counts (players, day, events)."""
    found = {knowledge.players, knowledge.day, len(knowledge.events)}
    for number in range(start, len(knowledge.events)):
        found.add(number)
        found.update(integers(knowledge.events[number]))
    return found


def seen_in_request(request: Request | None) -> set[int]:
    """The integers of a request: its choices, labels, prompt, limits and `info`."""
    if request is None:
        return set()
    parts = (request.choices, request.labels, request.prompt, request.max_chars, request.info)
    return set(integers(parts))


def reproduces(report: Mapping[str, Any], seed: int) -> bool:
    """Whether a reader's report rebuilt the game of `seed`: that seed is among the
    candidates whose deal agreed with what the seat knew."""
    return str(seed) in report["matches"]


class DealReader(RandomAgent):
    """Plays uniformly at random and tries to read the deal from every number it sees."""

    name = NAME
    reports: ClassVar[list[dict[str, Any]]] = []

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.seat = seat
        self.given = {seed}
        self.names: tuple[int, ...] | None = None
        """The shuffled seat names of the game's presentation, if it has them."""
        self.named: list[int] = []
        """The candidate seeds those names point at (keyless shuffles that match)."""
        self.seen: set[int] = set()
        self.mined = 0
        """How many of the seat's events are mined already."""
        self.attacked_with = 0
        """How many numbers the last attack tried (it attacks again when more are seen)."""
        self.attacked_at: tuple[int, str] | None = None
        self.deals: dict[int, list[str]] = {}
        self.report: dict[str, Any] | None = None
        self.path: Path | None = None

    def set_presentation(self, presentation: Presentation) -> None:
        self.names = presentation.names
        self.named = [] if self.names is None else seeds_behind_names(self.names)

    @property
    def attacked(self) -> bool:
        return self.report is not None

    def decide(self, view: View) -> Decision:
        knowledge = view.knowledge
        self.seen |= seen_in(knowledge, self.mined) | seen_in_request(view.request)
        self.mined = len(knowledge.events)
        if knowledge.role is not None:
            numbers = len(self.given | self.seen)
            moment = (knowledge.day, knowledge.phase)
            fresh = numbers > self.attacked_with and moment != self.attacked_at
            if self.report is None or fresh:
                self.attacked_with, self.attacked_at = numbers, moment
                self._attack(view)
        return super().decide(view)

    def _deal(self, variant: Variant, players: int, seed: int) -> list[str]:
        if seed not in self.deals:
            self.deals[seed] = deal(variant, players, seed)
        return self.deals[seed]

    def _attack(self, view: View) -> None:
        variant = self.variant
        assert variant is not None, "the driver did not call set_variant"
        knowledge = view.knowledge
        known = {**knowledge.revealed, **knowledge.allies}
        card = str(knowledge.role)
        matches = {}
        betrayed = betrayed_seeds(self.given | self.seen, self.seat)
        for seed in [*self.named, *(s for s in betrayed if s not in self.named)]:
            cards = self._deal(variant, knowledge.players, seed)
            if agrees(cards, self.seat, card, known):
                matches[str(seed)] = cards
        report = {
            "seat": self.seat,
            "given": sorted(self.given),
            "seen": sorted(self.seen),
            "matches": matches,
        }
        if self.report is None:
            self.report = report
            type(self).reports.append(report)
        else:
            self.report.update(report)
        folder = os.environ.get(OUT)
        if folder:
            if self.path is None:
                name = f"{os.getpid()}-{random.SystemRandom().getrandbits(64):x}.json"
                self.path = Path(folder) / name
            self.path.write_text(json.dumps(self.report), encoding="utf-8")


def register() -> None:
    """Make ``deal-reader`` a scripted preset in this process (a Ray worker setup hook)."""
    registry.register_scripted(NAME, DealReader)


def reports_in(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
