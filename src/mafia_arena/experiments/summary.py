"""`Summary`: what `run_tournament` returns (and the CLI prints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia_arena.tracking.summaries import WinTally


@dataclass
class Summary:
    """The outcome of one call of `run_tournament`.

    `games_void` counts the stored games that are void (decided by infrastructure
    failures; left out of the win rates; the next call plays them again);
    `games_played` counts the games this call played; `games_skipped` those already in
    the store when it started (resume); `games_stored` the store's games of this spec
    at the end. `games_per_s` is over the playing phase only (not Ray start-up, not
    MLflow logging); `executor` names what played them, ``"ray"`` only when a Ray
    cluster was started or joined (a call with nothing to play starts none).
    `matchups` holds, per matchup label, the games stored and each faction's win rate
    with its 95% Wilson interval.
    """

    experiment: str
    spec_hash: str
    results_dir: Path
    store_path: Path
    games_total: int
    games_stored: int = 0
    games_played: int = 0
    games_skipped: int = 0
    games_void: int = 0
    failed: dict[int, str] = field(default_factory=dict)
    wall_s: float = 0.0
    games_per_s: float = 0.0
    executor: str = "in-process"
    tracking_uri: str | None = None
    parent_run_id: str | None = None
    child_run_ids: dict[str, str] = field(default_factory=dict)
    matchups: dict[str, dict[str, Any]] = field(default_factory=dict)
    void_causes: dict[str, Counter[str]] = field(default_factory=dict)
    """Per agent whose seats fell back for infrastructure faults in void games: the
    fallback kinds of those games (``llm:connection``…), so a void game names what to
    fix (an endpoint down, a quota) rather than only a count."""
    void_errors: dict[str, str] = field(default_factory=dict)
    """Per agent of `void_causes`: the error its endpoint gave in the first void game
    whose decision traces say one (`first_void_error`), as the summary line shows it.

    Why: a kind such as ``llm:connection`` says what failed, not why; the error text
    (a refused connection, a 401, an unknown model) is what the user fixes, and it is
    otherwise only in the traces beside the logs."""

    _void_logs_read: dict[str, int] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """Per agent of `void_causes`: void games whose traces were read for an error."""

    @property
    def ok(self) -> bool:
        return not self.failed and not self.games_void and self.games_stored == self.games_total

    def add_matchups(
        self, matchups: Mapping[str, range], records: Iterable[dict[str, Any]]
    ) -> None:
        """Tally each matchup's games (by its label's range of game indices) in one pass
        over `records` (a list or a streamed store): games, void games, and each
        faction's win rate over the others."""
        tallies = {label: (indices, WinTally(), [0, 0]) for label, indices in matchups.items()}
        for record in records:
            for indices, wins, counts in tallies.values():
                if record["game_index"] in indices:
                    counts[0] += 1
                    if record.get("void"):
                        counts[1] += 1
                        self._note_void(record)
                    else:
                        wins.add(record)
        for label, (_, wins, (games, void)) in tallies.items():
            self.matchups[label] = {
                "games": games,
                "void": void,
                "win_rates": {
                    k: (round(e.value, 4), round(e.low, 4), round(e.high, 4))
                    for k, e in wins.table().items()
                },
            }

    def _note_void(self, record: Mapping[str, Any]) -> None:
        """Count a void game's fallback kinds under the agents whose seats fell back
        for infrastructure faults (the record keeps kinds per game, seats per agent)."""
        agents = sorted(
            {
                str(seat.get("agent"))
                for seat in record.get("seats", [])
                if seat.get("fallbacks_infrastructure")
            }
        )
        kinds = (record.get("fallback_record") or {}).get("by_kind", {})
        key = ", ".join(agents) or "unknown agent"
        tally = self.void_causes.setdefault(key, Counter())
        tally.update({str(kind): int(n) for kind, n in kinds.items()})
        tried = self._void_logs_read.get(key, 0)
        if key not in self.void_errors and tried < VOID_LOGS_READ:
            self._void_logs_read[key] = tried + 1
            error = first_void_error(self.store_path.parent, record)
            if error is not None:
                self.void_errors[key] = error

    def __str__(self) -> str:
        """The summary the command line prints. A call that played nothing (every game
        stored already: a rerun, or ``leaderboard SPEC``) says so rather than a rate of
        0 games/s on an executor that was never started."""
        pace = (
            f"in {self.wall_s:.1f} s, {self.games_per_s:.3g} games/s ({self.executor})"
            if self.games_played or self.failed
            else "nothing left to play"
        )
        lines = [
            f"{self.experiment} [{self.spec_hash}]: {self.games_stored}/{self.games_total} "
            f"games stored ({self.games_played} played now, {self.games_skipped} resumed, "
            f"{len(self.failed)} failed, {self.games_void} void) {pace}",
            f"results: {self.store_path}",
        ]
        if self.tracking_uri:
            lines.append(f"mlflow: {self.tracking_uri} (run {self.parent_run_id})")
        for label, info in self.matchups.items():
            rates = ", ".join(
                f"{k} {v[0]:.0%} [{v[1]:.0%}, {v[2]:.0%}]"
                for k, v in info["win_rates"].items()
                if v[0] or k != "draw"
            )
            void = f" ({info['void']} void, not counted)" if info.get("void") else ""
            lines.append(f"  {label}: {info['games']} games{void}; {rates or 'no game counted'}")
        for agents, kinds in sorted(self.void_causes.items()):
            shown = ", ".join(f"{kind} {n}" for kind, n in kinds.most_common(4))
            error = self.void_errors.get(agents)
            said = f"; first error: {error}" if error else ""
            lines.append(
                f"  void games' fallbacks, seats of {agents}: {shown or 'none recorded'}{said}"
            )
        for index, error in sorted(self.failed.items())[:5]:
            lines.append(f"  game {index} failed: {error.strip().splitlines()[-1]}")
        return "\n".join(lines)


VOID_LOGS_READ = 5
"""How many void games' traces `Summary` reads, per agent, for an error text: a few,
since a store of thousands of void games would otherwise be read whole for one line,
and games without the text (an agent of code, whose failures are not traced) say no
more the more are read."""

ERROR_SHOWN = 300
"""At most this many characters of an error text in the summary (a server's error
page can be long)."""


def first_void_error(folder: Path, record: Mapping[str, Any]) -> str | None:
    """The error text of the first infrastructure fallback in the decision traces of a
    void game (`record`, stored in the results `folder`), on one line; None when its
    traces hold none (no sidecar, an agent that keeps no traces, a sidecar that cannot
    be read: the summary then names the fallback kinds alone).

    A breaker's "circuit open" is passed over for an error of the endpoint itself when
    the game has one: it only says that earlier requests failed, not why."""
    from mafia_arena.runner.log import load_traces

    try:
        traces = load_traces(folder / str(record["log_path"]))
    except (KeyError, OSError, ValueError):  # LogFileError is a ValueError
        return None
    errors = [
        (str(t.get("fallback", "")), " ".join(str(t["reason"]).split()))
        for t in traces
        if t.get("attribution") == "infrastructure" and str(t.get("reason") or "").strip()
    ]
    if not errors:
        return None
    own = [text for kind, text in errors if not kind.endswith("circuit_open")]
    text = (own or [errors[0][1]])[0]
    return text if len(text) <= ERROR_SHOWN else text[: ERROR_SHOWN - 1] + "…"
