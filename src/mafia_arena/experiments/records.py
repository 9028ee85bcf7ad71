"""The results-store record of one finished game.

The schema is a contract with the leaderboard package (docs/tournaments.md)::

    {"experiment", "spec_hash", "game_index", "seed", "variant", "players",
     "overrides" (only when the spec entry sets switches: {switch: value}),
     "rules_digest" (only for a researcher's own variant file),
     "winner" (faction or null), "length_days",
     "overrides" (the variant's switches in force, as the log's header; only when any),
     "seats": [{"seat", "agent", "agent_kind", "role", "faction", "side", "won",
                "survived", "decisions", "reasks", "retries", "fallbacks",
                "fallbacks_infrastructure", "fallbacks_model",
                "tokens_in", "tokens_out", "cost",
                "extra" (only for an agent that keeps its own counters)}],
     "metrics": {"per_seat": {"0": {...}}, "game": {...}},
     "void", "void_reason" (only when void), "fallback_record",
     "cards" (only with seats of agents that have a card: {agent: card}),
     "banned" (only when the rules barred seats from the next game: [seat, ...]),
     "log_path"}

Nothing in a record depends on time or on the machine, so the same game always gives
the same record byte for byte. `decisions` and `fallbacks` are the engine's counts (from
the log's decision events); re-asks, retries, tokens and cost are the agent's own.

``void``, ``void_reason`` and ``fallback_record`` are the log's verdict
(`runner.integrity`, ``log.meta``): a void game was decided by infrastructure failures,
so ratings and win rates leave it out and a resumed tournament plays it again.
``banned`` lists the seats the rules bar from the next game (Palermo's removal for
absences, `GameEnded.banned`), so a platform can act on it.
``fallbacks_infrastructure``/``fallbacks_model`` split a seat's fallbacks by who is to
blame. A seat's ``extra`` is the agent's own further counters as its log's header
records them (``meta.agent_stats``, `AgentStats.to_json`): a trained policy's
``policy_decisions`` and ``fallback_decisions`` (how many of the seat's decisions the
policy answered itself), an LLM player's belief calls; absent for agents that keep
none, so their records are what they were. ``cards`` holds each LLM agent's model
card (`model_card`): what a reader needs to know which model, endpoint kind, sampling,
prompt version and local build produced the play; and each trained policy's (its file
and the file's sha256, the fallback, the numpy version). It is the log header's
``meta["cards"]`` (`runner.match.agent_cards`), so a record and its log say the same.

``overrides`` and ``rules_digest`` say which rules the game was played by, beyond the
variant's name: the name alone does not, since a spec entry's switches change the rules
and keep the name, and a researcher's own file may bear any name. ``overrides`` holds
the switches the spec entry sets (its ``set = {...}``, under the key a web game's
record gives its switches); ``rules_digest`` is the digest of the rules played
(`rules.loader.rules_digest`, switches applied, as a trained policy's file records it)
for a researcher's own variant file whose rules are not the bundled ones of its name
(`own_rules_digest`). The leaderboard tells setups apart by them (docs/leaderboard.md).
Both are left out where they would say nothing (no switches, the bundled rules), so
those records are what they were. The file's path is not recorded: it belongs to one
machine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from mafia_arena.agents.base import Agent
from mafia_arena.metrics import extract_facts, metrics_of_facts
from mafia_arena.rules import (
    Variant,
    VariantError,
    available_variants,
    custom_file,
    load_variant,
    rules_digest,
)
from mafia_arena.runner.match import MatchResult

SEAT_KEYS = (
    "seat",
    "agent",
    "agent_kind",
    "role",
    "faction",
    "side",
    "won",
    "survived",
    "decisions",
    "reasks",
    "retries",
    "fallbacks",
    "fallbacks_infrastructure",
    "fallbacks_model",
    "tokens_in",
    "tokens_out",
    "cost",
)
RECORD_KEYS = (
    "experiment",
    "spec_hash",
    "game_index",
    "seed",
    "variant",
    "players",
    "winner",
    "length_days",
    "seats",
    "metrics",
    "void",
    "fallback_record",
    "log_path",
)


#: The keys `build_record` writes into every record, and into every seat of one: what
#: the driver's own readers (its resume, the MLflow tallies) take without a default.
WRITTEN_KEYS = ("seed", "variant", "players", "winner", "length_days", "seats", "log_path")
WRITTEN_SEAT_KEYS = ("seat", "agent", "role", "faction", "side", "won", "survived")


def check_written_keys(record: Mapping[str, Any]) -> None:
    """Raise `ValueError` (``"<key>: <reason>"``) for the first of `WRITTEN_KEYS` (or,
    in a seat, `WRITTEN_SEAT_KEYS`) that `record` lacks.

    Why: the results reader leaves an absent key to each reader's default (a web game's
    record has no ``metrics``), but a tournament's own records always hold these, and
    its tracked resume reads them without one; a record whose ``log_path`` or a seat's
    ``role`` was deleted by hand stopped it with a ``KeyError`` traceback. The types are
    `results_file.check_values`'."""
    for key in WRITTEN_KEYS:
        if key not in record:
            raise ValueError(f"{key}: missing (every record a tournament writes has it)")
    for index, seat in enumerate(record["seats"] or ()):
        for key in WRITTEN_SEAT_KEYS:
            if key not in seat:
                raise ValueError(
                    f"seat #{index}: {key}: missing (every seat a tournament writes has it)"
                )


def log_path(game_index: int) -> str:
    """Where a game's log lives, relative to the results folder."""
    return f"logs/game-{game_index:06d}.jsonl"


def build_record(
    *,
    experiment: str,
    spec_hash: str,
    game_index: int,
    seed: int,
    variant: Variant,
    agents: Sequence[Agent],
    result: MatchResult,
    switches: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a played game (metrics computed here, from its log).

    `switches` are the spec entry's ``set`` (`Matchup.overrides`), already applied to
    `variant`: recorded, sorted by name, as ``overrides`` when there are any."""
    facts = extract_facts(result.log, variant)
    meta = result.log.meta
    fallbacks = meta.get("fallbacks") or {"by_seat": {}}
    seats = []
    cards = {name: dict(card) for name, card in (meta.get("cards") or {}).items()}
    for seat, agent in enumerate(agents):
        stats = result.stats[seat] if seat < len(result.stats) else {}
        blame = fallbacks["by_seat"].get(str(seat), {})
        entry: dict[str, Any] = {
            "seat": seat,
            "agent": agent.name,
            "agent_kind": agent.kind,
            "role": facts.roles.get(seat, ""),
            "faction": facts.factions.get(seat, ""),
            "side": facts.side_of(seat),
            "won": seat in facts.winners,
            "survived": facts.survived(seat),
            "decisions": facts.decisions.get(seat, 0),
            "reasks": int(stats.get("reasks", 0)),
            "retries": int(stats.get("retries", 0)),
            "fallbacks": facts.fallbacks.get(seat, 0),
            "fallbacks_infrastructure": int(blame.get("infrastructure", 0)),
            "fallbacks_model": int(blame.get("model", 0)),
            "tokens_in": int(stats.get("tokens_in", 0)),
            "tokens_out": int(stats.get("tokens_out", 0)),
            "cost": float(stats.get("cost", 0.0)),
        }
        if stats.get("extra"):
            entry["extra"] = dict(stats["extra"])
        seats.append(entry)
    record: dict[str, Any] = {
        "experiment": experiment,
        "spec_hash": spec_hash,
        "game_index": game_index,
        "seed": seed,
        "variant": variant.name,
        "players": len(agents),
        **({"overrides": dict(sorted(switches.items()))} if switches else {}),
        **({"rules_digest": digest} if (digest := own_rules_digest(variant, switches)) else {}),
        "winner": result.winner,
        "length_days": facts.length_days,
        "seats": seats,
        "metrics": metrics_of_facts(facts),
        "void": bool(meta.get("void", False)),
        "fallback_record": fallbacks,
        "log_path": log_path(game_index),
    }
    if meta.get("void_reason"):
        record["void_reason"] = str(meta["void_reason"])
    if cards:
        record["cards"] = cards
    ended = result.log.result
    if ended is not None and ended.banned:
        record["banned"] = list(ended.banned)
    return record


def own_rules_digest(variant: Variant, switches: Mapping[str, Any] | None) -> str | None:
    """`rules_digest` of `variant` (played with `switches`) when it was read from a
    researcher's own file (`custom_file`) and its rules are not those of the bundled
    variant of its name with the same switches; None otherwise.

    Why not every own file: a copy of a bundled file that keeps its name and its rules
    (a comment more) plays the bundled games, and a spec may play it beside the bundled
    file (`experiments.plan` takes it); their records must be one setup's, as they are
    when neither carries a digest."""
    if custom_file(variant) is None:
        return None
    digest = rules_digest(variant)
    bundled = _bundled_rules(variant.name, json.dumps(dict(switches or {}), sort_keys=True))
    return None if digest == bundled else digest


@lru_cache(maxsize=32)
def _bundled_rules(name: str, switches: str) -> str | None:
    """`rules_digest` of the bundled variant `name` with `switches` (JSON), None where
    there is none or it does not take them (a switch of the own file only)."""
    if name not in available_variants():
        return None
    try:
        return rules_digest(load_variant(name, json.loads(switches)))
    except VariantError:
        return None


def model_card(agent: Agent) -> dict[str, Any] | None:
    """The card of an agent that has one (``agent.card()``: LLM players, trained
    policies), as a plain dict, else None. Scripted and human players have none."""
    card = agent.card()
    return None if card is None else dict(card)
