"""Numeric encoding of a `View`: one fixed-size float32 vector per seat, for RL.

Contract: the vector is a function of the seat's `View` only (its `Knowledge`, folded
from the events admitted to that seat, plus its current `Request`), so it can hold
nothing the seat may not know. Its size depends only on the variant and the player
count (`ObservationLayout`), and every value lies in [0, 1].

Speed: an `ObservationEncoder` folds each seat's newly admitted events into a
preallocated per-seat array (the events are append-only), so encoding a step costs the
new events plus one copy, not the whole game. Feeding it a different `Knowledge`
object (a new game) starts that seat afresh.

Layout (n = players, R = roles of the variant, F = factions, A = check results: the
variant's appearances plus ``mafia``, ``innocent``, ``no result``; K = request kinds:
``none``, one ``night:<step>`` per night step, the day kinds in `DAY_KINDS`, ``other``).
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
| `request` | K | the pending request kind, one-hot (`none` when nothing to decide) |
| `free_text` | 1 | the pending request also accepts free text |

(*) only in variants with a ``compare`` (resp. ``watch``) or ``copy`` night step.

Version history: v0 — first layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mafia_arena.rules import Variant
from mafia_arena.rules.expressions import evaluate
from mafia_arena.speech.claims import Claim
from mafia_arena.views.knowledge import Knowledge
from mafia_arena.views.view import View

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
        self.kinds = ("none", *(f"night:{s.name}" for s in variant.night), *DAY_KINDS, "other")
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

    def describe(self) -> str:
        """A markdown table of the blocks with their offsets (for docs and debugging)."""
        rows = ["| block | offset | shape |", "| --- | --- | --- |"]
        rows += [
            f"| `{b.name}` | {b.offset} | {'×'.join(map(str, b.shape))} |"
            for b in self.blocks.values()
        ]
        return "\n".join(rows) + f"\n\nsize: {self.size}"


class _SeatArray:
    """The running encoding of one seat's knowledge (everything but the request)."""

    def __init__(self, layout: ObservationLayout, knowledge: Knowledge) -> None:
        self.layout = layout
        self.seat = knowledge.seat
        self.knowledge = knowledge
        self.cursor = 0
        self.claim_cursor: dict[int, int] = {}
        self.data = np.zeros(layout.size, dtype=np.float32)
        self.v: dict[str, np.ndarray] = {
            name: self.data[b.offset : b.offset + b.size].reshape(b.shape)
            for name, b in layout.blocks.items()
        }
        if 0 <= knowledge.seat < layout.players:
            self.v["seat"][knowledge.seat] = 1.0


class ObservationEncoder:
    """Encodes `View`s of one variant and player count into `layout.size` floats."""

    def __init__(self, variant: Variant, players: int) -> None:
        self.layout = ObservationLayout(variant, players)
        self.size = self.layout.size
        self._seats: dict[int, _SeatArray] = {}

    def reset(self) -> None:
        """Forget every seat (call between games; a new `Knowledge` also resets a seat)."""
        self._seats.clear()

    def encode(self, view: View, out: np.ndarray | None = None) -> np.ndarray:
        """The vector for `view`, written into `out` (a fresh array when None)."""
        state = self._fold(view.knowledge)
        if out is None:
            out = state.data.copy()
        else:
            out[:] = state.data
        request = view.request
        block = self.layout.blocks["request"]
        kind = "none" if request is None else request.kind
        index = self.layout.kind_index.get(kind, len(self.layout.kinds) - 1)
        out[block.offset + index] = 1.0
        if request is not None and request.free_text:
            out[self.layout.blocks["free_text"].offset] = 1.0
        return out

    # ------------------------------------------------------------------ folding
    def _fold(self, knowledge: Knowledge) -> _SeatArray:
        state = self._seats.get(knowledge.seat)
        if (
            state is None
            or state.knowledge is not knowledge
            or state.cursor > len(knowledge.events)
        ):
            state = self._seats[knowledge.seat] = _SeatArray(self.layout, knowledge)
        events = knowledge.events
        if state.cursor == len(events):
            return state
        for event in events[state.cursor :]:
            handler = _HANDLERS.get(event.kind)
            if handler is not None:
                handler(state, event.payload)
        state.cursor = len(events)
        last = events[-1]
        phase = state.v["phase"]
        phase[:] = 0.0
        phase[3 if knowledge.over else PHASES.index(last.phase) if last.phase in PHASES else 0] = (
            1.0
        )
        state.v["day"][0] = min(1.0, last.day / self.layout.max_rounds)
        for speaker, claims in knowledge.claims.items():
            done = state.claim_cursor.get(speaker, 0)
            if done < len(claims):
                for claim in claims[done:]:
                    _claim(state, speaker, claim)
                state.claim_cursor[speaker] = len(claims)
        return state


# ---------------------------------------------------------------------- handlers
Arrays = dict[str, np.ndarray]


def _seat_ok(layout: ObservationLayout, seat: Any) -> bool:
    return isinstance(seat, int) and 0 <= seat < layout.players


def _own_role(state: _SeatArray, p: dict[str, Any]) -> None:
    layout, v = state.layout, state.v
    if p["seat"] != state.seat:
        return
    if p.get("role") in layout.role_index:
        v["role"][:] = 0.0
        v["role"][layout.role_index[p["role"]]] = 1.0
    if p.get("faction") in layout.faction_index:
        v["faction"][:] = 0.0
        v["faction"][layout.faction_index[p["faction"]]] = 1.0


def _setup(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["alive"][:] = 1.0


def _allies(state: _SeatArray, p: dict[str, Any]) -> None:
    layout, v = state.layout, state.v
    for seat, role in p["allies"].items():
        if role in layout.role_index and _seat_ok(layout, int(seat)):
            v["allies"][int(seat), :] = 0.0
            v["allies"][int(seat), layout.role_index[role]] = 1.0


def _reveal(state: _SeatArray, seat: int, role: str) -> None:
    layout, v = state.layout, state.v
    if role in layout.role_index and _seat_ok(layout, seat):
        v["revealed"][seat, :] = 0.0
        v["revealed"][seat, layout.role_index[role]] = 1.0


def _death(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["alive"][p["seat"]] = 0.0
    if "role" in p:
        _reveal(state, p["seat"], p["role"])


def _reveal_event(state: _SeatArray, p: dict[str, Any]) -> None:
    _reveal(state, p["seat"], p["role"])


def _game_over(state: _SeatArray, p: dict[str, Any]) -> None:
    for seat, role in p["roles"].items():
        _reveal(state, int(seat), role)


def _phase(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["nominations"][:] = 0.0
    if p["phase"] == "night":
        v["silenced"][:] = 0.0
        v["team_picks"][:] = 0.0


def _silenced(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["silenced"][:] = 0.0
    for seat in p["seats"]:
        v["silenced"][seat] = 1.0


def _votes(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["votes"][:] = 0.0
    for voter, target in p["votes"].items():
        if target is not None:
            v["votes"][int(voter), target] = 1.0


def _nomination(state: _SeatArray, p: dict[str, Any]) -> None:
    v = state.v
    v["nominations"][p["seat"], p["target"]] = 1.0


def _group_picks(state: _SeatArray, p: dict[str, Any]) -> None:
    layout, v = state.layout, state.v
    picks = v["team_picks"]
    picks[:] = 0.0
    targets = [
        int(key.split(":")[1])
        for key in p["picks"].values()
        if key.count(":") >= 1 and key.split(":")[1].isdigit()
    ]
    for target in set(targets):
        if _seat_ok(layout, target):
            picks[target] = min(1.0, targets.count(target) / len(targets))


def _night_result(state: _SeatArray, p: dict[str, Any]) -> None:
    layout, v = state.layout, state.v
    action, result = p.get("action"), p.get("result")
    if action == "check" and _seat_ok(layout, p.get("target")):
        row = v["checks"][p["target"]]
        row[:] = 0.0
        row[layout.result_index.get(result, layout.result_index[NO_RESULT])] = 1.0
    elif action == "compare" and "compare" in v and result in ("same", "different"):
        a, b = p["targets"]
        channel = 0 if result == "same" else 1
        v["compare"][a, b, channel] = v["compare"][b, a, channel] = 1.0
    elif action == "watch" and "watch" in v and isinstance(result, list):
        for attacker in result:
            if _seat_ok(layout, attacker):
                v["watch"][p["target"], attacker] = 1.0


def _claim(state: _SeatArray, speaker: int, claim: Claim) -> None:
    layout, v = state.layout, state.v
    if not _seat_ok(layout, speaker):
        return
    target = claim.target
    if claim.kind == "claim_role":
        index = layout.role_lower.get((claim.value or "").lower())
        if index is not None:
            v["role_claims"][speaker, index] = 1.0
    elif not _seat_ok(layout, target):
        return
    elif claim.kind == "accuse":
        v["accusations"][speaker, target] = 1.0
    elif claim.kind == "vouch":
        v["vouches"][speaker, target] = 1.0
    elif claim.kind == "claim_result":
        v["result_claims"][speaker, target, 0 if claim.value == "mafia" else 1] = 1.0


_HANDLERS = {
    "setup": _setup,
    "role": _own_role,
    "role_change": _own_role,
    "allies": _allies,
    "death": _death,
    "reveal": _reveal_event,
    "game_over": _game_over,
    "phase": _phase,
    "silenced": _silenced,
    "votes": _votes,
    "nomination": _nomination,
    "group_picks": _group_picks,
    "night_result": _night_result,
}
