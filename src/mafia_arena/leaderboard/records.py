"""Game records: reading the JSONL results store, validating, canonical order, views.

Every leaderboard number is computed from *finished-game records*, one JSON object per
game, as written by the experiment runner. This module turns those dicts into small
immutable :class:`GameResult` objects and puts them in a **canonical order** (sorted by
``(spec_hash, game_index, seed)`` with the full record as tie-breaker), each game's seats
in seat order.

Why a canonical order: the statistics we report are mathematically order-independent
(batch maximum likelihood, counts, means) or are made so by definition (OpenSkill fitted in
canonical order, bootstrap resamples drawn over the canonical list). Sorting first also
makes floating-point sums run in the same order, so shuffled input gives *bit-identical*
output, not merely output equal up to rounding.

Only the keys documented in ``docs/leaderboard.md`` are read; extra keys are ignored.
`check_store` checks a whole store line by line before a board is published or a
tournament resumed (`LeaderboardError`, naming file, line and reason).
A seat a stand-in played for a person who left is credited to the stand-in, never to
the person (:func:`stood_in`).

A *setup* is one rule set at one table size (:attr:`GameResult.setup`): the variant's
name and player count, and the switches the game was played with, so that games of two rule
sets are never fitted one side advantage. `prepare_games` refuses games that share a
setup's name but were played by another rule set (a researcher's own variant file under
a name another file of other rules bears, :func:`check_rule_sets`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from mafia_arena.results_file import (
    STORE_NAME,
    check_values,
    json_line,
    keyed,
    read_records,
    store_exists,
    stored_flag,
    stored_game_index,
)

__all__ = [
    "SIDE_ORDER",
    "GameResult",
    "LeaderboardError",
    "SeatResult",
    "View",
    "check_store",
    "filter_records",
    "load_records",
    "prepare_games",
    "stood_in",
]

View = Literal["all", "human", "bot", "mixed"]

#: Display / sort order of sides; unknown sides sort after these, alphabetically.
SIDE_ORDER: tuple[str, ...] = ("town", "mafia", "solo")

HUMAN_KIND = "human"

#: How a game log's header ``format`` starts (`runner.log.FORMAT`): `check_store`
#: names a game log given for a results store.
LOG_FORMAT_PREFIX = "mafia-arena-log/"


class LeaderboardError(ValueError):
    """The results to publish are missing, empty or not a results store; the message names
    the path (and the line, for a line that is not a game record)."""


#: ``agent_kind`` of a seat a stand-in played for a person who left (see
#: :func:`stood_in`): a bot, for the views, and never the person.
STAND_IN_KIND = "stand-in"


@dataclass(frozen=True)
class SeatResult:
    """One seat of one finished game, with the fields the leaderboard uses."""

    seat: int
    agent: str
    kind: str
    role: str
    faction: str
    side: str
    won: bool
    survived: bool | None
    decisions: int
    fallbacks: int
    tokens_in: int
    tokens_out: int
    cost: float
    metrics: Mapping[str, Any] = field(default_factory=dict)
    fallbacks_infrastructure: int = 0
    fallbacks_model: int = 0
    #: The agent's own further counters (the record's ``seats[].extra``: a trained
    #: policy's ``policy_decisions`` and ``fallback_decisions``); {} where it kept none.
    extra: Mapping[str, float] = field(default_factory=dict)

    def metric(self, name: str) -> float | None:
        """The per-seat metric ``name`` as a finite float, or None when absent/null/NaN."""
        value = self.metrics.get(name)
        if value is None or isinstance(value, bool):
            return None
        try:
            out = float(value)
        except (TypeError, ValueError):
            return None
        return out if math.isfinite(out) else None


@dataclass(frozen=True)
class GameResult:
    """One finished game. ``key`` is the canonical sort key (see module docstring)."""

    key: tuple[Any, ...]
    experiment: str
    spec_hash: str
    game_index: int | None
    seed: Any
    variant: str
    players: int
    winner: str | None
    length_days: int | None
    seats: tuple[SeatResult, ...]
    #: Decided by infrastructure failures (``"void": true``): never rated or counted as
    #: a win or loss; only the reliability columns see it.
    void: bool = False
    #: Model card per LLM agent of the game (``cards`` of the record; see
    #: ``experiments.records.model_card``).
    cards: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The switches the game was played with (the record's ``overrides``: a spec
    #: entry's ``set``, a web game's choice), by name; {} for none.
    switches: Mapping[str, Any] = field(default_factory=dict)
    #: The digest of the rules played (the record's ``rules_digest``), written only for
    #: a researcher's own variant file whose rules are not the bundled ones of its
    #: name; "" for the bundled rules.
    rules_digest: str = ""
    #: False for a game of a researcher's own variant file recorded before records kept
    #: its ``rules_digest``: no digest, and a variant name no bundled file bears, so its
    #: rules are neither the bundled ones nor known (:func:`rules_known`).
    rules_known: bool = True

    @property
    def setup(self) -> str:
        """Rule setup the side-advantage term is estimated for: ``"<variant>/<players>"``,
        followed by the switches set, e.g. ``"standard/7 (discussion_rounds=1)"``.

        Why every switch, not only those that change the rules: what a switch changes is
        the variant file's to say (its ``${name}`` may stand anywhere in the rules), so
        any switch set is taken as another rule set, a rule a reader can check on the
        board without knowing the file."""
        base = f"{self.variant}/{self.players}"
        if not self.switches:
            return base
        shown = ", ".join(f"{k}={_switch_value(v)}" for k, v in sorted(self.switches.items()))
        return f"{base} ({shown})"

    @property
    def winners(self) -> tuple[SeatResult, ...]:
        return tuple(s for s in self.seats if s.won)

    @property
    def losers(self) -> tuple[SeatResult, ...]:
        return tuple(s for s in self.seats if not s.won)

    @property
    def losing_teams(self) -> tuple[tuple[SeatResult, ...], ...]:
        """Losing seats grouped into teams, in a fixed order.

        A team is a faction (``faction`` field), except that every ``solo`` seat is a team
        of its own. Winners are always taken together as one team (:attr:`winners`), even
        when two factions share a win.
        """
        groups: dict[str, list[SeatResult]] = {}
        for seat in self.losers:
            key = f"solo:{seat.seat}" if seat.side == "solo" else f"faction:{seat.faction}"
            groups.setdefault(key, []).append(seat)
        return tuple(tuple(groups[k]) for k in sorted(groups))

    @property
    def is_draw(self) -> bool:
        """True when nobody won (``winner`` null, e.g. the day limit was reached)."""
        return self.winner is None or not self.winners

    @property
    def decisive(self) -> bool:
        """True when the game separates winners from losers, i.e. it can inform a rating
        (a void game never does: its result says nothing about the agents)."""
        return not self.void and not self.is_draw and bool(self.losers)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(s.kind for s in self.seats)


def _switch_value(value: Any) -> str:
    """A switch's value as ``--set KEY=VALUE`` writes it: text as it is, else JSON
    (``true``, ``1``, ``0.5``)."""
    return value if isinstance(value, str) else json.dumps(value)


def _int(value: Any, default: int = 0) -> int:
    if value is None or isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _float(value: Any, default: float = 0.0) -> float:
    if value is None or isinstance(value, bool):
        return default
    try:
        out = float(value)
    except (TypeError, ValueError):
        return default
    return out if math.isfinite(out) else default


def _sortable(value: Any) -> tuple[int, Any]:
    """Make mixed-type key parts comparable: None < numbers < strings."""
    if value is None:
        return (0, 0)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, int | float):
        return (1, value)
    return (2, str(value))


def stood_in(raw: Mapping[str, Any]) -> str | None:
    """The label a replaced seat is credited to, or None when the seat is its player's.

    A web game's record flags a seat whose person left and was replaced (``replaced``)
    and counts the decisions the stand-in bot made there (``stand_in_decisions``, its
    name in ``stand_in``; `web.storage.results_record`). When the stand-in made any of
    them, the seat's result is not the person's: a researcher rating people must not
    see a bot's win or loss in their rows. The seat keeps its place in the game (the
    teams the ratings compare stay whole) but is credited to ``stand-in:<agent>``, one
    row pooling every stand-in seat, of kind :data:`STAND_IN_KIND`."""
    if not raw.get("replaced") or _int(raw.get("stand_in_decisions")) <= 0:
        return None
    return f"stand-in:{raw.get('stand_in') or 'unknown'}"


def _parse_seat(raw: Mapping[str, Any], index: int, per_seat: Mapping[str, Any]) -> SeatResult:
    if not isinstance(raw, Mapping):
        raise ValueError(f"seat #{index} is not an object: {raw!r}")
    for required in ("agent", "side", "won"):
        if required not in raw:
            raise ValueError(f"seat #{index} lacks required key {required!r}")
    seat_no = _int(raw.get("seat"), index)
    metrics = per_seat.get(str(seat_no), per_seat.get(seat_no, {}))  # type: ignore[call-overload]
    if not isinstance(metrics, Mapping):
        metrics = {}
    won = _flag(raw["won"], f"seat #{index}: won")
    survived_raw = raw.get("survived")
    survived = None if survived_raw is None else _flag(survived_raw, f"seat #{index}: survived")
    stand_in = stood_in(raw)
    if stand_in is not None:  # the stand-in's decisions; the person's own count nowhere
        return SeatResult(
            seat=seat_no,
            agent=stand_in,
            kind=STAND_IN_KIND,
            role=str(raw.get("role") or "unknown"),
            faction=str(raw.get("faction") or raw["side"]),
            side=str(raw["side"]),
            won=won,
            survived=survived,
            decisions=_int(raw.get("stand_in_decisions")),
            fallbacks=0,
            tokens_in=0,
            tokens_out=0,
            cost=0.0,
            metrics=dict(metrics),
        )
    return SeatResult(
        seat=seat_no,
        agent=str(raw["agent"]),
        kind=str(raw.get("agent_kind") or "unknown"),
        role=str(raw.get("role") or "unknown"),
        faction=str(raw.get("faction") or raw["side"]),
        side=str(raw["side"]),
        won=won,
        survived=survived,
        decisions=_int(raw.get("decisions")),
        fallbacks=_int(raw.get("fallbacks")),
        tokens_in=_int(raw.get("tokens_in")),
        tokens_out=_int(raw.get("tokens_out")),
        cost=_float(raw.get("cost")),
        metrics=dict(metrics),
        fallbacks_infrastructure=_int(raw.get("fallbacks_infrastructure")),
        fallbacks_model=_int(raw.get("fallbacks_model")),
        extra=_extra(raw.get("extra")),
    )


def _extra(raw: Any) -> dict[str, float]:
    """A seat's ``extra`` counters as floats, {} where absent (a record written before
    it, or an agent that keeps none); a null counter is left out (not counted)."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): _float(v) for k, v in raw.items() if v is not None}


def parse_game(record: Mapping[str, Any]) -> GameResult:
    """Validate one record and convert it to a :class:`GameResult`.

    Raises ``ValueError`` for records that cannot be rated (no seat list, seats without
    ``agent``/``side``/``won``) or that would be misread: a ``won``, ``survived`` or
    ``void`` that is not a JSON boolean, a ``game_index`` that is not a whole number in
    the store's range (`results_file.stored_game_index`), any other value read here
    that has the wrong type (`results_file.check_values`: ``"metrics": "oops"`` would
    silently empty the metric columns, ``"role": 5`` make a role "5", ``"players":
    "seven"`` be taken as the number of seats). The message starts with the key. Extra
    keys are ignored.
    """
    if isinstance(record, GameResult):
        return record
    if not isinstance(record, Mapping):
        raise ValueError(f"game record is not an object: {type(record).__name__}")
    seats_raw = record.get("seats")
    if not isinstance(seats_raw, Sequence) or isinstance(seats_raw, str) or not seats_raw:
        raise ValueError("game record has no non-empty 'seats' list")
    metrics = record.get("metrics") or {}
    per_seat = metrics.get("per_seat") if isinstance(metrics, Mapping) else None
    if not isinstance(per_seat, Mapping):
        per_seat = {}
    # In seat order, however the record lists them: the sums over a game's seats then
    # run in one order, so the same game gives the same bits.
    parsed = (_parse_seat(s, i, per_seat) for i, s in enumerate(seats_raw))
    seats = tuple(sorted(parsed, key=lambda seat: seat.seat))
    winner = record.get("winner")
    spec_hash = str(record.get("spec_hash") or "")
    game_index = record.get("game_index")
    index = keyed("game_index", stored_game_index, game_index)
    void = _flag(record.get("void"), "void")
    check_values(record)  # every other value read below (and by the store's readers)
    seed = record.get("seed")
    # Full-record JSON as final tie-breaker: a total order even for duplicate keys.
    blob = json.dumps(record, sort_keys=True, default=str, separators=(",", ":"))
    key = (spec_hash, _sortable(game_index), _sortable(seed), blob)
    return GameResult(
        key=key,
        experiment=str(record.get("experiment") or ""),
        spec_hash=spec_hash,
        game_index=None if game_index is None else index,
        seed=seed,
        variant=str(record.get("variant") or "unknown"),
        players=_int(record.get("players"), len(seats)),
        winner=None if winner is None else str(winner),
        length_days=None if record.get("length_days") is None else _int(record["length_days"]),
        seats=seats,
        void=void,
        cards=_cards(record.get("cards")),
        switches=dict(record.get("overrides") or {}),
        rules_digest=str(record.get("rules_digest") or ""),
        rules_known=rules_known(record),
    )


#: What :func:`check_rule_sets` groups the games of an own variant file under when their
#: records carry no rules digest (:attr:`GameResult.rules_known` False).
UNKNOWN_RULES = "?"


def rules_known(record: Mapping[str, Any]) -> bool:
    """Whether `record` says which rules played it: it carries a ``rules_digest``, or
    names no variant, or a bundled one (played by the bundled rules, as every record
    without a digest was taken to be). False for a record that names a variant no
    bundled file bears and carries no digest: a game of a researcher's own variant file
    recorded before records kept the digest (tournaments since record it for every such
    file), whose rules are not known.

    Why tell them apart: taken as "the bundled rules" such games were pooled silently
    with other stores' games of a file of the same name whatever its rules, and named
    "bundled rules" where a setup was refused for two rule sets."""
    variant = record.get("variant")
    if record.get("rules_digest") or not isinstance(variant, str) or not variant:
        return True
    bundled = _bundled_names()
    return bundled is None or variant in bundled


@lru_cache(maxsize=1)
def _bundled_names() -> frozenset[str] | None:
    """The names of the bundled variants; None where no bundled variants are found
    (every record without a digest is then taken as played by the bundled rules, as
    before)."""
    from mafia_arena.rules import available_variants

    try:
        return frozenset(available_variants())
    except FileNotFoundError:
        return None


def _flag(value: Any, key: str) -> bool:
    """A true/false value of a record (`stored_flag`), its `ValueError` naming `key`:
    ``bool("false")`` is True, so a hand-edited string would flip a win or void a game."""
    return keyed(key, stored_flag, value)


def _cards(raw: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): dict(v) for k, v in raw.items() if isinstance(v, Mapping)}


def prepare_games(records: Iterable[Mapping[str, Any] | GameResult]) -> list[GameResult]:
    """Parse records (or pass through parsed games) and return them in canonical order.

    Raises `LeaderboardError` when two of them share a setup but not its rules
    (:func:`check_rule_sets`)."""
    games = [r if isinstance(r, GameResult) else parse_game(r) for r in records]
    games.sort(key=lambda g: g.key)
    check_rule_sets(games)
    return games


def check_rule_sets(games: Iterable[GameResult]) -> None:
    """Raise `LeaderboardError` when games of one :attr:`GameResult.setup` were played by
    different rules: a researcher's own variant file (its ``rules_digest``) beside
    another own file of the same name with other rules, or beside the bundled file of
    its name. The message names each rule set with the experiments and spec hashes
    whose games it played, so the stores can be told apart.

    Why refuse rather than pool: the name is all a board shows of a variant, and one
    spec never plays two rule sets under one name (`experiments.plan` refuses it); but
    records of several tournaments given together (`write_leaderboard` with two stores'
    records) may, and their side advantage, win rates and role tables would mix two
    games as one. Telling them apart on the board would take a name nobody wrote, while
    the fix is the researcher's one line: give the file a name of its own. A record
    without a digest counts as played by the bundled rules (so does one written before
    ``rules_digest`` existed), except where no bundled file bears its variant's name
    (:func:`rules_known`): such games of an own file, recorded before digests were kept,
    are refused beside games of any other rule set or of another spec, since whether
    their rules are the others' cannot be told; the games of one spec alone are rated,
    and the board says their rules were not recorded (`publish.render_readme`)."""
    seen: dict[str, dict[str, set[str]]] = {}
    names: dict[str, str] = {}
    for game in games:
        where = f"{game.experiment or '?'} (spec {game.spec_hash or '?'})"
        rules = game.rules_digest or ("" if game.rules_known else UNKNOWN_RULES)
        seen.setdefault(game.setup, {}).setdefault(rules, set()).add(where)
        names.setdefault(game.setup, game.variant)
    for setup, rule_sets in sorted(seen.items()):
        unknown = rule_sets.get(UNKNOWN_RULES, set())
        if len(rule_sets) > 1 or len(unknown) > 1:
            found = "; ".join(
                f"{_rule_set_label(rules)}: {', '.join(sorted(where))}"
                for rules, where in sorted(rule_sets.items())
            )
            played = (
                f"were played by {len(rule_sets)} rule sets"
                if len(rule_sets) > 1
                else f"of {len(unknown)} specs were played by rules their records do not say"
            )
            again = " (then its records carry the rules digest)" if unknown else ""
            raise LeaderboardError(
                f"setup {setup!r}: its games {played} under the variant name "
                f"{names[setup]!r} ({found}); one board would rate them as one setup. "
                'Give each own variant file a name of its own (name = "...") and play it '
                f"again{again}, or publish each store on its own"
            )


def _rule_set_label(rules: str) -> str:
    """How :func:`check_rule_sets` names a rule set: its digest, the bundled rules, or
    an own file's rules that its records do not say (`UNKNOWN_RULES`)."""
    if rules == UNKNOWN_RULES:
        return (
            "no rules digest (an own variant file's games recorded before rules digests "
            "were kept: their rules are not known)"
        )
    return f"rules digest {rules}" if rules else "no rules digest (bundled rules)"


def filter_records(
    records: Iterable[Mapping[str, Any] | GameResult], view: View = "all"
) -> list[Any]:
    """Select the games for one leaderboard view, by the ``agent_kind`` of their seats.

    * ``"all"``: every game.
    * ``"human"``: games in which every seat is a human.
    * ``"bot"``: games with no human seat (scripted, llm, rl, unknown all count as bots).
    * ``"mixed"``: games with at least one human and at least one bot seat.

    The input objects are returned unchanged (dicts stay dicts), in input order.
    """
    if view not in ("all", "human", "bot", "mixed"):
        raise ValueError(f"unknown view {view!r}; expected all, human, bot or mixed")
    out = []
    for record in records:
        if view == "all":
            out.append(record)
            continue
        kinds = (record if isinstance(record, GameResult) else parse_game(record)).kinds
        has_human = HUMAN_KIND in kinds
        has_bot = bool(kinds - {HUMAN_KIND})
        if (
            (view == "human" and has_human and not has_bot)
            or (view == "bot" and not has_human)
            or (view == "mixed" and has_human and has_bot)
        ):
            out.append(record)
    return out


def load_records(path: str | Path) -> list[dict[str, Any]]:
    """Read game records from a results store: its ``games.jsonl`` or the folder holding it.

    Uses the store's shared reader (`mafia_arena.results_file`), so a leaderboard reads
    exactly what a resumed tournament stored (one record per game, a truncated last line
    ignored, any other malformed line an error naming file and line).
    """
    path = Path(path)
    return read_records(path / STORE_NAME if path.is_dir() else path)


def check_store(path: Path) -> None:
    """Raise `LeaderboardError` unless every complete line of `path` is a game record
    the leaderboard can rate (a missing file is left to the caller: no records).

    A truncated last line is skipped, as the store's reader skips it."""
    if not store_exists(path):
        return
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n") or not line.strip():
                continue
            _check_line(path, number, line)


def _check_line(path: Path, number: int, line: bytes) -> None:
    try:
        record: Any = json_line(line)
    except json.JSONDecodeError as exc:
        raise LeaderboardError(f"{path}: line {number}: not a JSON record ({exc.msg})") from None
    if _is_game_log_line(record):
        raise LeaderboardError(
            f"{path}: line {number}: this looks like a game log, not a results store; give "
            f"the results folder or its {STORE_NAME}"
        )
    try:
        parse_game(record)
    except ValueError as exc:
        raise LeaderboardError(f"{path}: line {number}: not a game record: {exc}") from None


def _is_game_log_line(record: Any) -> bool:
    """A game log's header (its ``format``) or one of its events (``seq`` and ``kind``)."""
    if not isinstance(record, dict):
        return False
    header = str(record.get("format", "")).startswith(LOG_FORMAT_PREFIX)
    return header or ("seq" in record and "kind" in record and "seats" not in record)
