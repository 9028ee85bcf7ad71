"""Shuffled player names for LLM prompts: a presentation layer against position bias.

Contract
--------
* `Presentation` says how a game is shown to LLM players: ``shuffle_options`` (a
  choice's options in a shuffled order) and ``names``, the name each seat is shown under
  (``names[seat]`` is the 0-based number of its shown label: seat 2 shown as ``P5`` has
  ``names[2] == 4``), or ``None`` for the table's own ``P1``..``Pn``.
* `Presentation.for_game(seed, players, key=..., ...)` draws the permutation from the
  game seed through the host's key (``HMAC-SHA256(key, "names:<seed>")`` seeds the
  shuffle, as for the seat seeds of `mafia_arena.seat_seeds`): every LLM seat of a game
  sees the same names (so speech one model writes means the same seats to the next one),
  the seed and key reproduce it, and no role, faction or seat card enters it. The key
  matters because the agents are handed the permutation: drawn from the seed alone, a
  program could try the small game seeds (or a tournament's few thousand) until one
  gives the same permutation, and then rebuild the deal from that seed.
* `shown(text)` rewrites every ``P<k>`` token (``k`` a seat of the table) to the seat's
  shown label, all at once; `real(text)` is its inverse, applied to what a model writes
  (speech, stated beliefs) before anything reads it. The engine, its log and every other
  player keep the real seat labels: only the prompts and the parsing of answers change.
* `to_json` / `from_json`: the record kept in a log's ``meta["presentation"]``, so a
  replay rebuilds the exact prompts.

Why a token rewrite rather than a second set of views: every text a seat is shown (the
rules, the transcript, a request's prompt and options, the host's lines) names seats
only as ``P<k>``, so one bijection on those tokens presents a whole game consistently,
and inverting it on the model's text keeps every log in the table's own names.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from mafia_arena.seat_seeds import keyed_digest

__all__ = ["Presentation"]

#: A seat label; a longer run of digits is no seat (and `int` refuses over 4,300 digits:
#: a model's text is rewritten before it is cleaned or cut, so any length comes here).
_TOKEN = re.compile(r"\bP(\d{1,4})\b")


@dataclass(frozen=True, slots=True)
class Presentation:
    """How a game is shown to LLM players (see the module doc)."""

    shuffle_options: bool = False
    names: tuple[int, ...] | None = None

    @classmethod
    def for_game(
        cls, seed: int, players: int, *, key: bytes, shuffle_names: bool, shuffle_options: bool
    ) -> Presentation:
        """The presentation of the game of `seed`, its names drawn with the host's `key`."""
        names: tuple[int, ...] | None = None
        if shuffle_names:
            order = list(range(players))
            random.Random(keyed_digest(key, f"names:{int(seed)}")).shuffle(order)
            names = tuple(order)
        return cls(shuffle_options, names)

    @property
    def active(self) -> bool:
        return self.shuffle_options or self.names is not None

    def label(self, seat: int) -> str:
        """The label ``seat`` (0-based) is shown under."""
        if self.names is None or not 0 <= seat < len(self.names):
            return f"P{seat + 1}"
        return f"P{self.names[seat] + 1}"

    def shown(self, text: str) -> str:
        """``text`` with every real seat label replaced by its shown one."""
        return self._rewrite(text, self.names)

    def real(self, text: str) -> str:
        """``text`` (written under the shown names) back in the table's own labels."""
        if self.names is None:
            return text
        inverse = [0] * len(self.names)
        for seat, shown in enumerate(self.names):
            inverse[shown] = seat
        return self._rewrite(text, tuple(inverse))

    @staticmethod
    def _rewrite(text: str, mapping: tuple[int, ...] | None) -> str:
        if mapping is None:
            return text

        def one(match: re.Match[str]) -> str:
            k = int(match.group(1)) - 1
            return f"P{mapping[k] + 1}" if 0 <= k < len(mapping) else match.group(0)

        return _TOKEN.sub(one, text)

    def to_json(self) -> dict[str, Any]:
        """``{"shuffle_names", "shuffle_options", "names"}``; ``names`` maps each real
        label to its shown one (``{"P1": "P4", ...}``)."""
        record: dict[str, Any] = {
            "shuffle_names": self.names is not None,
            "shuffle_options": self.shuffle_options,
        }
        if self.names is not None:
            record["names"] = {f"P{s + 1}": self.label(s) for s in range(len(self.names))}
        return record

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Presentation:
        names = record.get("names")
        mapping: tuple[int, ...] | None = None
        if names:
            mapping = tuple(int(str(names[f"P{s + 1}"])[1:]) - 1 for s in range(len(names)))
        return cls(bool(record.get("shuffle_options")), mapping)
