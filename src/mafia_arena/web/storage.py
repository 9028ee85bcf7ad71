"""Finished web games are stored like tournament games, and replayed from their logs.

`store` writes the `GameLog` (JSONL: header + every event, decisions included, so the
log replays) to ``<logs_dir>/<game id>.jsonl`` and appends one results record to
``<results_dir>/games.jsonl`` (the tournament store's file name and record format, so
`mafia-arena leaderboard <results_dir>` reads it like any tournament): one entry
per seat with ``agent`` (``human:<name>`` for people), ``agent_kind`` (``human`` for
human seats, also when a stand-in finished for them — flagged ``replaced``), role,
faction, side, won, survived, decisions and fallbacks. Human seats can therefore enter
the ``human`` and ``mixed`` leaderboard views.

The log's meta also holds the bot seats' fallback record and void verdict, and the
bots' decision traces are written beside the log (``<game id>.traces.jsonl``), as a
tournament stores them (`game_log`); the record carries ``void``, ``fallback_record``,
the per-seat split of fallbacks by blame and the bots' ``cards`` (copied from the log's
header, as a tournament record's).

`replay_views` rebuilds the game with `runner.replay` and renders every seat's view
from it, which is the after-game replay of the page (the page's lines, `render.lines`;
a stand-in's speech and votes tagged "(stand-in)" from the log's ``decided_by``), with
the moderator's lines and the LLM decisions' traces (host views, served only with the
replay, after the game).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mafia_arena.agents.base import AgentStats, extra_json
from mafia_arena.engine.catalogue import DecisionRecord, GameEnded
from mafia_arena.engine.game import Game
from mafia_arena.results_file import STORE_NAME, after_last_newline, record_line
from mafia_arena.runner.integrity import fallback_record, void_verdict
from mafia_arena.runner.log import GameLog, replay_differs, replay_or_why
from mafia_arena.runner.match import agent_cards, host_traces
from mafia_arena.runner.traces import trace_summary, traces_by_decision
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.endings import end_reason
from mafia_arena.views.people_text import audience_tag, people_line
from mafia_arena.views.pseudonyms import mask, owners_hidden, pseudonyms_in, tells_owner
from mafia_arena.views.text import name
from mafia_arena.views.view import SeatTracker
from mafia_arena.web.render import lines, role_titles
from mafia_arena.web.stand_ins import Moves, stand_in_moves, tag

if TYPE_CHECKING:
    from mafia_arena.web.session import GameSession

log = logging.getLogger(__name__)


def game_log(session: GameSession) -> GameLog:
    """The finished session's log: the game, who sat where, and what a tournament log
    also holds (`runner.match`): the fallback record and void verdict of the bot seats
    (``meta["fallbacks"]``, ``meta["void"]``, ``meta["void_reason"]``), the cards of
    the bots that have one (``meta["cards"]``: LLM players, trained policies) and the
    bots' decision traces (``log.traces``, dated on the host's timeline).

    Why bot seats only in the verdict: a person who lets the timer run out is no
    endpoint failure, so a human seat never makes a game void."""
    game = session.game
    assert game is not None
    slots = session.slots
    fallbacks = fallback_record(
        e.fact
        for e in game.events
        if isinstance(e.fact, DecisionRecord) and not slots[e.fact.seat].human
    )
    meta: dict[str, Any] = {
        "source": "web",
        "game_id": session.id,
        "agent_kinds": ["human" if s.human else s.agent.kind for s in slots],
        "agent_stats": [s.stats.to_json() for s in slots],
        "replaced": [s.was_replaced for s in slots],
        "stand_in": session.spec.replacement if session.spec.absent == "bot" else None,
        # who made each decision (player, bot, stand-in, timeout), in log order
        "decided_by": list(session.marks),
        "fallbacks": fallbacks,
    }
    reason = void_verdict(fallbacks)
    meta["void"] = reason is not None
    if reason is not None:
        meta["void_reason"] = reason
    bots = [a for s in slots for a in (s.agent, s.stand_in) if a is not None]
    cards = agent_cards(bots)  # the LLM and policy bots' cards, as a tournament's log
    if cards:
        meta["cards"] = cards
    traces = host_traces(bots, [s.tracker for s in slots])
    return GameLog.from_game(
        game, session.spec.overrides, [s.agent.name for s in slots], meta, traces
    )


def spec_hash(variant: str, overrides: dict[str, Any], players: int) -> str:
    """Identifies the rule setup (variant, switches, player count) like tournaments do."""
    blob = json.dumps(
        {"variant": variant, "overrides": overrides, "players": players}, sort_keys=True
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SeatEntry:
    """Who played a seat, for the record: name, kind, stats, whether a stand-in finished."""

    agent: str
    kind: str
    stats: AgentStats
    replaced: bool = False
    stand_in: str | None = None


def results_record(
    game: Game,
    overrides: dict[str, Any],
    entries: list[SeatEntry],
    game_id: str,
    log_path: Path | None,
    source: str = "web",
    decided_by: list[str] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The leaderboard record of a finished game (see `leaderboard.records`).

    `decided_by` marks each decision (``player``, ``bot``, ``stand-in``, ``timeout``):
    a stand-in's decisions are counted as the stand-in's (``stand_in_decisions``, with
    its name in ``stand_in``), not in the person's ``decisions`` and ``fallbacks``.
    `meta` (the log's, `game_log`) adds what a tournament record has: ``void``,
    ``void_reason`` (only when void), ``fallback_record``, ``cards`` (only when the
    log's header has any: the LLM and policy bots' cards, copied from it as a
    tournament record copies them, so a board published from a web store shows its
    model cards) and per seat ``fallbacks_infrastructure`` / ``fallbacks_model`` (bot
    seats; 0 for people).
    ``banned`` (only when there are any) lists the seats the rules bar from the next
    game (Palermo's removal for absences), for the platform to act on. A seat's
    ``extra`` (only where its agent keeps counters of its own: a trained policy's
    ``policy_decisions`` and ``fallback_decisions``) is that agent's, as a tournament
    record's; like ``tokens_in``, it leaves out the stand-in's."""
    meta = meta or {}
    blame = (meta.get("fallbacks") or {}).get("by_seat", {})
    assert game.over
    state = game.state
    marks = list(decided_by or [])
    marks += ["player"] * (len(game.decisions) - len(marks))
    own = [  # a host action is no seat's; a stand-in's decision is the stand-in's
        (d, by) for d, by in zip(game.decisions, marks, strict=True) if not d.get("host")
    ]
    decisions = Counter(d["seat"] for d, by in own if by != "stand-in")
    fallbacks = Counter(d["seat"] for d, by in own if d.get("fallback") and by != "stand-in")
    stood_in = Counter(d["seat"] for d, by in own if by == "stand-in")
    seats = []
    for seat_no, entry in enumerate(entries):
        seat = state.seats[seat_no]
        row: dict[str, Any] = {
            "seat": seat_no,
            "agent": entry.agent,
            "agent_kind": entry.kind,
            "role": seat.card,
            "faction": seat.faction,
            "side": game.variant.factions[seat.faction].side,
            "won": seat_no in state.winners,
            "survived": seat.alive,
            "decisions": decisions[seat_no],
            "fallbacks": fallbacks[seat_no],
            "fallbacks_infrastructure": int(blame.get(str(seat_no), {}).get("infrastructure", 0)),
            "fallbacks_model": int(blame.get(str(seat_no), {}).get("model", 0)),
            "tokens_in": entry.stats.tokens_in,
            "tokens_out": entry.stats.tokens_out,
            "cost": entry.stats.cost,
            "replaced": entry.replaced,
            "stand_in": entry.stand_in if stood_in[seat_no] else None,
            "stand_in_decisions": stood_in[seat_no],
        }
        if entry.stats.extra:  # the seat's agent's own counters, as a tournament's
            row["extra"] = extra_json(entry.stats.extra)
        seats.append(row)
    record: dict[str, Any] = {
        "experiment": source,
        "source": source,
        "game_id": game_id,
        "spec_hash": spec_hash(game.variant.name, overrides, game.players),
        "game_index": None,
        "seed": game.seed,
        "variant": game.variant.name,
        "overrides": overrides,
        "players": game.players,
        "winner": state.winner,
        "length_days": max((e.day for e in game.events), default=0),
        "seats": seats,
        "log": str(log_path) if log_path else None,
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "void": bool(meta.get("void", False)),
    }
    if "fallbacks" in meta:
        record["fallback_record"] = meta["fallbacks"]
    if meta.get("void_reason"):
        record["void_reason"] = str(meta["void_reason"])
    if meta.get("cards"):  # the log header's, as `experiments.records.build_record`
        record["cards"] = {agent: dict(card) for agent, card in meta["cards"].items()}
    if state.banned:
        record["banned"] = sorted(state.banned)
    return record


def save_game(
    log_: GameLog,
    record_of: Callable[[Path | None], dict[str, Any]],
    results_dir: Path,
    logs_dir: Path,
    game_id: str,
) -> dict[str, Any]:
    """Write the log and append the results record; return the record.

    A disk error is logged, not raised: the players still get their reveal and replay
    (served from memory), only the leaderboard misses the game.
    """
    path: Path | None = logs_dir / f"{game_id}.jsonl"
    try:
        log_.save(logs_dir / f"{game_id}.jsonl")
    except OSError:
        log.exception("could not write the log of game %s", game_id)
        path = None
    record = record_of(path)
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
        append_record(results_dir / STORE_NAME, record)
    except OSError:
        log.exception("could not append the result of game %s", game_id)
    return record


def append_record(store_path: Path, record: dict[str, Any]) -> None:
    """Append `record` as one line of the results store at `store_path`, first cutting
    off a last line without its ``\\n``.

    Why: a server killed (or a disk filled) while appending leaves a record cut short.
    Readers skip such a line while it is the last one, but the next record appended
    after it would join it into one malformed line in the middle of the store, and every
    leaderboard read of the store would then fail on it. The cut record's game is lost
    to the leaderboards, as any game whose record could not be written."""
    line = (record_line(record, sort_keys=True) + "\n").encode("utf-8")
    with store_path.open("ab+") as out:
        end = out.seek(0, os.SEEK_END)
        keep = after_last_newline(out, end)
        if keep != end:
            out.truncate(keep)
        out.write(line)


def store(session: GameSession) -> dict[str, Any]:
    """Store a finished web session (log + record); keeps the log on the session."""
    game = session.game
    assert game is not None
    session.log = stored = game_log(session)
    entries = [
        SeatEntry(
            s.agent.name,
            "human" if s.human else s.agent.kind,
            s.agent.stats,
            s.was_replaced,
            s.stand_in.name if s.stand_in is not None else None,
        )
        for s in session.slots
    ]
    record = save_game(
        stored,
        lambda path: results_record(
            game,
            session.spec.overrides,
            entries,
            session.id,
            path,
            decided_by=session.marks,
            meta=stored.meta,
        ),
        session.settings.results_dir,
        session.settings.logs_dir,
        session.id,
    )
    session.store.finish(session.id, stored.to_jsonl(), game.state.winner)
    return record


class ReplayMismatch(ValueError):
    """A stored log whose decisions no longer give its events; the message says why
    (`runner.log.replay_or_why`: a logged decision the game refuses, or
    `runner.log.replay_differs`: events that differ)."""


def replay_views(stored: GameLog) -> dict[str, Any]:
    """Every seat's view of a finished game, rebuilt from its log by `runner.replay`.

    Raises `ReplayMismatch` if the replay does not reproduce the stored events, or a
    logged decision cannot be submitted again (`runner.log.replay_or_why`): a damaged
    log, or one from other code, must not be shown as what happened.
    """
    game = replay_or_why(stored, "the stored log")
    if isinstance(game, str):
        raise ReplayMismatch(game)
    why = replay_differs(stored, game)
    if why is not None:
        raise ReplayMismatch(why)
    moves = stand_in_moves(game.events, stored.meta.get("decided_by") or [])
    names = DisplayNames.of(game.variant)  # the lines name roles and cards as live
    hidden = owners_hidden(game.variant)  # OP-D36: pseudonym owners stay secret
    hide = tells_owner if hidden else None
    seats = []
    for seat in range(game.players):
        knowledge = SeatTracker(seat).update(game)
        seats.append(
            {
                "seat": seat,
                "label": name(seat),
                "agent": stored.seating[seat] if seat < len(stored.seating) else "",
                "role": game.state.seats[seat].card,
                "lines": lines(
                    knowledge, moves=moves, hide=hide, names=names, variant=game.variant
                ),
            }
        )
    traces = [trace_summary(t, stored.seating) for t in ordered_traces(stored)]
    if hidden:  # a seat's prompt and answers name its own pseudonyms
        traces = mask(traces, pseudonyms_in(e.fact for e in game.events))
    return {
        "variant": stored.variant,
        "players": stored.players,
        "seed": stored.seed,
        "winner": game.state.winner,
        "reason": _end_reason(game),
        "role_titles": role_titles(game.variant),
        "seats": seats,
        "moderator": moderator_lines(game, moves),
        # the host view of the LLM decisions (`runner.traces`): served with the replay
        # only, which opens after the game
        "traces": traces,
    }


def _end_reason(game: Game) -> str:
    """Why the replayed game ended, as its end screen said (`views.endings.end_reason`);
    "" for a log without an end."""
    ended = next((e.fact for e in reversed(game.events) if isinstance(e.fact, GameEnded)), None)
    return "" if ended is None else end_reason(game, ended)


def ordered_traces(stored: GameLog) -> list[dict[str, Any]]:
    """The log's traces in the order of the decisions they led to (then the rest)."""
    placed, orphans = traces_by_decision(stored)
    return [t for seq in sorted(placed) for t in placed[seq]] + orphans


def moderator_lines(game: Game, moves: Moves | None = None) -> list[dict[str, Any]]:
    """The moderator's view of a finished game: every line any seat saw, each private
    one marked with who saw it (its ``tag``: the channel in the words a seat's line
    is tagged with and the seats, `views.people_text.audience_tag`; the host's own
    draws and decision records left out),
    a stand-in's speech and votes tagged (`web/stand_ins.py`, from `moves`), written as
    every seat's lines are: as people read them (`views.people_text.people_line`, the
    variant's names for roles and cards, kinds in words), the end's reason left to the
    replay's ``reason``.
    Served only with the replay, after the game, so the facts that tie a pseudonym to
    its owner are left out unless the host opted in (OP-D36, `views.pseudonyms`)."""
    hidden = owners_hidden(game.variant)
    names = DisplayNames.of(game.variant)
    out = []
    for event in game.events:
        if event.visibility.scope == "host" or (hidden and tells_owner(event.fact)):
            continue
        text = people_line(event, None, names, game.variant)
        if not text:
            continue
        text = tag(text, event.fact, moves)
        seen_by = ", ".join(name(s) for s in sorted(event.visibility.seats))
        channel = event.visibility.channel
        private = event.visibility.scope == "seats"
        entry = {
            "text": text,
            "kind": event.kind,
            "phase": event.phase,
            "day": event.day,
            "private": private,
            "channel": f"{channel}: {seen_by}" if channel else seen_by or None,
        }
        if private:  # the page's tag: whose line (the seats' words) and who saw it
            entry["tag"] = audience_tag(event, names, text)
        out.append(entry)
    return out
