"""The fold's dated records are what a rescan of the seat's own stream would give.

The web page, the LLM prompt builder and the heuristic read these records instead of
rescanning `knowledge.events`; each record is checked here against the rescan it
replaced (the same filters the readers used), over heuristic games of every variant,
for every seat, at many points of the game. Equality with a function of the seat's own
stream also means no record carries anything the seat was not shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from mafia_arena.agents.heuristic import HeuristicAgent
from mafia_arena.engine.catalogue import (
    Ballot,
    Blocked,
    DeliveredTestament,
    GameEnded,
    GameMasterNotice,
    LastDeadDecision,
    Newspaper,
    NightResult,
    NoExecution,
    Nomination,
    NominationTally,
    Nominees,
    Office,
    OracleAnswer,
    PrivateMessage,
    Runoff,
    SpeechMade,
    StateChanged,
    StatusShown,
    Votes,
)
from mafia_arena.engine.events import SeatEvent
from mafia_arena.engine.game import Game
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.knowledge import Knowledge, Noted
from mafia_arena.views.text import render_event
from mafia_arena.views.transcript import line_tier
from mafia_arena.views.view import SeatTracker, view_of

_VOTE_FACTS = (Votes, Nomination, NominationTally, Nominees, Runoff, NoExecution, LastDeadDecision)
_PLAYERS = {"dictator": 12, "palermo": 12}


def _indexed(events: Sequence[SeatEvent], *types: type) -> list[tuple[int, SeatEvent]]:
    return [(i, e) for i, e in enumerate(events) if isinstance(e.fact, types)]


def _pairs(records: Sequence[Noted[Any]]) -> list[tuple[int, SeatEvent]]:
    for noted in records:
        assert noted.fact is noted.entry.fact
    return [(n.at, n.entry) for n in records]


def _ballots_by_rescan(events: Sequence[SeatEvent]) -> dict[int, int]:
    """Today's Palermo ballots as the strategy once folded them from the stream."""
    ballots: dict[int, int] = {}
    day = -1
    for entry in events:
        if entry.day != day:
            day, ballots = entry.day, {}
        if isinstance(entry.fact, Ballot):
            ballots[entry.fact.seat] = entry.fact.target
        elif isinstance(entry.fact, StateChanged) and entry.fact.state != "active":
            ballots.pop(entry.fact.seat, None)
    return ballots


def _check(k: Knowledge, names: DisplayNames) -> None:
    """`names`: the game's readable names, with which the seat's transcript renders."""
    events = list(k.events)
    voting = [(i, e) for i, e in _indexed(events, *_VOTE_FACTS) if e.phase != "night"]
    latest = max((e.day for _, e in voting), default=None)
    assert _pairs(k.vote_record) == [(i, e) for i, e in voting if e.day == latest]
    ends = [e.fact for e in events if isinstance(e.fact, GameEnded)]
    assert k.ended is (ends[-1] if ends else None)
    assert _pairs(k.outcomes) == _indexed(events, NightResult, Blocked, OracleAnswer)
    assert _pairs(k.messages) == _indexed(events, PrivateMessage)
    assert _pairs(k.testaments) == _indexed(events, DeliveredTestament)
    assert _pairs(k.offices) == _indexed(events, Office)
    assert _pairs(k.statuses) == _indexed(events, StatusShown)
    papers = [e.fact for e in events if isinstance(e.fact, Newspaper)]
    assert k.newspaper is (papers[-1] if papers else None)
    notices: dict[str, list[tuple[int, SeatEvent]]] = {}
    for i, e in _indexed(events, GameMasterNotice):
        notices.setdefault(e.fact.topic, []).append((i, e))  # type: ignore[attr-defined]
    assert {t: _pairs(n) for t, n in k.notices.items()} == notices
    channel = [
        (e.day, e.fact.seat, e.fact.text)
        for e in events
        if isinstance(e.fact, SpeechMade) and e.channel is not None
    ]
    assert list(k.channel_said) == channel
    today = dict(k.ballots_cast) if k.ballots_cast_day == k.day else {}
    assert today == (_ballots_by_rescan(events) if events else {})
    rendered = [(render_event(e, k.seat, names), line_tier(e)) for e in events]
    assert [(t.text, t.tier) for t in k.tagged_lines()] == [(t, n) for t, n in rendered if t]


@pytest.mark.parametrize("variant", available_variants())
def test_fold_records_equal_a_rescan_of_the_seats_own_stream(variant: str) -> None:
    spec = load_variant(variant)
    players = _PLAYERS.get(variant, spec.min_players)
    game = Game(spec, players, seed=5)
    names = DisplayNames.of(spec)
    agents = []
    for seat in range(players):
        agent = HeuristicAgent(game.seed, strict=True)
        agent.reset(seat, 5000 + seat)
        agents.append(agent)
    trackers = [SeatTracker(s) for s in range(players)]
    steps = 0
    while not game.over and game.pending():
        for seat in sorted(game.pending()):
            view = trackers[seat].view(game)
            if steps % 17 == 0:
                _check(view.knowledge, names)
            steps += 1
            game.submit(seat, agents[seat].decide(view))
    for tracker in trackers:
        _check(tracker.view(game).knowledge, names)


def test_a_snapshots_records_do_not_change_when_later_events_arrive() -> None:
    spec = load_variant("dictator")
    game = Game(spec, 12, seed=2)
    agents = [HeuristicAgent(game.seed, strict=True) for _ in range(12)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, 2000 + seat)
    trackers = [SeatTracker(s) for s in range(12)]
    kept: list[tuple[Knowledge, tuple[Any, ...]]] = []
    while not game.over and game.pending():
        for seat in sorted(game.pending()):
            view = trackers[seat].view(game)
            k = view.knowledge
            if k.messages and len(kept) < 50:
                kept.append((k, (k.messages, k.offices, k.statuses, len(k.tagged_lines()))))
            game.submit(seat, agents[seat].decide(view))
    assert kept, "no private message in a whole dictator game"
    for k, (messages, offices, statuses, lines) in kept:
        assert (k.messages, k.offices, k.statuses) == (messages, offices, statuses)
        assert len(k.tagged_lines()) == lines


@pytest.mark.parametrize("variant", ["standard", "classic"])
def test_tiers_read_after_the_text_match_each_lines_entry(variant: str) -> None:
    """The text is read at every step and the tiers only later (the LLM prompt builder):
    tiers built then, for lines rendered long before, and for a shorter prefix after a
    longer one, are those of each line's own entry."""
    spec = load_variant(variant)
    game = Game(spec, 10, seed=11)
    agents = [HeuristicAgent(game.seed, strict=True) for _ in range(10)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, 1100 + seat)
    tracker = SeatTracker(3)
    halfway: Knowledge | None = None
    while not game.over and game.pending():
        for seat in sorted(game.pending()):
            if seat == 3:
                knowledge = tracker.update(game)
                knowledge.text()  # the text view, as the envs read it: no tiers asked
                if halfway is None and knowledge.day >= 2:
                    halfway = knowledge
            game.submit(seat, agents[seat].decide(view_of(game, seat)))
    final = tracker.update(game)
    expected = [(render_event(e, 3), line_tier(e)) for e in final.events]
    tagged = [(t.text, t.tier) for t in final.tagged_lines()]
    assert tagged == [(t, n) for t, n in expected if t]
    assert {n for _t, n in tagged} == {0, 1, 2}  # every tier occurs: the check can fail
    assert halfway is not None
    short = [(t.text, t.tier) for t in halfway.tagged_lines()]
    assert short == tagged[: len(short)] and 0 < len(short) < len(tagged)
    assert [t for t, _n in short] == halfway.lines()
