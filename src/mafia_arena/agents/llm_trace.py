"""Decision traces of LLM players: what each decision was asked, answered and cost.

Contract
--------
* :func:`decision_trace` builds one JSON-ready record per LLM decision (never for a
  forced single-choice request, which asks no model). Keys:

  ``seat``, ``seq`` (the last event the seat had seen: its own stream index here; the
  runner stores the host log position of that event, as for beliefs), ``day``, ``kind`` (the request
  kind), ``call`` (``"choose"``, ``"complete"`` or ``null`` when no request was sent),
  ``template`` and ``template_version`` (the question template's name and the hash of
  its text), ``system_version``, ``prompt_hash`` (sha256, canonical JSON, of the
  exact messages of the call's first request, answer-format instruction included;
  ``null`` when no request was sent), ``sent_hashes`` (the same hash of every request
  the call sent, one per ask: re-asks add the bad answer and a correction turn, so each
  list extends the one before), ``question`` (the rendered question: the view the seat
  was asked about), ``messages`` (the exact messages of the call's last request, which
  hold every earlier one as their start; only with ``trace_prompts = "full"``),
  ``options`` (the option texts in the order shown), ``answers`` (every raw reply
  text, re-asks included), ``reasoning`` (thinking separated from the answer),
  ``choice`` (the chosen option text or ``null``), ``speech`` (the speech as
  published or ``null``), ``reason``, ``dropped`` (what the model wrote that was not
  used, and why: the part of each reply that carried both a content and a tool call
  that was not used, the client's ``dropped``; and the names of a private message's
  ``Also to:`` line that it was not sent to, `agents.llm_forum.unsent`; empty for most
  decisions), ``fallback`` (the error kind or ``null``),
  ``attribution`` (``"infrastructure"``, ``"model"`` or ``null``), ``tokens_in``,
  ``tokens_out``, ``usage_estimated``, ``latency_s``, ``requests``, ``reasks``,
  ``retries``, ``retry_causes`` and ``reask_causes`` (``retries`` and ``reasks`` by
  cause, `CallStats.retry_causes`: ``{"rate_limit": 2}``, each summing to its total;
  empty when there were none).
* Traces are host-side data: the runner stores them with the game (a sidecar file next
  to the log, see :class:`~mafia_arena.runner.log.GameLog`), never in an event, so no
  seat's view, prompt or page can contain another seat's trace.

Why a hash and the question rather than the whole prompt by default: the rest of the
prompt is the seat's transcript, which the stored log rebuilds exactly; keeping it per
decision would make a trace file quadratic in the game's length.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from mafia_arena.llm.accounting import CallStats, attribution

__all__ = ["decision_trace", "prompt_hash"]


def prompt_hash(messages: Sequence[Mapping[str, Any]]) -> str:
    """sha256 of the messages as canonical JSON: equal hashes mean equal prompts."""
    plain = [dict(m) for m in messages]
    data = json.dumps(plain, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def decision_trace(
    *,
    seat: int,
    seq: int,
    day: int,
    kind: str,
    call: str | None,
    template: str,
    versions: dict[str, str] | Any,
    sent: Sequence[Sequence[Mapping[str, Any]]],
    question: str,
    full_prompt: bool,
    stats: CallStats | None,
    fallback: str | None,
    options: Sequence[str] = (),
    answers: Sequence[str] = (),
    reasoning: str = "",
    choice: str | None = None,
    speech: str | None = None,
    reason: str = "",
    dropped: Sequence[str] = (),
) -> dict[str, Any]:
    """One trace record; see the module docstring for the keys. ``sent``: the messages
    of every request of the call, in order (empty when none was sent)."""
    stats = stats if stats is not None else CallStats()
    record: dict[str, Any] = {
        "seat": seat,
        "seq": seq,
        "day": day,
        "kind": kind,
        "call": call,
        "template": template,
        "template_version": versions.get(template, ""),
        "system_version": versions.get("system", ""),
        "prompt_hash": prompt_hash(sent[0]) if sent else None,
        "sent_hashes": [prompt_hash(messages) for messages in sent],
        "question": question,
        "options": list(options),
        "answers": list(answers),
        "reasoning": reasoning,
        "choice": choice,
        "speech": speech,
        "reason": reason,
        "dropped": list(dropped),
        "fallback": fallback,
        "attribution": attribution(fallback) if fallback else None,
        "tokens_in": stats.prompt_tokens,
        "tokens_out": stats.completion_tokens,
        "usage_estimated": stats.usage_estimated,
        "latency_s": round(stats.latency_s, 4),
        "requests": stats.requests,
        "reasks": stats.reasks,
        "retries": stats.retries,
        "retry_causes": dict(stats.retry_causes),
        "reask_causes": dict(stats.reask_causes),
    }
    if full_prompt:
        record["messages"] = [dict(m) for m in sent[-1]] if sent else []
    return record
