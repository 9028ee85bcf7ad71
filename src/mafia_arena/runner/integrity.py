"""Who decided a game: the fallback record and the ``void`` verdict of a game log.

Contract
--------
:func:`fallback_record` reads a game's decision records (the log's host-only
``decision`` events, whose ``fallback`` key holds the reason a default was played) and
returns what :func:`~mafia_arena.runner.match.play_match` stores in ``log.meta``:

``meta["fallbacks"]``
    ``{"decisions": n, "infrastructure": n, "model": n, "by_kind": {reason: n},
    "by_seat": {"<seat>": {"decisions": n, "infrastructure": n, "model": n}}}``:
    every player decision counted (host records such as disqualifications are not), each
    fallback attributed by :func:`mafia_arena.llm.accounting.attribution` (``llm:timeout``,
    ``llm:connection``, ``llm:circuit_open``, the runner's ``timeout``/``error`` are
    infrastructure; ``llm:invalid_answer``, ``llm:empty_answer`` and ``illegal`` are the
    model's).
``meta["void"]``
    ``True`` when some seat had more than ``threshold`` (default
    :data:`VOID_THRESHOLD`) of its decisions made by infrastructure fallbacks: that seat
    did not really play, so the result says nothing about its agent. ``False`` otherwise.
``meta["void_reason"]``
    Present only for a void game: which seats and shares.

:func:`infrastructure_faults` gives, per seat, each infrastructure fallback reason and
its count: what a command reports when an endpoint failed a seat (a dead server would
otherwise end a game silently, every move played by the default).

Consumers: ratings and leaderboards must skip games whose ``meta["void"]`` is true and
may show ``infrastructure``/``model`` rates per agent from ``by_seat``; a resumed
tournament should play a void game again (same seed), since a deterministic replay of
the same decisions without the outage gives the result the game should have had.

Why from the log and not from the agents' counters: the log is the record that is
stored and replayed, so the verdict can be recomputed from any stored game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.llm.accounting import attribution

__all__ = ["VOID_THRESHOLD", "fallback_record", "infrastructure_faults", "void_verdict"]

#: Share of one seat's decisions made by infrastructure fallbacks above which the game
#: is void.
VOID_THRESHOLD = 0.2


def fallback_record(decisions: Iterable[DecisionRecord]) -> dict[str, Any]:
    """``meta["fallbacks"]`` of a game from its decision records (module docstring)."""
    by_kind: Counter[str] = Counter()
    by_seat: dict[str, dict[str, int]] = {}
    for record in decisions:
        if record.host:
            continue
        seat = by_seat.setdefault(
            str(record.seat), {"decisions": 0, "infrastructure": 0, "model": 0}
        )
        seat["decisions"] += 1
        reason = record.fallback
        if reason:
            by_kind[reason] += 1
            seat[attribution(reason)] += 1
    return {
        "decisions": sum(s["decisions"] for s in by_seat.values()),
        "infrastructure": sum(s["infrastructure"] for s in by_seat.values()),
        "model": sum(s["model"] for s in by_seat.values()),
        "by_kind": dict(sorted(by_kind.items())),
        "by_seat": dict(sorted(by_seat.items(), key=lambda item: int(item[0]))),
    }


def void_verdict(record: Mapping[str, Any], threshold: float = VOID_THRESHOLD) -> str | None:
    """Why the game is void (seats over the threshold), or None if it is not."""
    over = [
        f"P{int(seat) + 1} {s['infrastructure']}/{s['decisions']}"
        for seat, s in record["by_seat"].items()
        if s["decisions"] and s["infrastructure"] / s["decisions"] > threshold
    ]
    if not over:
        return None
    return f"decisions made by infrastructure fallbacks over {threshold:.0%}: " + ", ".join(over)


def infrastructure_faults(decisions: Iterable[DecisionRecord]) -> dict[int, Counter[str]]:
    """Per seat with any, how many of its decisions each infrastructure fallback reason
    made (``{seat: Counter({"llm:connection": n, ...})}``); host records left out."""
    faults: dict[int, Counter[str]] = {}
    for record in decisions:
        reason = record.fallback
        if record.host or not reason or attribution(reason) != "infrastructure":
            continue
        faults.setdefault(record.seat, Counter())[reason] += 1
    return faults
