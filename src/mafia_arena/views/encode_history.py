"""The ``history`` observation layout: dated history, an egocentric option, seat rows.

Why a second layout: the v0 layout (`views.encode`) keeps only the latest ballot and
undated claims, names seats by their absolute number and grows its relational blocks
with the player count. A learner that should read *when* things happened (who voted
for whom on which day, who claimed what before or after a death), and one policy that
should serve every seat, needs the history dated and every seat described by the same
row of features. v0 stays as it is (shipped policies and golden tensors depend on it).

Contract: like v0, the vector is a function of the seat's `View` only (its `Knowledge`
and its current request), every value lies in [0, 1], and the size depends only on the
variant, the player count (or `max_players`) and the options. `HistoryLayout.decode`
names every piece.

Options (`ObservationSpec`): ``history_days`` = k, the number of dated day slots;
``egocentric``: rows and seat columns are positions relative to the observer (row 0 is
the observer, row r the seat r places after it, wrapping round); ``max_players`` = N:
rows and seat columns are padded to N (``present`` = 0 on padding rows) so the vector
has the same size and meaning at every player count up to N.

Day slots: slot s (0 ≤ s < k) holds the facts of day ``today - s`` (slot 0 = today);
slot k holds everything older than the window, merged.

Global block, in this order:

| block | shape | meaning |
| --- | --- | --- |
| `phase` | 4 | setup, night, day, game over |
| `day` | 1 | day number / maximum number of rounds |
| `request` | K | pending request kind, one-hot (as v0) |
| `free_text` | 1 | the pending request also accepts free text |
| `role` / `faction` | R / F | own current role / faction, one-hot |
| `players` | 1 | player count / N |
| `living` | 1 | living players / player count |
| `quiet_nights` | k+1 | a night without a death, by day slot |

Seat rows (N rows of W values; row r describes seat ``(observer + r) % n`` when
egocentric, seat r otherwise; "column c" is the seat of row c, same ordering):

| piece | shape per row | meaning |
| --- | --- | --- |
| `present` | 1 | the row is a seat of this game (0 on padding rows) |
| `me` | 1 | the row is the observer |
| `alive` | 1 | alive as far as the observer knows |
| `death_day` | 1 | day of the death / maximum number of rounds (0 while alive) |
| `death_cause` | C | cause of the death: night, execution, disqualification, other |
| `revealed` | R | role turned up publicly |
| `ally` | R | role the observer was told at setup (fellow mafioso, …) |
| `check` | A | the observer's latest check result on the row |
| `silenced` | 1 | silenced today |
| `nominee` | 1 | on today's list of nominees |
| `team_pick` | 1 | share of the observer's team's latest night picks on the row |
| `role_claim` | R | roles the row's seat claimed publicly |
| `ballot` | (k+1)×N | [slot, column]: the row's seat voted for the column's seat that day |
| `nomination` | (k+1)×N | [slot, column]: the row nominated the column |
| `accuse` / `vouch` | (k+1)×N each | [slot, column]: the row said the column is mafia / innocent |
| `claim_mafia`, `claim_innocent` | (k+1)×N each | [slot, column]: the row's claimed check |

Not in this layout: comparison and watch results (classic's and club's special night
steps), which v0 has.

The omniscient encoding (`StateEncoder`, the env's ``state()``) is for centralised
critics only and never part of a seat's observation: the same layout, folded from the
host's whole log (every private result, every team pick) from no seat's point of view,
followed by every seat's true role and faction.

Version history: history/1 — first version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mafia_arena.engine import Game, Request
from mafia_arena.rules import Variant
from mafia_arena.rules.expressions import evaluate
from mafia_arena.views.encode import DAY_KINDS, NO_RESULT, PHASES, Block, ObservationEncoder
from mafia_arena.views.knowledge import Knowledge, KnowledgeFold
from mafia_arena.views.view import View

V0 = "v0"
HISTORY = "history"
LAYOUTS = {V0: 0, HISTORY: 1}
"""Layout name → current version."""
CAUSES = ("night", "execution", "disqualification", "other")
SLOT_PIECES = ("ballot", "nomination", "accuse", "vouch", "claim_mafia", "claim_innocent")


MAX_HISTORY_DAYS = 100
"""Dated day slots of the history layout; each adds a block per seat pair."""
MAX_MAX_PLAYERS = 1000
"""Padded seat rows of the history layout; the observation grows with its square."""
# Why caps here, in the layout: an env built with ``history_days=10**6`` or
# ``max_players=10**5`` asks for an observation of billions of values and fails deep in
# NumPy (or takes the machine's memory) instead of naming the option; training specs
# refuse the same values with the same caps (`rl.spec`), so one definition serves both.


def _whole(name: str, value: Any, highest: int) -> int:
    """`value` as an `int` if it is a whole number from 1 to `highest` (a numpy integer
    too); `ValueError` naming the option `name`, the value and the range otherwise: a
    bool, a float (even 8.0), text, zero or less, or above `highest`."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not 1 <= value <= highest
    ):
        raise ValueError(f"{name} must be a whole number from 1 to {highest:,}, not {value!r}")
    return int(value)


@dataclass(frozen=True)
class ObservationSpec:
    """Which observation layout an env or a policy uses (recorded in policy headers).

    `history_days` is a whole number from 1 to `MAX_HISTORY_DAYS`, `max_players` one
    from 1 to `MAX_MAX_PLAYERS` or None, and `egocentric` true or false; anything else is
    a `ValueError` naming the option, its value and the range (a numpy integer is taken
    as its `int`). Why: the layout read them loosely, so
    ``history_days=True`` played as one day slot and 2.5 built a vector of another size,
    ``max_players=0`` quietly meant no padding while the header recorded 0, 8.0 failed
    deep in Gymnasium, and ``egocentric=1`` was recorded as 1 where a policy header is
    read back as true or false."""

    layout: str = V0
    history_days: int = 3
    egocentric: bool = False
    max_players: int | None = None

    def __post_init__(self) -> None:
        if self.layout not in LAYOUTS:
            raise ValueError(f"observation {self.layout!r}: known layouts are {sorted(LAYOUTS)}")
        days = _whole("history_days", self.history_days, MAX_HISTORY_DAYS)
        object.__setattr__(self, "history_days", days)
        if self.max_players is not None:
            seats = _whole("max_players", self.max_players, MAX_MAX_PLAYERS)
            object.__setattr__(self, "max_players", seats)
        if not isinstance(self.egocentric, bool | np.bool_):
            raise ValueError(f"egocentric must be true or false, not {self.egocentric!r}")
        object.__setattr__(self, "egocentric", bool(self.egocentric))
        if self.layout == V0 and (self.egocentric or self.max_players is not None):
            raise ValueError("egocentric and max_players need observation='history'")

    def header(self) -> dict[str, Any]:
        """The layout's name, version and options, as policy files and env metadata keep them."""
        out: dict[str, Any] = {"layout": self.layout, "version": LAYOUTS[self.layout]}
        if self.layout == HISTORY:
            out.update(
                history_days=self.history_days,
                egocentric=self.egocentric,
                max_players=self.max_players,
            )
        return out

    @classmethod
    def from_header(cls, header: Mapping[str, Any] | None) -> ObservationSpec:
        """The spec a header names; no header (an older file) means v0. A version this
        code does not know is refused, so a policy is never fed a layout it was not
        trained on."""
        if not header:
            return cls()
        layout = str(header.get("layout", V0))
        if layout not in LAYOUTS or int(header.get("version", 0)) != LAYOUTS[layout]:
            raise ValueError(
                f"observation layout {layout}/{header.get('version')} is not known here "
                f"(known: {', '.join(f'{k}/{v}' for k, v in LAYOUTS.items())})"
            )
        if layout == V0:
            return cls()
        return cls(  # as written: a value of the wrong kind is refused, never converted
            HISTORY,
            header.get("history_days", 3),
            header.get("egocentric", False),
            header.get("max_players"),
        )


def make_encoder(
    variant: Variant, players: int, spec: ObservationSpec | None = None
) -> ObservationEncoder | HistoryEncoder:
    """The encoder of `spec`'s layout (v0 when None)."""
    spec = spec or ObservationSpec()
    if spec.layout == V0:
        return ObservationEncoder(variant, players)
    return HistoryEncoder(variant, players, spec)


class HistoryLayout:
    """Offsets of the global block and of the pieces of a seat row (module docstring)."""

    def __init__(self, variant: Variant, players: int, spec: ObservationSpec) -> None:
        self.spec = spec
        self.players = players
        self.seats = N = spec.max_players or players
        if players > N:
            raise ValueError(f"max_players {N} is below the player count {players}")
        self.days = k = spec.history_days
        self.roles = tuple(variant.roles)
        self.factions = tuple(variant.factions)
        appearances = {variant.appearance(r) for r in variant.roles}
        self.results = tuple(sorted(appearances | {"mafia", "innocent", NO_RESULT}))
        self.kinds = ("none", *(f"night:{s.name}" for s in variant.night), *DAY_KINDS, "other")
        self.max_rounds = max(1, int(evaluate(str(variant.rules.max_rounds), {"n": players})))
        R, F, A = len(self.roles), len(self.factions), len(self.results)
        self.globals = _blocks(
            [
                ("phase", (len(PHASES),)),
                ("day", (1,)),
                ("request", (len(self.kinds),)),
                ("free_text", (1,)),
                ("role", (R,)),
                ("faction", (F,)),
                ("players", (1,)),
                ("living", (1,)),
                ("quiet_nights", (k + 1,)),
            ]
        )
        self.global_size = sum(b.size for b in self.globals.values())
        self.pieces = _blocks(
            [
                ("present", (1,)),
                ("me", (1,)),
                ("alive", (1,)),
                ("death_day", (1,)),
                ("death_cause", (len(CAUSES),)),
                ("revealed", (R,)),
                ("ally", (R,)),
                ("check", (A,)),
                ("silenced", (1,)),
                ("nominee", (1,)),
                ("team_pick", (1,)),
                ("role_claim", (R,)),
                *((name, (k + 1, N)) for name in SLOT_PIECES),
            ]
        )
        self.row_size = sum(b.size for b in self.pieces.values())
        self.size = self.global_size + N * self.row_size
        self.role_index = {r: i for i, r in enumerate(self.roles)}
        self.role_lower = {r.lower(): i for i, r in enumerate(self.roles)}
        self.faction_index = {f: i for i, f in enumerate(self.factions)}
        self.result_index = {r: i for i, r in enumerate(self.results)}
        self.kind_index = {kind: i for i, kind in enumerate(self.kinds)}

    def position(self, seat: int, observer: int) -> int:
        """The row (and column) of `seat` for `observer` (-1: no observer, no rotation)."""
        if self.spec.egocentric and observer >= 0:
            return (seat - observer) % self.players
        return seat

    def slot(self, day: int, today: int) -> int:
        """The day slot of a fact dated `day` when it is now day `today`."""
        return min(max(today - day, 0), self.days)

    def rows(self, vector: np.ndarray) -> np.ndarray:
        """The seat rows of `vector` as an (N, W) view."""
        return vector[self.global_size :].reshape(self.seats, self.row_size)

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Every named piece: global blocks by name, seat-row pieces as ``rows.<piece>``
        with a leading row axis (``rows.ballot[row, slot, column]``)."""
        if vector.shape != (self.size,):
            raise ValueError(f"expected a vector of {self.size} values, got {vector.shape}")
        out = {
            name: vector[b.offset : b.offset + b.size].reshape(b.shape)
            for name, b in self.globals.items()
        }
        rows = self.rows(vector)
        for name, b in self.pieces.items():
            out[f"rows.{name}"] = rows[:, b.offset : b.offset + b.size].reshape(
                (self.seats, *b.shape)
            )
        return out

    def describe(self) -> str:
        """A markdown table of the global blocks and row pieces with their offsets."""
        lines = ["| block | offset | shape |", "| --- | --- | --- |"]
        lines += [
            f"| `{b.name}` | {b.offset} | {'×'.join(map(str, b.shape))} |"
            for b in self.globals.values()
        ]
        lines += [
            f"| `rows.{b.name}` | {self.global_size} + row×{self.row_size} + {b.offset} | "
            f"{'×'.join(map(str, b.shape))} |"
            for b in self.pieces.values()
        ]
        return "\n".join(lines) + f"\n\nsize: {self.size} ({self.seats} rows of {self.row_size})"


def _blocks(shapes: list[tuple[str, tuple[int, ...]]]) -> dict[str, Block]:
    blocks, offset = {}, 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        blocks[name] = Block(name, offset, shape, size)
        offset += size
    return blocks


class HistoryEncoder:
    """Encodes `View`s into the ``history`` layout (same interface as v0's encoder)."""

    def __init__(self, variant: Variant, players: int, spec: ObservationSpec) -> None:
        self.layout = HistoryLayout(variant, players, spec)
        self.size = self.layout.size
        self._last: tuple[Knowledge | None, np.ndarray] = (None, np.zeros(0, np.float32))

    def reset(self) -> None:
        """Forget the cached last encoding (between games)."""
        self._last = (None, np.zeros(0, np.float32))

    def encode(self, view: View, out: np.ndarray | None = None) -> np.ndarray:
        """The vector for `view`, written into `out` (a fresh array when None)."""
        return self.encode_knowledge(view.knowledge, view.request, view.seat, out)

    def encode_seat(
        self, fold: KnowledgeFold, request: Request | None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """The vector for a seat's live fold and its request, written into `out` (a
        fresh array when None), through the fold's snapshot (cached by the fold until
        its next entry)."""
        return self.encode_knowledge(fold.snapshot(), request, fold.seat, out)

    def encode_knowledge(
        self,
        k: Knowledge,
        request: Request | None,
        observer: int,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """The vector for knowledge `k` of `observer` (-1: the host) and its request.

        The knowledge part is cached per snapshot (a snapshot never changes), so asking
        for the mask and the observation of one decision encodes once."""
        last, cached = self._last
        if last is not k:
            cached = np.zeros(self.size, dtype=np.float32)
            _fill(self.layout, cached, k, observer)
            self._last = (k, cached)
        if out is None:
            out = cached.copy()
        else:
            out[:] = cached
        layout = self.layout
        kind = "none" if request is None else request.kind
        index = layout.kind_index.get(kind, len(layout.kinds) - 1)
        out[layout.globals["request"].offset + index] = 1.0
        if request is not None and request.free_text:
            out[layout.globals["free_text"].offset] = 1.0
        return out


def _fill(layout: HistoryLayout, out: np.ndarray, k: Knowledge, observer: int) -> None:
    """Write everything but the request into the zeroed vector `out`."""
    g = {name: out[b.offset : b.offset + b.size] for name, b in layout.globals.items()}
    n, today, rounds = layout.players, k.day, layout.max_rounds
    g["phase"][3 if k.over else PHASES.index(k.phase) if k.phase in PHASES else 0] = 1.0
    g["day"][0] = min(1.0, today / rounds)
    if k.role in layout.role_index:
        g["role"][layout.role_index[k.role]] = 1.0
    if k.faction in layout.faction_index:
        g["faction"][layout.faction_index[k.faction]] = 1.0
    g["players"][0] = n / layout.seats
    alive = k.alive[:n]
    g["living"][0] = sum(alive) / n if n else 0.0
    for day in k.quiet_nights:
        g["quiet_nights"][layout.slot(day, today)] = 1.0

    rows = layout.rows(out)
    p = {name: b.offset for name, b in layout.pieces.items()}
    N = layout.seats

    def ok(seat: object) -> bool:
        return isinstance(seat, int) and 0 <= seat < n

    def pos(seat: int) -> int:
        return layout.position(seat, observer)

    for seat in range(n):
        row = rows[pos(seat)]
        row[p["present"]] = 1.0
        row[p["me"]] = float(seat == observer)
        row[p["alive"]] = float(seat < len(alive) and alive[seat])
    for day, seat, cause in k.deaths:
        if ok(seat):
            row = rows[pos(seat)]
            row[p["death_day"]] = min(1.0, day / rounds)
            cause_index = CAUSES.index(cause) if cause in CAUSES else len(CAUSES) - 1
            row[p["death_cause"] + cause_index] = 1.0
    for piece, roles in (("revealed", k.revealed), ("ally", k.allies)):
        for seat, role in roles.items():
            if ok(seat) and role in layout.role_index:
                rows[pos(seat), p[piece] + layout.role_index[role]] = 1.0
    unknown = layout.result_index[NO_RESULT]
    for seat, result in k.checks.items():
        if ok(seat):
            rows[pos(seat), p["check"] + layout.result_index.get(result, unknown)] = 1.0
    for seat in k.silenced:
        if ok(seat):
            rows[pos(seat), p["silenced"]] = 1.0
    for seat in k.nominees.get(today, ()):
        if ok(seat):
            rows[pos(seat), p["nominee"]] = 1.0
    picked = [_pick_target(key) for key in k.latest_picks.values()]
    targets = [t for t in picked if t is not None and ok(t)]
    for chosen in set(targets):
        rows[pos(chosen), p["team_pick"]] = targets.count(chosen) / len(targets)

    def mark(piece: str, seat: int, day: int, target: object) -> None:
        if ok(seat) and ok(target):
            assert isinstance(target, int)
            rows[pos(seat), p[piece] + layout.slot(day, today) * N + pos(target)] = 1.0

    for day, votes in k.ballots:
        for voter, target in votes.votes.items():
            mark("ballot", voter, day, target)
    for day, _round, seat, target in k.nominations:
        mark("nomination", seat, day, target)
    for said in k.said:
        claim = said.claim
        if claim.kind == "claim_role":
            index = layout.role_lower.get((claim.value or "").lower())
            if index is not None and ok(said.seat):
                rows[pos(said.seat), p["role_claim"] + index] = 1.0
        elif claim.kind in ("accuse", "vouch"):
            mark(claim.kind, said.seat, said.day, claim.target)
        elif claim.kind == "claim_result":
            piece = "claim_mafia" if claim.value == "mafia" else "claim_innocent"
            mark(piece, said.seat, said.day, claim.target)


def _pick_target(key: str) -> int | None:
    parts = key.split(":")
    return int(parts[1]) if len(parts) >= 2 and parts[1].isdigit() else None


class StateEncoder:
    """The omniscient encoding for centralised critics (never a seat's observation).

    The ``history`` layout folded from the host's whole log (every event with an
    audience, public or private: all check results, every team's picks and allies) from
    no seat's point of view (no ``me`` row, no rotation, no request), followed by an
    (N, R + F) block of every seat's true current role and faction, one-hot.
    """

    def __init__(self, variant: Variant, players: int, spec: ObservationSpec | None) -> None:
        base = spec if spec is not None and spec.layout == HISTORY else ObservationSpec(HISTORY)
        self.spec = ObservationSpec(HISTORY, base.history_days, False, base.max_players)
        self.encoder = HistoryEncoder(variant, players, self.spec)
        self.layout = self.encoder.layout
        self.truth_width = len(self.layout.roles) + len(self.layout.factions)
        self.size = self.layout.size + self.layout.seats * self.truth_width
        self._roles = tuple(variant.roles)
        self._role_names = variant.role_names()
        self._game: Game | None = None
        self._fold = self._new_fold()
        self._seen = 0

    def _new_fold(self) -> KnowledgeFold:
        """A fold of the whole log, reading claims as the seats' folds read them."""
        return KnowledgeFold(-1, self._roles, role_names=self._role_names)

    def encode(self, game: Game) -> np.ndarray:
        """The state vector of `game` now."""
        if game is not self._game or self._seen > len(game.events):
            self._game, self._fold, self._seen = game, self._new_fold(), 0
        for event in game.events[self._seen :]:
            if event.seen is not None:
                self._fold.apply(event.seen)
        self._seen = len(game.events)
        out = np.zeros(self.size, dtype=np.float32)
        self.encoder.encode_knowledge(self._fold.snapshot(), None, -1, out[: self.layout.size])
        out[self.layout.globals["request"].offset] = 0.0  # no request: the host decides nothing
        truth = out[self.layout.size :].reshape(self.layout.seats, self.truth_width)
        roles, factions = self.layout.role_index, self.layout.faction_index
        for seat_state in game.state.seats:
            if seat_state.role in roles:
                truth[seat_state.seat, roles[seat_state.role]] = 1.0
            if seat_state.faction in factions:
                truth[seat_state.seat, len(roles) + factions[seat_state.faction]] = 1.0
        return out
