"""The fixed `Discrete(K)` action table of a variant at a player count.

Every engine request is one `Choice` among an enumerated list, so an RL action is an
index into one table that covers every choice the variant can ever offer at that
player count; the action mask marks the request's choices. The table is built from the
variant data only (its roles, night steps and appearances), so a new variant file gets
its table without code.

Sections, in this order (n = players, R = the variant's roles in file order, A = the
claimable check results, as the engine offers them in speaking turns):

| ids | choice key | meaning |
| --- | --- | --- |
| 0 | ``pass`` | no-op / abstain / decline / "nothing to add" (*) |
| 1 … n | ``target:i`` | pick seat i (night targets, votes, nominations, the last dead's pick) |
| n per verb | ``<verb>:i`` | night mode verbs, e.g. ``check:i``, ``kill:i`` (**) |
| next n | ``accuse:i`` | speech act: "I suspect Pi is mafia." |
| next n | ``vouch:i`` | speech act: "I believe Pi is innocent." |
| next R | ``claim_role::r`` | speech act: "I claim to be the r." |
| next n×A | ``claim_result:i:a`` | speech act: "My check: Pi is a." (seat-major) |

(*) also the only legal action of a seat with nothing to decide.
(**) verbs other than ``target`` that the variant's night primitives offer, in
night-step order (none in simple, standard and classic).

Version history: v0 — first table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from mafia_arena.engine import PASS, Choice, Game, Request
from mafia_arena.engine.choices import shared_choice
from mafia_arena.engine.forum.forms import every_form
from mafia_arena.rules import Variant
from mafia_arena.speech import speech_acts

ACTION_TABLE_VERSION = 0


class UnknownChoiceError(LookupError):
    """The engine offered a choice the variant's action table does not contain.

    This is a bug in the table builder for that variant (a new primitive or procedure
    with a verb the table does not know), never something to paper over: the message
    names the choice so the table can be extended.
    """


@dataclass(frozen=True)
class ActionTable:
    """Action id ↔ `Choice` for one variant and player count.

    `sections` lists ``(name, first id, stop id)`` for documentation and debugging;
    `keys` the choice keys by id.
    """

    players: int
    choices: tuple[Choice, ...]
    sections: tuple[tuple[str, int, int], ...]
    keys: tuple[str, ...] = ()  # choice keys by id (filled in)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {c: i for i, c in enumerate(self.choices)})
        # the table holds the engine's shared choices (`shared_choice`), the very objects
        # its requests offer: ids are found by identity, without hashing a dataclass
        object.__setattr__(self, "_by_id", {id(c): i for i, c in enumerate(self.choices)})
        object.__setattr__(self, "_ids", {})
        object.__setattr__(self, "_masks", {})
        object.__setattr__(self, "_rows", {})
        object.__setattr__(self, "keys", tuple(c.key for c in self.choices))

    @property
    def size(self) -> int:
        return len(self.choices)

    def id_of(self, choice: Choice) -> int:
        try:
            return self._index[choice]  # type: ignore[attr-defined]
        except KeyError:
            raise UnknownChoiceError(
                f"choice {choice.key!r} is not in the action table of this variant "
                f"({self.players} players)"
            ) from None

    def choice_of(self, action: int) -> Choice:
        return self.choices[int(action)]

    def ids(self, request: Request) -> list[int]:
        """Action ids of the request's choices, in the request's order.

        Kept per choices tuple: the engine offers the same few tuples over and over
        (the targets of a vote, a speaking turn's acts: `engine.asking.target_options`,
        `engine.discussion`), and tuples are immutable. Callers must not change the
        list."""
        choices = request.choices
        known = self._ids.get(id(choices))  # type: ignore[attr-defined]
        if known is not None and known[0] is choices:
            return known[1]
        by_id = self._by_id  # type: ignore[attr-defined]
        found = [by_id.get(id(c)) for c in choices]
        index = self._index  # type: ignore[attr-defined]
        try:
            ids = [i if i is not None else index[c] for i, c in zip(found, choices, strict=True)]
        except KeyError:
            for c in choices:
                self.id_of(c)
            raise
        _remember(self._ids, choices, ids)  # type: ignore[attr-defined]
        return ids

    def rows(self, request: Request) -> list[dict[str, Any]]:
        """The request's choices as the envs' info rows: ``{"action", "key", "label"}``.

        Kept per choices and labels tuples (the engine shares both between requests; a
        speaking turn offers some forty acts, and the same lists come back all game).
        Shared: callers must not change them. The envs hand each caller copies
        (`GameSession.info`)."""
        choices, labels = request.choices, request.labels
        known = self._rows.get(id(choices))  # type: ignore[attr-defined]
        if known is not None and known[0] is choices and known[1][0] is labels:
            return known[1][1]
        keys = self.keys
        rows = [
            {"action": i, "key": keys[i], "label": label}
            for i, label in zip(self.ids(request), labels, strict=True)
        ]
        _remember(self._rows, choices, (labels, rows))  # type: ignore[attr-defined]
        return rows

    def mask(self, request: Request | None, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask of the legal actions; only ``pass`` (0) when there is no request."""
        if out is None:
            out = np.zeros(self.size, dtype=np.int8)
        else:
            out[:] = 0
        if request is None:
            out[0] = 1
        else:
            out[self.ids(request)] = 1
        return out

    def shared_mask(self, request: Request | None) -> np.ndarray:
        """`mask(request)` as one read-only array per choices tuple (and one for no
        request), for the envs' observations: most steps observe a seat that waits or
        a request whose choices an earlier one offered. Read-only, since every
        observation with those choices holds the same array."""
        choices = _WAITING if request is None else request.choices
        known = self._masks.get(id(choices))  # type: ignore[attr-defined]
        if known is not None and known[0] is choices:
            return known[1]
        mask = self.mask(request)
        mask.flags.writeable = False
        _remember(self._masks, choices, mask)  # type: ignore[attr-defined]
        return mask

    def rotation(self, seat: int) -> np.ndarray:
        """Egocentric ids → absolute ids for `seat`: an id whose choice names seat
        position t (``target:t``, ``accuse:t``, …) stands for the choice naming seat
        ``(seat + t) % players``; ids without a seat map to themselves. So position 0 is
        the deciding seat itself, as in the egocentric observation (`views.encode_history`).
        """
        cache: dict[int, np.ndarray] = self.__dict__.setdefault("_rotations", {})
        found = cache.get(seat)
        if found is None:
            found = np.arange(self.size, dtype=np.int64)
            for index, choice in enumerate(self.choices):
                if choice.target is not None:
                    found[index] = self.id_of(self._turned(choice, seat))
            cache[seat] = found
        return found

    def _turned(self, choice: Choice, seat: int) -> Choice:
        """`choice` with its seat positions made absolute for `seat`: the target, and
        the second seat of a choice that names two (`SECOND_SEAT`); a matchmaker's pair
        is written lower seat first, as the table holds it."""
        assert choice.target is not None
        target = (choice.target + seat) % self.players
        if choice.verb not in SECOND_SEAT or choice.value is None:
            return replace(choice, target=target)
        second = (int(choice.value) + seat) % self.players
        if choice.verb == "compare":
            target, second = min(target, second), max(target, second)
        return replace(choice, target=target, value=str(second))

    def describe(self) -> str:
        """A markdown table of the sections with their id ranges."""
        rows = ["| ids | section | first key |", "| --- | --- | --- |"]
        for name, start, stop in self.sections:
            rows.append(f"| {start}–{stop - 1} | {name} | `{self.choices[start].key}` |")
        return "\n".join(rows) + f"\n\nK = {self.size}"


SECOND_SEAT = frozenset({"compare", "assassinate", "transfer"})
"""Verbs whose value is a second seat: the dictator matchmaker's pair, Palermo's
assassination (target and assassin) and the Corrupt Cop's transfer (from and to)."""

_REMEMBERED = 4096
_WAITING: tuple[Any, ...] = (None,)
"""The key of the mask without a request (no request offers these choices)."""


def _remember(memo: dict[int, tuple[Any, Any]], key: tuple[Any, ...], value: Any) -> None:
    """Keep `value` for the tuple `key` by identity (the entry holds the tuple, so its
    id stays unique); a memo that outgrows the engine's own caches starts afresh."""
    if len(memo) >= _REMEMBERED:
        memo.clear()
    memo[id(key)] = (key, value)


def claimable_results(variant: Variant) -> list[str]:
    """The results a speaking turn lets a player claim (as `speak_request` offers them)."""
    return sorted({variant.appearance(r) for r in variant.roles} | {"mafia", "innocent"})


def mode_verbs(variant: Variant, players: int) -> list[str]:
    """Verbs other than ``target`` that the variant's night primitives offer.

    Probed by asking each primitive for its choices over every seat in a throwaway game,
    so a primitive with its own modes (``check_or_kill`` → check, kill) needs no entry
    here.
    """
    probe = Game(variant, players, seed=0)
    verbs: list[str] = []
    for step in variant.night:
        action = probe.hooks.actions.get(step.action)
        if action is None:
            continue
        for choice in action.choices(probe, step, 0, list(range(players))):
            if choice.verb not in ("target", "pass") and choice.verb not in verbs:
                verbs.append(choice.verb)
    return verbs


def palermo_sections(variant: Variant, players: int) -> list[tuple[str, list[Choice]]]:
    """The Palermo moves (`engine.palermo`), after the common sections: ballots, the
    night actions, the vote-end powers, the snitch declarations (and their withdrawal)
    and every card play."""
    from mafia_arena.engine.palermo.snitch import KINDS, WITHDRAW

    spec = variant.palermo
    assert spec is not None
    seats = range(players)
    pairs = [(a, b) for a in seats for b in seats if a != b]
    out: list[tuple[str, list[Choice]]] = [
        ("post", [shared_choice("post"), shared_choice("post_channel")]),
        ("vote", [shared_choice("vote", s) for s in seats]),
        ("block", [shared_choice("block", s) for s in seats]),
        ("investigate", [shared_choice("investigate", s) for s in seats]),
        ("assassinate", [shared_choice("assassinate", t, str(a)) for t in seats for a in seats]),
        ("snitch", [shared_choice("snitch", t, k) for k in KINDS for t in seats]),
        ("withdraw_snitch", [WITHDRAW]),
        ("defend", [shared_choice("defend", s) for s in seats]),
        ("transfer", [shared_choice("transfer", a, str(b)) for a, b in pairs]),
    ]
    questions = ["mafia", *variant.roles]
    for card in spec.cards:
        if card in ("echo", "failed_assassination", "vote_exemption"):
            out.append((card, [shared_choice(card)]))
        elif card == "pythia":
            out.append((card, [shared_choice(card, t, q) for t in seats for q in questions]))
        else:
            out.append((card, [shared_choice(card, s) for s in seats]))
    return out


def build_action_table(variant: Variant, players: int) -> ActionTable:
    """The action table of `variant` with `players` seats (see the module docstring)."""
    seats = list(range(players))
    choices: list[Choice] = []
    sections: list[tuple[str, int, int]] = []

    def add(name: str, items: Iterable[Choice]) -> None:
        start = len(choices)
        choices.extend(items)
        sections.append((name, start, len(choices)))

    add("pass", [PASS])
    if variant.rules.flow == "dictator":
        # a forum game: every request is a forum window's (engine.forum.window)
        for verb, items in every_form(variant, players):
            add(verb, items)
        return ActionTable(players, tuple(choices), tuple(sections))
    add("target", [shared_choice("target", s) for s in seats])
    for verb in mode_verbs(variant, players):
        add(verb, [shared_choice(verb, s) for s in seats])
    acts = [
        a
        for a in speech_acts(-1, seats, list(variant.roles), claimable_results(variant))
        if a != PASS
    ]
    for verb in ("accuse", "vouch", "claim_role", "claim_result"):
        add(verb, [a for a in acts if a.verb == verb])
    if variant.palermo is not None:
        for name, items in palermo_sections(variant, players):
            add(name, items)
    if len(set(choices)) != len(choices):
        raise ValueError("duplicate choices in the action table")
    return ActionTable(players, tuple(choices), tuple(sections))
