"""`GameLog`: a game's header and event log as JSON lines; `replay` rebuilds the game.

The header holds what determines the game (variant name and switches, players, seed);
the events include the host-only decision records, so the log alone replays to the same
final state and the same events (`replay_or_why` names a logged decision the rebuilt
game refuses, `replay_differs` says whether the replay gives the stored events). Its
``meta["code"]`` names the code that played the game (`mafia_arena.code_identity`:
version, commit, source digest, as the results store's records and manifest carry),
stamped when the log is made from a game (`from_game`; a caller's own ``meta["code"]``
wins) and kept as read when a log is loaded and saved again, so a log never claims the
code that merely re-saved it. Logs written before the field existed load and replay as
before (their meta simply has no ``code``). Likewise ``meta["variant_digest"]`` is the
content digest of the variant file that played the game (`rules.Variant.digest`; absent
for a variant built in memory and in older logs): a log that no longer replays after
that file was edited is said to be played with another version of the file, naming it,
not to be damaged. A variant read from a file other than the bundled one of its name (a
researcher's own file, `rules.loader.custom_file`) also has ``meta["variant_file"]``, the
file's absolute path (absent for bundled variants, whose logs stay as they were): the
header's ``variant`` is only the file's ``name``, which loads the bundled file or none.
A tournament's logs record it relative to their own folder instead where the file lies
in the project of the results folder (`input_files.reference_from`), so a results folder
moved with its project names no path of the machine that played it; a relative path is
read from the folder of the log file (`GameLog.path`, `variant_source`).
`played_variant` reads the rules a replay uses: a file given by the caller
(``mafia-arena replay --variant FILE``), else the recorded file, else the name; a
replay of a researcher's own file whose digest is not the one recorded is refused
before anything is replayed (`refused_before_replay`), never played against other
rules; a bundled file edited since replays as before, a difference named after it.

Decision traces (`traces`: one record per LLM decision, see
`mafia_arena.agents.llm_trace`) are host-side research data, not part of the game: `save`
writes them to a sidecar file beside the log (`game.jsonl` → `game.traces.jsonl`, one
record a line, only when there are any) and `load` reads it back when it exists. They
never enter the event log, so no seat view, replay or page can show them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia_arena.code_identity import code_identity, code_label
from mafia_arena.engine.catalogue import LOG_VERSION, DecisionRecord, GameEnded
from mafia_arena.engine.events import Event
from mafia_arena.engine.game import Game
from mafia_arena.input_files import read_reference
from mafia_arena.output_folders import write_whole
from mafia_arena.results_file import record_line
from mafia_arena.rules import Variant, load_variant
from mafia_arena.rules.loader import coerce, custom_file
from mafia_arena.sigterm import interrupts_deferred

FORMAT = f"mafia-arena-log/{LOG_VERSION}"
READABLE = ("mafia-arena-log/1", FORMAT)
"""Formats `load` reads: version 1 payloads are upgraded by `engine.catalogue`."""
STORED = "game logs and their trace files"
"""What `record_line` says is standard JSON when a log or sidecar holds NaN or Infinity."""


def overrides_played(variant: Variant, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """`overrides` checked against the variant a game was played with, for its log.

    A caller passes the variant and the overrides separately (the variant already
    switched); a switch given a value the variant was not loaded with would be recorded
    as played, and the log would replay another game, or none. Such a mismatch raises
    `ValueError` naming the switch, before anything is written. Dotted overrides (a rule
    path, not a switch) are recorded as given: the variant keeps no trace of them.
    """
    given = dict(overrides or {})
    for key, value in given.items():
        if key in variant.params and coerce(value) != variant.params[key]:
            raise ValueError(
                f"override {key}={value!r} does not match the variant played "
                f"({variant.name} has {key}={variant.params[key]!r}): load the variant "
                "with the same overrides as the log records"
            )
    return given


@dataclass
class GameLog:
    variant: str
    overrides: dict[str, Any]
    players: int
    seed: int
    events: list[Event]
    seating: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    traces: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = field(default=None, compare=False, repr=False)
    """The file the log was loaded from (`load`; None for one made or parsed in memory):
    where a relative ``meta["variant_file"]`` is read from (`variant_source`)."""

    @classmethod
    def from_game(
        cls,
        game: Game,
        overrides: dict[str, Any] | None = None,
        seating: list[str] | None = None,
        meta: dict[str, Any] | None = None,
        traces: list[dict[str, Any]] | None = None,
    ) -> GameLog:
        # the switch values in force, plus any dotted overrides, so the log replays alone
        switches = {**game.variant.params, **overrides_played(game.variant, overrides)}
        played: dict[str, Any] = {}
        if game.variant.digest:
            played["variant_digest"] = game.variant.digest
        own_file = custom_file(game.variant)
        if own_file is not None:  # only a researcher's own file: bundled logs unchanged
            played["variant_file"] = own_file
        meta = {"code": dict(code_identity()), **played, **(meta or {})}
        return cls(
            game.variant.name,
            switches,
            game.players,
            game.seed,
            list(game.events),
            list(seating or []),
            meta,
            list(traces or []),
        )

    def header(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "variant": self.variant,
            "overrides": self.overrides,
            "players": self.players,
            "seed": self.seed,
            "seating": self.seating,
            "meta": self.meta,
        }

    def to_jsonl(self) -> str:
        """The log as its file's text: standard JSON lines (`results_file.record_line`).

        A number that is not finite is a `ValueError` naming the line's record and field
        (``event 12: payload.cost``): the log's reader refuses NaN and Infinity, so a log
        holding one would be written but never read back."""
        lines = [record_line(self.header(), where="header", stored=STORED, sort_keys=True)]
        lines += [
            record_line(e.to_json(), where=f"event {e.seq}", stored=STORED, sort_keys=True)
            for e in self.events
        ]
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> Path:
        """Write the log to `path` and its traces to the sidecar (or remove a sidecar
        left there by an earlier log: it holds another game's traces, which `load` would
        take for this one's). Both texts are made first, so a log refused for a number
        that is not finite writes nothing.

        Each file is written whole (`output_folders.write_whole`), the sidecar before
        the log, and Ctrl-C or SIGTERM arriving meanwhile waits until both are out
        (`sigterm.interrupts_deferred`): a game stopped as its log is written leaves
        the log and its traces whole, never a truncated log that does not replay, a
        temporary file, or the log beside another game's traces."""
        path = Path(path)
        text, traces = self.to_jsonl(), self.traces_jsonl()
        path.parent.mkdir(parents=True, exist_ok=True)
        sidecar = traces_path(path)
        with interrupts_deferred():
            if traces:
                write_whole(sidecar, lambda partial: partial.write_text(traces, encoding="utf-8"))
            else:
                sidecar.unlink(missing_ok=True)
            write_whole(path, lambda partial: partial.write_text(text, encoding="utf-8"))
        return path

    def traces_jsonl(self) -> str:
        """The decision traces as the sidecar file's text (one record a line; "" if none),
        for stores that write logs themselves. Standard JSON like the log (`to_jsonl`):
        a number that is not finite is a `ValueError` naming the trace and field
        (``trace 3: latency_s``)."""
        lines = [
            record_line(
                t, where=f"trace {number}", stored=STORED, sort_keys=True, ensure_ascii=False
            )
            for number, t in enumerate(self.traces, 1)
        ]
        return "\n".join(lines) + "\n" if lines else ""

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        """The log stored at `path` with its sidecar's traces; a file that is not a sound
        log raises `runner.log_file.LogFileError` naming the file, line, key and reason."""
        from mafia_arena.runner.log_file import read_text

        path = Path(path)
        text = read_text(path, what=f"a game log ({FORMAT})")
        log = cls.loads(text, str(path), load_traces(path))
        log.path = path
        return log

    @classmethod
    def loads(
        cls, text: str, source: str = "<log>", traces: list[dict[str, Any]] | None = None
    ) -> GameLog:
        """A log from its JSONL text (what `to_jsonl` wrote); `source` names it in errors.

        The text is checked first (`runner.log_file.parse_log`): a header or an event that
        is not what the engine writes raises `LogFileError` (a `ValueError`) naming
        `source`, the line and the key, rather than failing later in a reader."""
        from mafia_arena.runner.log_file import parse_log

        header, events = parse_log(text, source)
        return cls(
            header["variant"],
            header["overrides"],
            header["players"],
            header["seed"],
            events,
            header.get("seating", []),
            header.get("meta", {}),
            traces or [],
        )

    @property
    def decision_facts(self) -> list[tuple[int, DecisionRecord]]:
        """(event seq, fact) of every logged decision (the host-only `DecisionRecord`
        events), in order: what `replay` resubmits."""
        return [(e.seq, e.fact) for e in self.events if isinstance(e.fact, DecisionRecord)]

    @property
    def decisions(self) -> list[dict[str, Any]]:
        """The logged decision records, in order."""
        return [fact.record() for _, fact in self.decision_facts]

    @property
    def result(self) -> GameEnded | None:
        for event in reversed(self.events):
            if isinstance(event.fact, GameEnded):
                return event.fact
        return None


def traces_path(log_path: Path) -> Path:
    """The decision-trace sidecar of a log file: ``x.jsonl`` → ``x.traces.jsonl``."""
    return log_path.with_name(f"{log_path.stem}.traces.jsonl")


def load_traces(log_path: Path) -> list[dict[str, Any]]:
    """The decision traces of a log file's sidecar ([] without one), checked
    (`runner.log_file.parse_traces`: a damaged sidecar raises `LogFileError`).

    Lines are split at ``\n`` only: the sidecar keeps non-ASCII text as it is
    (`GameLog.traces_jsonl`), and ``str.splitlines`` would also split inside a record
    at a U+2028, NEL or other separator that a model's or a person's text carried."""
    from mafia_arena.runner.log_file import parse_traces, read_text

    sidecar = traces_path(log_path)
    if not sidecar.exists():
        return []
    source = str(sidecar)
    return parse_traces(read_text(sidecar, what="a decision-trace file"), source)


@dataclass(frozen=True)
class _Refusal:
    """A logged decision the rebuilt game refused: the `number`-th of `total` decisions,
    event `seq`, the record as logged, and the engine's error."""

    number: int
    total: int
    seq: int
    record: dict[str, Any]
    error: Exception


def played_variant(log: GameLog, variant_file: str | Path | None = None) -> Variant:
    """The rules a replay of `log` is rebuilt with, loaded with the log's overrides:
    `variant_file` when given (a copy of the file that played the game), else the file
    the log records (``meta["variant_file"]``, a researcher's own variant file), else the
    bundled variant of the log's name. Raises `VariantError` when it does not load;
    whether it is the file that played the game is `variant_mismatch`'s question."""
    return load_variant(variant_source(log, variant_file), log.overrides)


def variant_source(log: GameLog, variant_file: str | Path | None = None) -> str | Path:
    """Where `played_variant` reads the rules of `log`: `variant_file` when given, else
    the file the log records (``meta["variant_file"]``, a `Path`; a relative one is taken
    from the folder of the log's file, `GameLog.path`, as `input_files.reference_from` wrote
    it), else the log's variant name (a `str`, looked up among the bundled variants)."""
    if variant_file is not None:
        return variant_file
    recorded = log.meta.get("variant_file")
    if not isinstance(recorded, str) or not recorded:
        return log.variant
    if log.path is None:
        return Path(recorded)
    return read_reference(recorded, log.path.parent)


def refused_before_replay(
    log: GameLog, variant: Variant, variant_file: str | Path | None = None
) -> str | None:
    """Why `log` is not replayed with `variant` at all, or None: the rules come from a
    file of the researcher's own (given as `variant_file`, or recorded in
    ``meta["variant_file"]``) whose digest is not the recorded one (`variant_mismatch`).

    A bundled variant whose file was edited since (an upgrade, a corrected comment) is
    replayed all the same, as before: an edit that changes the game shows as a replay
    that differs and is named by `replay_differs`, and one that does not (a comment)
    leaves an old log replayable. A researcher's own file has no such history, and a copy
    that keeps a bundled name must never be read as the bundled rules."""
    if variant_file is None and not log.meta.get("variant_file"):
        return None
    return variant_mismatch(log, variant)


def variant_mismatch(log: GameLog, variant: Variant) -> str | None:
    """Why `variant` must not replay `log`, or None: its file's content digest is not the
    ``meta["variant_digest"]`` the log records (`variant_edited`), with what to do.

    Why refuse before replaying rather than after: other rules may well replay the same
    events (a changed round limit the game never reached, another description), and a
    replay that matches would then vouch for rules that did not play the game."""
    edited = variant_edited(log, variant)
    if edited is None:
        return None
    return (
        f"{edited}, and a game is not replayed with other rules; give the file that "
        "played it: mafia-arena replay LOG --variant FILE"
    )


def variant_edited(log: GameLog, variant: Variant) -> str | None:
    """That `variant`'s file is not the one that played `log`, naming both digests, or
    None: the digests agree, or either is missing (logs older than the field, variants
    built in memory)."""
    played, now = log.meta.get("variant_digest"), variant.digest
    if not isinstance(played, str) or not played or not now or played == now:
        return None
    return (
        f"the variant file {variant.origin} differs from the one that played this game "
        f"(its content digest is {now}, the game was played with {played})"
    )


def _rebuild(log: GameLog, variant: Variant) -> tuple[Game, _Refusal | None]:
    """The game of `log`, rebuilt with `variant` by resubmitting its logged decisions in
    order, and the first decision the game refused (None when every one was taken); the
    game then stands just before that decision."""
    game = Game(variant, log.players, log.seed)
    decisions = log.decision_facts
    for number, (seq, fact) in enumerate(decisions, 1):
        record = fact.record()
        try:
            game.resubmit(record)
        except Exception as exc:  # anything the logged data makes the engine refuse
            return game, _Refusal(number, len(decisions), seq, record, exc)
    return game, None


def replay(log: GameLog, variant_file: str | Path | None = None) -> Game:
    """Rebuild the game by resubmitting the logged decisions (with `played_variant`'s
    rules); the engine's error for a logged decision it refuses is raised as it is
    (`replay_or_why` says which one), and a researcher's own file that is not the one
    that played the game raises `ValueError` (`refused_before_replay`)."""
    variant = played_variant(log, variant_file)
    mismatch = refused_before_replay(log, variant, variant_file)
    if mismatch is not None:
        raise ValueError(mismatch)
    game, refused = _rebuild(log, variant)
    if refused is not None:
        raise refused.error
    return game


def replay_or_why(
    log: GameLog, source: str = "<log>", variant_file: str | Path | None = None
) -> Game | str:
    """`replay` of the whole `log`, or why it cannot be rebuilt: a researcher's own file
    that is not the one that played it (`refused_before_replay`), or a logged decision
    the rebuilt game refuses (`source` names the log in that message). `variant_file`: as for
    `played_variant`.

    A hand-edited seed, a choice that is no longer legal or is not a choice at all makes
    `Game.resubmit` raise; that is what the log says, not a bug of the replay, so it is
    reported like a replay that differs: played by other code (`replay_differs`), else
    damaged, naming the decision and the error."""
    variant = played_variant(log, variant_file)
    mismatch = refused_before_replay(log, variant, variant_file)
    if mismatch is not None:
        return f"{source}: {mismatch}"
    game, refused = _rebuild(log, variant)
    if refused is None:
        return game
    exc = refused.error
    reason = " ".join(str(exc).split()) or "no message"
    failed = (
        f"{source}: decision {refused.number} of {refused.total} (event {refused.seq}, "
        f"seat {refused.record.get('seat')}) cannot be submitted again "
        f"({type(exc).__name__}: {reason})"
    )
    other = _played_elsewhere(log, game)
    return f"{failed}; {other}" if other else f"{failed} (it is damaged)"


def replay_differs(log: GameLog, game: Game) -> str | None:
    """None when `game` (`replay` of `log`) gives exactly the stored events; else why
    not: another version of the variant file or other code played the game
    (`_played_elsewhere`: a log kept from before an edit of ``envs/*.toml`` or an
    upgrade that changed what the engine logs), or else the log is damaged. The check,
    after `replay_or_why`, behind the web replay (`web.storage.replay_views`) and
    `mafia-arena replay`."""
    if [e.to_json() for e in game.events] == [e.to_json() for e in log.events]:
        return None
    return (
        _played_elsewhere(log, game) or "the log does not replay to the same game (it is damaged)"
    )


def _played_elsewhere(log: GameLog, game: Game) -> str | None:
    """Why a log that does not replay here may still be sound, or None: the variant file
    `game` was rebuilt from differs from the one that played it (`_other_variant`),
    other code played it (`_other_code`), or both."""
    reasons = [r for r in (_other_variant(log, game), _other_code(log)) if r]
    return "; ".join(reasons) or None


def _other_variant(log: GameLog, game: Game) -> str | None:
    """The variant file `game` was rebuilt from differs from the one that played it
    (`variant_mismatch`; `replay_or_why` refuses such a replay before it starts, this
    names it for a caller that rebuilt the game otherwise)."""
    return variant_mismatch(log, game.variant)


def _other_code(log: GameLog) -> str | None:
    """Why a log that does not replay here may still be sound: its ``meta["code"]``
    names other code than the running package's (None when it does not)."""
    wrote = log.meta.get("code") or {}
    runs = code_identity()
    if wrote.get("digest") and wrote.get("digest") != runs["digest"]:
        return (
            f"this game was played by other code (mafia-arena {code_label(wrote)}) than "
            f"this one ({runs['version']}, {runs['digest']}), and its log no longer "
            "replays to the same game here; that version of mafia-arena replays it"
        )
    return None
