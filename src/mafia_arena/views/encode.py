"""Numeric encoding of a `View`: one fixed-size float32 vector per seat, for RL.

Contract: the vector is a function of the seat's `View` only (its `Knowledge`, folded
from the events admitted to that seat, plus its current `Request`), so it can hold
nothing the seat may not know. Its size depends only on the variant and the player
count (`ObservationLayout`), and every value lies in [0, 1].

Speed: an `ObservationEncoder` keeps a preallocated array per seat and reads the seat's
`Knowledge` (the one per-seat fold): a block is rewritten only when the fact behind it
changed (the fold replaces a fact object on change), and the append-only facts are
walked from a cursor, so a step costs the changed blocks plus one copy. Knowledge of
another game (another fold) starts that seat afresh.

Layout (n = players, R = roles of the variant, F = factions, A = check results: the
variant's appearances plus ``mafia``, ``innocent``, ``no result``; K = request kinds:
``none``, one ``night:<step>`` per night step, the day kinds in `DAY_KINDS`, Palermo's
`FORUM_KINDS` where the variant has a ``[palermo]`` table, ``other``).
Blocks in this order; `ObservationLayout.describe()` prints the offsets for a variant.

| block | shape | meaning |
| --- | --- | --- |
| `seat` | n | own seat, one-hot |
| `role` | R | own current role, one-hot |
| `faction` | F | own current faction, one-hot |
| `alive` | n | 1 = alive as far as this seat knows |
| `revealed` | n×R | roles turned up publicly (death reveals, game end) |
| `allies` | n×R | roles this seat was told at setup (e.g. fellow mafiosi) |
| `checks` | n×A | own check results by target (latest per target) |
| `compare` | n×n×2 | own comparisons: [a, b, 0] same, [a, b, 1] different (*) |
| `watch` | n×n | own watch results: [target, attacker] (*) |
| `phase` | 4 | setup, night, day, game over |
| `day` | 1 | day number / maximum number of rounds |
| `silenced` | n | silenced today |
| `votes` | n×n | last published ballot: [voter, target] |
| `nominations` | n×n | today's nominations: [nominator, nominee] |
| `accusations` | n×n | [speaker, target]: the speaker said the target is mafia |
| `vouches` | n×n | [speaker, target]: the speaker vouched for the target |
| `role_claims` | n×R | [speaker, role]: the speaker claimed the role |
| `result_claims` | n×n×2 | [speaker, target, 0 mafia / 1 innocent]: a claimed check result |
| `team_picks` | n | share of the latest group picks (your team's night choice) per target |
| `states` | n×4 | Palermo (**): each seat's state, one-hot: active, ghost, imprisoned, out |
| `card` | C | Palermo (**): own intrigue card, one-hot over the variant's cards (0 once gone) |
| `request` | K | the pending request kind, one-hot (`none` when nothing to decide) |
| `free_text` | 1 | the pending request also accepts free text |

(*) only in variants with a ``compare`` (resp. ``watch``) or ``copy`` night step.
(**) only in variants with a ``[palermo]`` table.

Version history: v0 — first layout.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mafia_arena.engine.catalogue import NightResult
from mafia_arena.engine.choices import Request
from mafia_arena.rules import Variant
from mafia_arena.rules.expressions import evaluate
from mafia_arena.speech.claims import Claim
from mafia_arena.views.knowledge import CHANGES, Knowledge, KnowledgeFold, Said
from mafia_arena.views.view import View
from mafia_arena.views.words import FORUM_PHASES

ENCODING_VERSION = 0
DAY_KINDS = (
    "speak",
    "nominate",
    "vote",
    "final_vote",
    "plea",
    "last_dead",
    "describe",
    "night_chat",
    "defence",
    "last_word",
    "introductions",
)
PHASES = ("setup", "night", "day", "over")


FORUM_KINDS = ("turn", "change_vote", "vote_end", "runoff", "last_words")
"""Palermo's request kinds (after the day kinds, in variants with a ``[palermo]`` table)."""


def phase_word(phase: str) -> str:
    """The `phase` block's word for a phase name (Palermo's clock read as night / day)."""
    return FORUM_PHASES.get(phase, phase)


STATES = ("active", "ghost", "imprisoned", "out")
"""Player states (`engine.player_states`) in the order of the ``states`` block."""
NO_RESULT = "no result"


@dataclass(frozen=True, slots=True)
class Block:
    """A named slice of the vector with its logical shape."""

    name: str
    offset: int
    shape: tuple[int, ...]
    size: int


class ObservationLayout:
    """Blocks, vocabularies and size of the vector for one variant and player count."""

    def __init__(self, variant: Variant, players: int) -> None:
        self.players = n = players
        self.roles = tuple(variant.roles)
        self.factions = tuple(variant.factions)
        appearances = {variant.appearance(r) for r in variant.roles}
        self.results = tuple(sorted(appearances | {"mafia", "innocent", NO_RESULT}))
        forum = FORUM_KINDS if variant.palermo is not None else ()
        self.kinds = (
            "none",
            *(f"night:{s.name}" for s in variant.night),
            *DAY_KINDS,
            *forum,
            "other",
        )
        self.max_rounds = max(1, int(evaluate(str(variant.rules.max_rounds), {"n": n})))
        actions = {s.action for s in variant.night}
        R, F, A, K = len(self.roles), len(self.factions), len(self.results), len(self.kinds)
        shapes: list[tuple[str, tuple[int, ...]]] = [
            ("seat", (n,)),
            ("role", (R,)),
            ("faction", (F,)),
            ("alive", (n,)),
            ("revealed", (n, R)),
            ("allies", (n, R)),
            ("checks", (n, A)),
        ]
        if actions & {"compare", "copy"}:
            shapes.append(("compare", (n, n, 2)))
        if actions & {"watch", "copy"}:
            shapes.append(("watch", (n, n)))
        shapes += [
            ("phase", (len(PHASES),)),
            ("day", (1,)),
            ("silenced", (n,)),
            ("votes", (n, n)),
            ("nominations", (n, n)),
            ("accusations", (n, n)),
            ("vouches", (n, n)),
            ("role_claims", (n, R)),
            ("result_claims", (n, n, 2)),
            ("team_picks", (n,)),
        ]
        self.states = STATES
        self.cards: tuple[str, ...] = tuple(variant.palermo.cards) if variant.palermo else ()
        if variant.palermo is not None:
            shapes += [("states", (n, len(STATES))), ("card", (len(self.cards),))]
        shapes += [
            ("request", (K,)),
            ("free_text", (1,)),
        ]
        self.blocks: dict[str, Block] = {}
        offset = 0
        for name, shape in shapes:
            block = Block(name, offset, shape, int(np.prod(shape)))
            self.blocks[name] = block
            offset += block.size
        self.size = offset
        self.role_index = {r: i for i, r in enumerate(self.roles)}
        self.role_lower = {r.lower(): i for i, r in enumerate(self.roles)}
        self.faction_index = {f: i for i, f in enumerate(self.factions)}
        self.result_index = {r: i for i, r in enumerate(self.results)}
        self.kind_index = {k: i for i, k in enumerate(self.kinds)}
        self.state_index = {st: i for i, st in enumerate(STATES)}
        self.card_index = {c: i for i, c in enumerate(self.cards)}

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The vector's named blocks, each reshaped to its logical shape (views, no copy).

        The inverse of the layout: ``decode(obs)["alive"][s]`` is seat ``s``'s alive
        flag, ``decode(obs)["votes"][voter, target]`` a published ballot, and so on.
        """
        if vector.shape != (self.size,):
            raise ValueError(f"expected a vector of {self.size} values, got {vector.shape}")
        return {
            name: vector[b.offset : b.offset + b.size].reshape(b.shape)
            for name, b in self.blocks.items()
        }

    def describe(self) -> str:
        """A markdown table of the blocks with their offsets (for docs and debugging)."""
        rows = ["| block | offset | shape |", "| --- | --- | --- |"]
        rows += [
            f"| `{b.name}` | {b.offset} | {'×'.join(map(str, b.shape))} |"
            for b in self.blocks.values()
        ]
        return "\n".join(rows) + f"\n\nsize: {self.size}"


class _SeatArray:
    """The running encoding of one seat's knowledge (everything but the request).

    It reads only the seat's knowledge (a snapshot or the live fold, which hold the
    same fields): a block is rewritten when the fact it encodes is a different object
    than last time (the fold replaces a fact when it changes, never edits it), and the
    append-only facts (results, claims) are walked from a cursor.
    """

    def __init__(
        self, layout: ObservationLayout, knowledge: Facts, cells: Cells | None = None
    ) -> None:
        self.layout = layout
        self.cells: Cells = {} if cells is None else cells
        self.seat = knowledge.seat
        self.source = knowledge.transcript  # identifies the fold (one per seat and game)
        self.count = 0
        self.clock: tuple[int, str, bool] | None = None
        self.seen: dict[str, object] = {}
        self.results = 0
        self.said = 0
        self.data = np.zeros(layout.size, dtype=np.float32)
        self.v: dict[str, np.ndarray] = layout.decode(self.data)
        self.version = 0  # counts the folds that ran a rule (a rule may rewrite `data`)
        self.handed: tuple[int, int, bool, np.ndarray] | None = None
        """What `encode_seat` last handed out: the version, request index and free-text
        flag it was built with, and the array."""
        if 0 <= knowledge.seat < layout.players:
            self.v["seat"][knowledge.seat] = 1.0

    def follows(self, knowledge: Facts) -> bool:
        return self.source is knowledge.transcript and self.count <= len(knowledge.events)

    def changed(self, block: str, fact: object) -> bool:
        if self.seen.get(block, _UNSET) is fact:
            return False
        self.seen[block] = fact
        return True


_UNSET = object()
Facts = Knowledge | KnowledgeFold
"""What the rules read: a seat's snapshot, or its live fold (the same fields)."""
Cells = dict[int, tuple[Said, "int | None"]]
"""Vector cells of claims by `Said` identity (each value keeps its claim alive)."""
_MAX_CELLS = 1 << 16


class ObservationEncoder:
    """Encodes `View`s of one variant and player count into `layout.size` floats."""

    def __init__(self, variant: Variant, players: int) -> None:
        self.layout = ObservationLayout(variant, players)
        self.size = self.layout.size
        self._seats: dict[int, _SeatArray] = {}
        self._cells: Cells = {}

    def reset(self) -> None:
        """Forget every seat (call between games; a new game also resets a seat)."""
        self._seats.clear()
        self._cells = {}

    def encode(self, view: View, out: np.ndarray | None = None) -> np.ndarray:
        """The vector for `view`, written into `out` (a fresh array when None)."""
        return self._encode(view.knowledge, view.request, out)

    def encode_seat(
        self, fold: KnowledgeFold, request: Request | None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The vector for a seat's live fold and its request, written into `out`: what
        `encode` gives for a view of them, without freezing a snapshot first.

        Without `out`, the array this method last returned for the seat comes back
        again when the new entries ran no rule and the request's kind and free-text flag
        are the same (a narration, a ballot not yet tallied): the same contents without
        another copy of the whole vector. Callers must not write into it."""
        if out is not None:
            return self._encode(fold, request, out)
        state = self._fold(fold)
        index, free = self._request_cell(request)
        handed = state.handed
        if (
            handed is not None
            and handed[0] == state.version
            and handed[1] == index
            and handed[2] == free
        ):
            return handed[3]
        out = self._write(index, free, state.data.copy())
        state.handed = (state.version, index, free, out)
        return out

    def _encode(self, k: Facts, request: Request | None, out: np.ndarray | None) -> np.ndarray:
        state = self._fold(k)
        if out is None:
            out = state.data.copy()
        else:
            out[:] = state.data
        return self._write(*self._request_cell(request), out)

    def _request_cell(self, request: Request | None) -> tuple[int, bool]:
        """The request block's index for `request` and whether it takes free text."""
        kind = "none" if request is None else request.kind
        index = self.layout.kind_index.get(kind, len(self.layout.kinds) - 1)
        return index, request is not None and request.free_text

    def _write(self, index: int, free: bool, out: np.ndarray) -> np.ndarray:
        """`out` (a copy of the seat's running encoding) with the request's cells set."""
        out[self.layout.blocks["request"].offset + index] = 1.0
        if free:
            out[self.layout.blocks["free_text"].offset] = 1.0
        return out

    # ------------------------------------------------------------------ folding
    def _fold(self, k: Facts) -> _SeatArray:
        state = self._seats.get(k.seat)
        if len(self._cells) > _MAX_CELLS:  # an encoder never reset: keep the memo bounded
            self._cells.clear()
        if state is None or not state.follows(k):
            state = self._seats[k.seat] = _SeatArray(self.layout, k, self._cells)
        events = k.events
        start, count = state.count, len(events)
        if start == count and start:
            return state
        state.count = count
        clock = (k.day, k.phase, k.over)
        ticked = clock != state.clock
        if ticked:
            state.clock = clock
        due: tuple[str, ...]
        if start == 0:
            due = tuple(RULES)
        elif count - start == 1:  # the common step: one new entry, its rules in order
            fact = type(events[start].fact)
            due = (_TRIGGERS_TICKED if ticked else _TRIGGERS).get(fact) or _due((fact,), ticked)
        else:
            due = _due(frozenset(type(entry.fact) for entry in events[start:count]), ticked)
        rules = RULES  # read per call: tests replace a rule in it
        if due:
            state.version += 1
        for name in due:  # in application order
            rules[name](state, k)
        return state


# ---------------------------------------------------------------------- rules
# One rule per block (or group of blocks): how the block follows from the seat's
# `Knowledge`. Each rule rewrites its block only when the fact behind it changed.
def _role_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("role", k.role):
        _one_hot(state.v["role"], state.layout.role_index.get(k.role or ""))
    if state.changed("faction", k.faction):
        _one_hot(state.v["faction"], state.layout.faction_index.get(k.faction or ""))


def _alive_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("alive", k.alive):
        alive, n = state.v["alive"], state.layout.players
        alive[:] = 0.0
        alive[: min(len(k.alive), n)] = k.alive[:n]


def _revealed_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("revealed", k.revealed):
        _seat_roles(state.layout, state.v["revealed"], k.revealed)


def _allies_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("allies", k.allies):
        _seat_roles(state.layout, state.v["allies"], k.allies)


def _checks_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("checks", k.checks):
        layout, checks = state.layout, state.v["checks"]
        checks[:] = 0.0
        unknown = layout.result_index[NO_RESULT]
        for target, result in k.checks.items():
            if _seat_ok(layout, target):
                checks[target, layout.result_index.get(result, unknown)] = 1.0


def _results_rule(state: _SeatArray, k: Facts) -> None:
    for result in k.results[state.results :]:
        _night_result(state, result)
    state.results = len(k.results)


def _clock_rule(state: _SeatArray, k: Facts) -> None:
    phase = state.v["phase"]
    phase[:] = 0.0
    word = phase_word(k.phase)
    phase[3 if k.over else PHASES.index(word) if word in PHASES else 0] = 1.0
    state.v["day"][0] = min(1.0, k.day / state.layout.max_rounds)


def _silenced_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("silenced", k.silenced):
        silenced = state.v["silenced"]
        silenced[:] = 0.0
        for seat in k.silenced:
            if _seat_ok(state.layout, seat):
                silenced[seat] = 1.0


def _votes_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("ballots", k.ballots):
        layout, votes = state.layout, state.v["votes"]
        votes[:] = 0.0
        if k.ballots:
            for voter, target in k.ballots[-1][1].votes.items():
                if target is not None and _seat_ok(layout, voter) and _seat_ok(layout, target):
                    votes[voter, target] = 1.0


def _nominations_rule(state: _SeatArray, k: Facts) -> None:
    """Today's nominations. The fold only appends to them during a day (and starts
    afresh at a phase), so a list that extends the one encoded adds its new pairs; any
    other list is encoded from scratch."""
    before = state.seen.get("nominations", ())
    if not state.changed("nominations", k.nominations_today):
        return
    layout, nominations, today = state.layout, state.v["nominations"], k.nominations_today
    done = len(before)  # type: ignore[arg-type]
    if done and len(today) >= done and today[:done] == before:
        today = today[done:]
    else:
        nominations[:] = 0.0
    for seat, target in today:
        if _seat_ok(layout, seat) and _seat_ok(layout, target):
            nominations[seat, target] = 1.0


def _claims_rule(state: _SeatArray, k: Facts) -> None:
    cells, data, layout = state.cells, state.data, state.layout
    for said in k.said[state.said :]:
        known = cells.get(id(said))
        if known is None:  # first seat to hear this speech: find its cell once
            known = cells[id(said)] = (said, _claim_cell(layout, said.seat, said.claim))
        if known[1] is not None:
            data[known[1]] = 1.0
    state.said = len(k.said)


def _team_picks_rule(state: _SeatArray, k: Facts) -> None:
    if state.changed("team_picks", k.latest_picks):
        _team_picks(state, k.latest_picks)


def _states_rule(state: _SeatArray, k: Facts) -> None:
    """Palermo: every seat's state, one-hot per seat (all Active until a change), and
    the seat's own card, one-hot (zero once it is gone)."""
    blocks = state.v
    if "states" not in blocks:
        return
    layout = state.layout
    if state.changed("states", k.states) or state.changed("states_players", k.players):
        grid = blocks["states"]
        grid[:] = 0.0
        states = k.states or ("active",) * layout.players
        for seat, name in enumerate(states[: layout.players]):
            grid[seat, layout.state_index.get(name, 0)] = 1.0
    if state.changed("card", k.card):
        blocks["card"][:] = 0.0
        _one_hot(blocks["card"], layout.card_index.get(k.card or ""))


Rule = Callable[[_SeatArray, Facts], None]
RULES: dict[str, Rule] = {
    "role": _role_rule,
    "alive": _alive_rule,
    "revealed": _revealed_rule,
    "allies": _allies_rule,
    "checks": _checks_rule,
    "results": _results_rule,
    "clock": _clock_rule,
    "silenced": _silenced_rule,
    "votes": _votes_rule,
    "nominations": _nominations_rule,
    "claims": _claims_rule,
    "team_picks": _team_picks_rule,
    "states": _states_rule,
}
"""The encoding rules in application order (named, so tests can break one on purpose)."""

READS: dict[str, frozenset[str]] = {
    "role": frozenset({"role", "faction"}),
    "alive": frozenset({"alive"}),
    "revealed": frozenset({"revealed"}),
    "allies": frozenset({"allies"}),
    "checks": frozenset({"checks"}),
    "results": frozenset({"results"}),
    "clock": frozenset({"day", "phase", "over"}),
    "silenced": frozenset({"silenced"}),
    "votes": frozenset({"ballots"}),
    "nominations": frozenset({"nominations_today"}),
    "claims": frozenset({"said"}),
    "team_picks": frozenset({"latest_picks"}),
    "states": frozenset({"states", "card", "players"}),
}
"""The `Knowledge` fields each rule reads. With the fold's `CHANGES` this says which
rules a new entry can concern (`_TRIGGERS`): a step runs those rules only, and the
clock rule when day, phase or the end changed."""

_TRIGGERS: dict[type, tuple[str, ...]] = {
    kind: tuple(name for name in RULES if READS[name] & changes)  # application order
    for kind, changes in CHANGES.items()
}
_TRIGGERS_TICKED: dict[type, tuple[str, ...]] = {
    kind: tuple(name for name in RULES if name in due or name == "clock")
    for kind, due in _TRIGGERS.items()
}
"""`_TRIGGERS` with the clock rule added, in application order: a new entry that
moved day, phase or the end."""


@lru_cache(maxsize=1024)
def _due(kinds: Collection[type], ticked: bool) -> tuple[str, ...]:
    """The rules new entries of `kinds` concern (and the clock rule if `ticked`), in
    application order: what `_fold` runs, found once per combination."""
    names = {name for kind in kinds for name in _TRIGGERS.get(kind, ())}
    if ticked:
        names.add("clock")
    return tuple(name for name in RULES if name in names)


# ---------------------------------------------------------------------- helpers
def _seat_ok(layout: ObservationLayout, seat: object) -> bool:
    return isinstance(seat, int) and 0 <= seat < layout.players


def _one_hot(row: np.ndarray, index: int | None) -> None:
    if index is not None:
        row[:] = 0.0
        row[index] = 1.0


def _seat_roles(layout: ObservationLayout, block: np.ndarray, roles: Mapping[int, str]) -> None:
    block[:] = 0.0
    for seat, role in roles.items():
        index = layout.role_index.get(role)
        if index is not None and _seat_ok(layout, seat):
            block[seat, index] = 1.0


def _team_picks(state: _SeatArray, picks_by_seat: Mapping[int, str]) -> None:
    layout, v = state.layout, state.v
    picks = v["team_picks"]
    picks[:] = 0.0
    targets = [
        int(key.split(":")[1])
        for key in picks_by_seat.values()
        if key.count(":") >= 1 and key.split(":")[1].isdigit()
    ]
    for target in set(targets):
        if _seat_ok(layout, target):
            picks[target] = min(1.0, targets.count(target) / len(targets))


def _night_result(state: _SeatArray, f: NightResult) -> None:
    layout, v = state.layout, state.v
    if f.action == "compare" and "compare" in v and f.result in ("same", "different"):
        a, b = f.targets
        channel = 0 if f.result == "same" else 1
        v["compare"][a, b, channel] = v["compare"][b, a, channel] = 1.0
    elif f.action == "watch" and "watch" in v and f.attackers is not None:
        for attacker in f.attackers:
            if _seat_ok(layout, attacker):
                v["watch"][f.targets[0], attacker] = 1.0


def _claim_cell(layout: ObservationLayout, speaker: int, claim: Claim) -> int | None:
    """The flat index a claim sets in the vector, or None (a claim the layout cannot
    place). The same for every seat that hears it, so the encoder finds it once."""
    if not _seat_ok(layout, speaker):
        return None
    n, blocks, target = layout.players, layout.blocks, claim.target
    if claim.kind == "claim_role":
        index = layout.role_lower.get((claim.value or "").lower())
        if index is None:
            return None
        return blocks["role_claims"].offset + speaker * len(layout.roles) + index
    if not _seat_ok(layout, target):
        return None
    assert target is not None  # _seat_ok
    if claim.kind == "accuse":
        return blocks["accusations"].offset + speaker * n + target
    if claim.kind == "vouch":
        return blocks["vouches"].offset + speaker * n + target
    if claim.kind == "claim_result":
        channel = 0 if claim.value == "mafia" else 1
        return blocks["result_claims"].offset + (speaker * n + target) * 2 + channel
    return None
