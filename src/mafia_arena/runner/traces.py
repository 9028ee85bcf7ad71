"""Decision traces read back beside their game: which decision each belongs to, and
how a person reads one (the replay's host view).

Contract
--------
* :func:`traces_by_decision` places every trace of a log (``log.traces``, see
  `agents.llm_trace`) after the decision it led to: the first decision record of the
  same seat and request kind after the trace's ``seq`` (the host log position of the
  last event the seat had seen). It returns ``{decision event seq: [traces]}`` and the
  traces of no recorded decision (a turn a ruling ended before the answer was
  submitted), in log order.
* :func:`trace_lines` renders one trace as indented text lines: the request kind and
  the decision, the question, every raw answer, the reasoning, the reason, what the
  model wrote that was not used (``dropped``, each as "not used"), tokens,
  latency, requests, re-asks, retries and the fallback with its blame.
* :func:`trace_summary` is the JSON a replay page shows for one trace (the same
  fields, with the seat's label and agent; never the full messages).

Traces are host data: only replays of finished games show them.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.runner.log import GameLog

__all__ = ["trace_lines", "trace_summary", "traces_by_decision"]

_SHOWN = (
    "seat",
    "seq",
    "day",
    "kind",
    "call",
    "template",
    "question",
    "options",
    "answers",
    "reasoning",
    "choice",
    "speech",
    "reason",
    "dropped",
    "fallback",
    "attribution",
    "tokens_in",
    "tokens_out",
    "latency_s",
    "requests",
    "reasks",
    "retries",
)


def traces_by_decision(
    log: GameLog,
) -> tuple[dict[int, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Each trace under its decision's event seq, and the traces of no decision."""
    decided: dict[tuple[int, str], list[int]] = {}
    for event in log.events:
        fact = event.fact
        if isinstance(fact, DecisionRecord) and not fact.host:
            decided.setdefault((fact.seat, fact.kind), []).append(event.seq)
    placed: dict[int, list[dict[str, Any]]] = {}
    orphans: list[dict[str, Any]] = []
    for trace in sorted(log.traces, key=lambda t: (t.get("seq", -1), t.get("seat", 0))):
        seqs = decided.get((int(trace.get("seat", -1)), str(trace.get("kind", ""))), [])
        at = bisect.bisect_right(seqs, int(trace.get("seq", -1)))
        if at < len(seqs):
            placed.setdefault(seqs[at], []).append(trace)
        else:
            orphans.append(trace)
    return placed, orphans


def _label(seat: Any) -> str:
    return f"P{int(seat) + 1}" if isinstance(seat, int) else "P?"


def _decided(trace: dict[str, Any]) -> str:
    if trace.get("fallback"):
        blame = trace.get("attribution") or "?"
        return f"fell back: {trace['fallback']} ({blame})"
    if trace.get("choice") is not None:
        return f"chose {trace['choice']!r}"
    if trace.get("speech") is not None:
        return "spoke"
    return "no decision"


def _indented(label: str, text: str, pad: str) -> list[str]:
    rows = str(text).splitlines() or [""]
    return [f"{pad}{label}: {rows[0]}"] + [f"{pad}{' ' * (len(label) + 2)}{r}" for r in rows[1:]]


def trace_lines(trace: dict[str, Any], agent: str = "", pad: str = "    ") -> list[str]:
    """One trace as text lines, each starting with `pad` (module docstring)."""
    who = _label(trace.get("seat")) + (f" ({agent})" if agent else "")
    out = [f"{pad}[trace] {who} {trace.get('kind', '')}: {_decided(trace)}"]
    inner = pad + "  "
    out += _indented("question", trace.get("question", ""), inner)
    answers: Sequence[str] = trace.get("answers") or []
    for number, answer in enumerate(answers, 1):
        out += _indented(f"answer {number}", answer, inner)
    if trace.get("reasoning"):
        out += _indented("reasoning", trace["reasoning"], inner)
    if trace.get("reason"):
        out += _indented("reason", trace["reason"], inner)
    for dropped in trace.get("dropped") or []:
        out += _indented("not used", dropped, inner)
    if trace.get("speech") is not None:
        out += _indented("speech", trace["speech"], inner)
    out.append(
        f"{inner}tokens {trace.get('tokens_in', 0)} in / {trace.get('tokens_out', 0)} out, "
        f"latency {float(trace.get('latency_s', 0.0)):.3f} s, "
        f"requests {trace.get('requests', 0)}, re-asks {trace.get('reasks', 0)}, "
        f"retries {trace.get('retries', 0)}"
    )
    return out


def trace_summary(trace: dict[str, Any], seating: Sequence[str]) -> dict[str, Any]:
    """The replay page's record of one trace (module docstring)."""
    seat = trace.get("seat")
    out = {key: trace.get(key) for key in _SHOWN}
    out["label"] = _label(seat)
    out["agent"] = seating[seat] if isinstance(seat, int) and 0 <= seat < len(seating) else ""
    out["decided"] = _decided(trace)
    return out
