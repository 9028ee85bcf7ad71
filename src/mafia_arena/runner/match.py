"""Play one game with seated agents.

`play_match` is asynchronous: the requests the rules make simultaneous (night picks,
votes) are sent to their agents concurrently, so LLM calls of different seats — and of
different games in one event loop — overlap. An agent that raises, times out or returns
an illegal decision never stops the game: the seat's default is recorded as a fallback
and counted, and a raise or a timeout is logged as a warning naming the agent and the
error (the game log keeps only ``error`` or ``timeout``). An agent may also report a
fallback itself (`take_fallback()`, LLM players do after a failed model call): then the
engine's default is recorded with that reason. A person (`HumanAgent`, the terminal
player) whose decision the engine refuses is told the engine's reason and asked again,
as the web page asks (`web.driver`): a mistyped form must not become a default move
played in their name.
Agents that have a model card (`Agent.card`: LLM players, trained policies) have it copied
to `log.meta["cards"]` by agent name. Agents that keep stated `beliefs` (LLM players with
`state_beliefs`) have them copied to `log.meta["beliefs"]`; agents that keep decision
`traces` (LLM players) have them copied to `log.traces` (stored beside the log, never
shown to a seat). Every log's meta
carries the fallback record and the `void` verdict of `runner.integrity`.
`play_match_sync` is the fast path for agents that are all `synchronous` (scripted
players, trained policies): their decisions are deterministic code, so an exception there
is a bug that would recur in every game, and it propagates (a tournament reports the game
as failed, with the error) rather than turning the seat into a run of defaults. No agent is
given the game seed: each seat gets its own seed derived with the host's key
(`mafia_arena.seat_seeds`). `shuffle_names` / `shuffle_options` (an experiment's
switches) give every agent that presents the game to a model (`set_presentation`: LLM
players) the game's `Presentation`, drawn from the game seed (names permuted per game,
never from the deal); it is recorded in `log.meta["presentation"]`, so a replay rebuilds
the prompts. The engine and its log keep the table's own names.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from mafia_arena.agents.base import Agent, all_synchronous
from mafia_arena.agents.human import HumanAgent
from mafia_arena.engine.catalogue import DecisionRecord
from mafia_arena.engine.choices import Decision
from mafia_arena.engine.errors import IllegalDecision
from mafia_arena.engine.game import Game
from mafia_arena.rules import Variant
from mafia_arena.runner.integrity import VOID_THRESHOLD, fallback_record, void_verdict
from mafia_arena.runner.log import GameLog
from mafia_arena.seat_seeds import new_host_key, seat_seeds
from mafia_arena.views.shown_names import Presentation
from mafia_arena.views.view import SeatTracker

_log = logging.getLogger(__name__)


@dataclass
class MatchResult:
    log: GameLog
    winner: str | None
    stats: list[dict[str, Any]] = field(default_factory=list)

    @property
    def game_length(self) -> int:
        return max((e.day for e in self.log.events), default=0)


def _prepare(
    variant: Variant,
    agents: Sequence[Agent],
    seed: int,
    host_key: bytes | None,
    shuffle_names: bool,
    shuffle_options: bool,
) -> tuple[Game, Presentation]:
    """Start the game; hand every agent its seat, its own seed, the exact variant and
    (to agents that show the game to a model) the game's presentation.

    The agents never see `seed` (it rebuilds the deal): each gets the seat seed derived
    with `host_key` (a fresh random key when None, so such games are not reproducible
    through the agents' own randomness); the presentation's names are drawn with the
    same key."""
    key = new_host_key() if host_key is None else host_key
    presentation = Presentation.for_game(
        seed, len(agents), key=key, shuffle_names=shuffle_names, shuffle_options=shuffle_options
    )
    game = Game(variant, len(agents), seed)
    for seat, (agent, seat_seed) in enumerate(
        zip(agents, seat_seeds(key, seed, len(agents)), strict=True)
    ):
        agent.reset(seat, seat_seed)
        agent.set_variant(variant)  # LLM players describe the exact rules (switches too)
        agent.set_presentation(presentation)
    return game, presentation


def _result(
    game: Game,
    agents: Sequence[Agent],
    overrides: dict[str, Any] | None,
    trackers: Sequence[SeatTracker],
    presentation: Presentation,
    void_threshold: float = VOID_THRESHOLD,
) -> MatchResult:
    stats = [a.stats.to_json() for a in agents]
    meta: dict[str, Any] = {"agent_stats": stats, "agent_kinds": [a.kind for a in agents]}
    cards = agent_cards(agents)
    if cards:
        meta["cards"] = cards
    if presentation.active:
        meta["presentation"] = presentation.to_json()
    # beliefs stated by agents that keep them (LLM players with state_beliefs = true);
    # a seat dates a belief by its own stream position, the log by the host's
    beliefs = [_on_host_timeline(dict(b), trackers) for a in agents for b in a.beliefs]
    if beliefs:
        meta["beliefs"] = sorted(beliefs, key=lambda b: (b.get("seq", 0), b.get("seat", 0)))
    record = fallback_record(e.fact for e in game.events if isinstance(e.fact, DecisionRecord))
    meta["fallbacks"] = record
    reason = void_verdict(record, void_threshold)
    meta["void"] = reason is not None
    if reason is not None:
        meta["void_reason"] = reason
    traces = host_traces(agents, trackers)
    log = GameLog.from_game(game, overrides, [a.name for a in agents], meta, traces)
    return MatchResult(log, game.state.winner, stats)


def agent_cards(agents: Sequence[Agent]) -> dict[str, dict[str, Any]]:
    """``{agent name: card}`` of the seated agents that have a card (`Agent.card`: an
    LLM player's model, endpoint kind, sampling, prompts and local build; a trained
    policy's file and its hash), in seat order; {} when none has one.

    Why in the log's header: a log read apart from its results record must still say
    which model or weights played it. Scripted players have no card, so their logs
    keep the bytes they had."""
    cards: dict[str, dict[str, Any]] = {}
    for agent in agents:
        card = agent.card()
        if card is not None:
            cards.setdefault(agent.name, dict(card))
    return cards


def host_traces(agents: Sequence[Agent], trackers: Sequence[SeatTracker]) -> list[dict[str, Any]]:
    """The agents' decision traces for `log.traces`, dated on the host's timeline.

    A seat dates a trace by its own stream position (the last entry it had seen); the
    log's ``seq`` is the host log position of that entry, so traces of different seats
    sort into one order (stable: a seat's traces at one position keep their order)."""
    traces = [_on_host_timeline(dict(t), trackers) for a in agents for t in a.traces]
    traces.sort(key=lambda t: (t.get("seq", 0), t.get("seat", 0)))
    return traces


def _on_host_timeline(record: dict[str, Any], trackers: Sequence[SeatTracker]) -> dict[str, Any]:
    """`record` (a belief or a trace) with its seat-local ``seq`` made a host position."""
    seat = record.get("seat")
    if isinstance(seat, int) and 0 <= seat < len(trackers):
        stream = trackers[seat].stream
        if stream is not None:
            record["seq"] = stream.host_seq(int(record.get("seq", -1)))
    return record


def _submit(game: Game, seat: int, agent: Agent, decision: Decision) -> None:
    """Record `decision`, or the engine's default where the agent reported a fallback
    for it (counted by the agent) or the decision is illegal (counted here)."""
    reason = agent.take_fallback()
    try:
        if reason:
            game.submit_default(seat, reason)
        else:
            game.submit(seat, decision)
    except IllegalDecision:
        _fallback(game, seat, agent, "illegal")


async def _submit_asking_again(
    game: Game,
    seat: int,
    agent: Agent,
    decision: Decision,
    ask: Callable[[], Awaitable[Decision]],
    timeout: float | None,
) -> None:
    """`_submit`; but a `HumanAgent` whose decision the engine refuses is shown the
    reason (`HumanAgent.reject`) and asked again (`ask`) until it is accepted. Nothing
    is logged for a refused decision, so the game replays from its log alike."""
    while isinstance(agent, HumanAgent):
        try:
            game.submit(seat, decision)
            return
        except IllegalDecision as exc:
            agent.reject(exc.reason)
        try:
            decision = await ask()
        except Exception as error:
            _warn(agent, seat, error, timeout)
            _fallback(game, seat, agent, "timeout" if isinstance(error, TimeoutError) else "error")
            return
    _submit(game, seat, agent, decision)


def _warn(agent: Agent, seat: int, error: BaseException, timeout: float | None) -> None:
    """Say why a seat's decision was a fallback: the log records only ``timeout`` or
    ``error`` (what an agent's exception says is neither deterministic nor the table's
    business), so without this an agent's bug would pass as a run of default moves."""
    if isinstance(error, TimeoutError) and timeout is not None:
        _log.warning("agent %s (seat %d) gave no decision within %ss", agent.name, seat, timeout)
    else:
        _log.warning(
            "agent %s (seat %d) raised %s: %s; its seat plays the default",
            agent.name,
            seat,
            type(error).__name__,
            error,
            exc_info=error,
        )


def _fallback(game: Game, seat: int, agent: Agent, reason: str) -> None:
    agent.stats.fallbacks += 1
    game.submit_default(seat, reason)


def play_match_sync(
    variant: Variant,
    agents: Sequence[Agent],
    seed: int,
    overrides: dict[str, Any] | None = None,
    *,
    host_key: bytes | None = None,
    void_threshold: float = VOID_THRESHOLD,
    shuffle_names: bool = False,
    shuffle_options: bool = False,
) -> MatchResult:
    """Play a game whose agents are all `synchronous` (scripted players), no event loop;
    an agent's exception propagates (module doc).

    `host_key` derives the agents' seat seeds (`mafia_arena.seat_seeds`); the same
    variant, seed, key and agents give the same log, and the same log as `play_match`
    gives: the seats of a simultaneous request answer in seat order in both (the engine
    asks them in its own order, a club simultaneous ballot in speaking order, and the log
    records the answers in the order they come). `void_threshold`: as in
    `play_match`; `shuffle_names`, `shuffle_options`: the presentation switches
    (module doc)."""
    if not all_synchronous(agents):
        slow = sorted({a.name for a in agents if not a.synchronous})
        raise TypeError(f"play_match_sync needs synchronous agents; await play_match for {slow}")
    game, presentation = _prepare(variant, agents, seed, host_key, shuffle_names, shuffle_options)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    while not game.over:
        for seat in sorted(game.pending()):
            agent = agents[seat]
            _submit(game, seat, agent, agent.decide(trackers[seat].view(game)))
    return _result(game, agents, overrides, trackers, presentation, void_threshold)


async def play_match(
    variant: Variant,
    agents: Sequence[Agent],
    seed: int,
    overrides: dict[str, Any] | None = None,
    decision_timeout: float | None = None,
    on_event: Any = None,
    void_threshold: float = VOID_THRESHOLD,
    *,
    host_key: bytes | None = None,
    shuffle_names: bool = False,
    shuffle_options: bool = False,
) -> MatchResult:
    """Play a game, asking simultaneous requests concurrently; a game in which some
    seat's decisions were made by infrastructure fallbacks more than ``void_threshold``
    of the time is marked void (``log.meta["void"]``). `host_key`, `shuffle_names`,
    `shuffle_options`: as in `play_match_sync`."""
    game, presentation = _prepare(variant, agents, seed, host_key, shuffle_names, shuffle_options)
    trackers = [SeatTracker(s) for s in range(len(agents))]
    seen = 0
    while not game.over:
        pending = sorted(game.pending())
        views = {seat: trackers[seat].view(game) for seat in pending}

        async def decide(seat: int, views: dict[int, Any] = views) -> Any:
            coroutine = agents[seat].act(views[seat])
            if decision_timeout is None:
                return await coroutine
            return await asyncio.wait_for(coroutine, decision_timeout)

        outcomes = await asyncio.gather(*(decide(s) for s in pending), return_exceptions=True)
        for seat, outcome in zip(pending, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                reason = "timeout" if isinstance(outcome, TimeoutError) else "error"
                _warn(agents[seat], seat, outcome, decision_timeout)
                _fallback(game, seat, agents[seat], reason)
                continue
            await _submit_asking_again(
                game, seat, agents[seat], outcome, partial(decide, seat), decision_timeout
            )
        if on_event is not None:
            for event in game.events[seen:]:
                on_event(event)
            seen = len(game.events)
    return _result(game, agents, overrides, trackers, presentation, void_threshold)
