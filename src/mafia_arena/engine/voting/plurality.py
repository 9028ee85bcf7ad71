"""Plurality vote: every living player votes at once; the most-voted player is executed.

Parameters: ``abstain`` (may a voter abstain, default false), ``tie`` (``random``:
uniform draw among the tied, the default; ``none``: nobody is executed), ``min_votes``
(executions need at least this many votes, default 1), ``ballot`` (``simultaneous``,
the default: everyone votes at once, the votes hidden until all are in, then published
with who voted for whom; ``sequential``: public, one voter at a time, each seeing the
earlier ballots).
"""

from __future__ import annotations

from collections import Counter

from mafia_arena.engine.catalogue import NoExecution
from mafia_arena.engine.deaths import die
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.voting.common import sequential_vote, simultaneous_vote, top_of
from mafia_arena.rules.params import PluralityParams


def plurality(game: Game, params: PluralityParams) -> Flow:
    state = game.state
    voters = [s for s in state.living() if s not in state.silenced_today]
    candidates = [s for s in state.living() if s not in state.silenced_today]
    cast = sequential_vote if params.ballot == "sequential" else simultaneous_vote
    votes = yield from cast(
        game,
        voters,
        candidates,
        "vote",
        f"Day {state.day}: vote to execute one player.",
        abstain=params.abstain,
    )
    tally = Counter(t for t in votes.values() if t is not None)
    tied = top_of(tally)
    if not tied or tally[tied[0]] < params.min_votes:
        game.emit(NoExecution("no votes"), PUBLIC)
        return
    if len(tied) > 1:
        if params.tie == "none":
            game.emit(NoExecution("tie", tuple(tied)), PUBLIC)
            return
        target = game.draw("vote tie", tied)
    else:
        target = tied[0]
    die(game, [target], "execution")
