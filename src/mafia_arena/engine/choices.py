"""Requests the engine makes of a seat, and the choices it offers.

Every request is a single choice among an enumerated list (multi-pick decisions such as
"nominate up to two" are asked as successive single picks), so the same request serves
a PettingZoo `Discrete` action, an LLM's JSON enum and a human's buttons. Speaking turns
also accept free text.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import repeat
from operator import is_
from typing import Any

from mafia_arena.engine.frozen import slot_setters


@dataclass(frozen=True, slots=True, order=True)
class Choice:
    """One legal option. `verb` says what it does; `target` is a seat; `value` a word.

    Verbs: ``pass`` (abstain / decline / done), ``target`` (pick a seat), ``kill`` and
    ``check`` (a mode choice), speech acts ``accuse``, ``vouch``, ``claim_role``
    (value = role), ``claim_result`` (value = result of the claimed check of target).
    """

    verb: str
    target: int | None = None
    value: str | None = None

    @property
    def key(self) -> str:
        known = SHARED_KEYS.get(id(self))
        if known is not None:
            return known
        if self.value is not None:
            target = "" if self.target is None else str(self.target)
            return f"{self.verb}:{target}:{self.value}"
        if self.target is not None:
            return f"{self.verb}:{self.target}"
        return self.verb

    @classmethod
    def parse(cls, key: str) -> Choice:
        parts = key.split(":")
        target = int(parts[1]) if len(parts) > 1 and parts[1] != "" else None
        value = parts[2] if len(parts) > 2 else None
        return cls(parts[0], target, value)


_SHARED: dict[tuple[str, int | None, str | None], Choice] = {}
SHARED_KEYS: dict[int, str] = {}
"""The key of each shared choice, by identity. Every decision logs its choice's key;
a shared choice is never freed (`_SHARED` holds it), so its id names it alone for the
life of the process, and the key is rendered once instead of at every decision."""


def shared_choice(verb: str, target: int | None = None, value: str | None = None) -> Choice:
    """The one shared `Choice(verb, target, value)` the engine offers in its requests.

    Why: the engine offers the same few hundred choices (verbs x seats x role or result
    words) over and over. Offering one object per key skips rebuilding frozen
    dataclasses and lets `Request.offers` recognise an offered choice by identity, which
    is what agents hand back. Choices are immutable, so sharing them is safe; the table
    only grows with the variants' vocabulary and never needs invalidating. A `Choice`
    built elsewhere (parsed from a log, say) is still equal to the shared one.
    """
    key = (verb, target, value)
    found = _SHARED.get(key)
    if found is None:
        found = _SHARED[key] = Choice(verb, target, value)
        SHARED_KEYS[id(found)] = found.key
    return found


PASS = shared_choice("pass")


@dataclass(frozen=True, slots=True)
class Speech:
    """A free-text speaking turn (optionally with the structured act it was made from)."""

    text: str
    act: Choice | None = None


Decision = Choice | Speech

_NO_INFO: Any = object()


@dataclass(frozen=True, slots=True, init=False)
class Request:
    """What the engine asks of one seat now.

    `kind` names the decision (``night:<step>``, ``speak``, ``nominate``, ``vote``,
    ``last_dead``, ``describe``, ``defence``, ``last_word``); `prompt` says it in words;
    `labels` give each choice a human-readable label; `default` is what a timeout or a
    fallback records (``pass`` where allowed, else ``random``); `free_text` marks a
    speaking turn where any text is also accepted.
    """

    seat: int
    kind: str
    prompt: str
    choices: tuple[Choice, ...]
    labels: tuple[str, ...]
    default: str = "pass"
    free_text: bool = False
    max_chars: int = 1000
    info: dict[str, object] = field(default_factory=dict)

    def __init__(
        self,
        seat: int,
        kind: str,
        prompt: str,
        choices: tuple[Choice, ...],
        labels: tuple[str, ...],
        default: str = "pass",
        free_text: bool = False,
        max_chars: int = 1000,
        info: dict[str, object] = _NO_INFO,
    ) -> None:
        # what the generated __init__ does, through the slots (see engine.frozen)
        (
            set_seat,
            set_kind,
            set_prompt,
            set_choices,
            set_labels,
            set_default,
            set_free_text,
            set_max_chars,
            set_info,
        ) = _REQUEST_SLOTS
        set_seat(self, seat)
        set_kind(self, kind)
        set_prompt(self, prompt)
        set_choices(self, choices)
        set_labels(self, labels)
        set_default(self, default)
        set_free_text(self, free_text)
        set_max_chars(self, max_chars)
        set_info(self, {} if info is _NO_INFO else info)

    def offers(self, choice: Choice) -> bool:
        """Is `choice` one of `choices`?

        Identity first: a C-level scan that finds the offered object an agent hands back
        without calling the dataclass `__eq__` once per choice (a linear `in` over a
        speaking turn's 40-odd acts was the single biggest cost of a decision). An equal
        but distinct choice (parsed from text or a log) falls back to equality.
        """
        choices = self.choices
        return any(map(is_, choices, repeat(choice))) or choice in choices

    def label_of(self, choice: Choice) -> str:
        return self.labels[self.choices.index(choice)]

    def screened(self, removed: Collection[int]) -> Request | None:
        """This request once the seats in `removed` have left the game, or None.

        None when the asked seat itself was removed, or when every choice named a
        removed seat and no free text is accepted (nothing is left to decide). Otherwise
        the choices (speech acts included) that name a removed seat are dropped, with
        their labels. Why here: a removal can happen while a request waits, and every
        prompt, waiting or new, must go through the same filter.
        """
        if self.seat in removed:
            return None
        keep = [i for i, c in enumerate(self.choices) if c.target not in removed]
        if len(keep) == len(self.choices):
            return self
        if not keep and not self.free_text:
            return None
        return Request(
            self.seat,
            self.kind,
            self.prompt,
            tuple(self.choices[i] for i in keep),
            tuple(self.labels[i] for i in keep),
            self.default,
            self.free_text,
            self.max_chars,
            self.info,
        )


def names_any(decision: Decision | None, removed: Collection[int]) -> bool:
    """Does `decision` (a pick or a speech act) name one of the `removed` seats?"""
    if isinstance(decision, Speech):
        decision = decision.act
    return decision is not None and decision.target in removed


_REQUEST_SLOTS = slot_setters(Request)
