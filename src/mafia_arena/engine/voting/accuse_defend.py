"""Accusation, defence, second vote: the club procedure (club.md section 6).

Voters and candidates are the living players not silenced today. Round 1: in order
from the day's first speaker, each voter names one candidate other than themselves (no
abstention), each name public as it is given, with the running total (6.1). The accused
are the top group of the tally, widened by the second group when the top group is one
player. Each accused gives a defence speech (most votes first, ties in voting order); a
lone accused is the vote winner. Round 2: in the same order each voter votes against
one accused other than themselves; a tie gets one re-vote among the tied, and a second
tie means nobody is executed. A protected winner (the lawyer's defence) is announced and
survives with no further vote; otherwise the winner is executed, the card shown, and a
last word given.

A player disqualified during the procedure (club D34) leaves it at once: he is asked
nothing more, votes he cast and votes against him are void, and an accused left alone
by the removal of the others is the vote winner, as a lone accused is (D25).

Parameters: ``reveal`` (show the executed player's card at once, default true);
``explain`` (after each round-1 nomination the voter may say why, club 6.2: an optional
public speech of kind ``explain``; default false); ``ballot`` (round 2 and its
re-vote: ``sequential``, the club's public ballots in turn, the default, or
``simultaneous``, everyone at once, the ballots hidden until all are in and then
published with who voted for whom: never a secret ballot, as every vote is public, 6.1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia_arena.engine.asking import ask, ask_one, picked_seat, target_request
from mafia_arena.engine.catalogue import (
    Ballot,
    NoExecution,
    Nomination,
    NominationTally,
    Nominees,
    Protected,
    Runoff,
    Votes,
)
from mafia_arena.engine.choices import PASS, Request
from mafia_arena.engine.day_close import last_word
from mafia_arena.engine.deaths import die
from mafia_arena.engine.discussion import say, speak_request, speaking_order
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.voting.common import standing, standing_votes, top_of
from mafia_arena.rules.params import AccuseDefendParams


def accused_of(tally: dict[int, int]) -> list[int]:
    """The accused for a round-1 tally (club D24): top group, plus the second group
    when the top group is a single player. Pure, so the rule is tested on its own."""
    counts = sorted({c for c in tally.values() if c > 0}, reverse=True)
    if not counts:
        return []
    wanted = counts[:2] if len([s for s, c in tally.items() if c == counts[0]]) == 1 else counts[:1]
    return sorted(s for s, c in tally.items() if c in wanted)


def accuse_defend(game: Game, params: AccuseDefendParams) -> Flow:
    state = game.state
    eligible = [s for s in state.living() if s not in state.silenced_today]
    if not eligible:
        game.emit(NoExecution("nobody may vote"), PUBLIC)
        return
    first = state.first_speaker if state.first_speaker is not None else eligible[0]
    order = speaking_order(game, first, eligible)
    tally = yield from _nominations(game, order, eligible, params.explain)
    if not tally:
        game.emit(NoExecution("no candidates"), PUBLIC)
        return
    position = {s: i for i, s in enumerate(order)}
    accused = sorted(accused_of(tally), key=lambda s: (-tally[s], position[s]))
    state.accused_today = set(accused)
    game.emit(Nominees(tuple(accused), {s: tally[s] for s in accused}), PUBLIC)
    for seat in accused:
        request = speak_request(game, seat, "defence", f"Day {state.day}: your defence.")
        decision = yield from ask_one(game, request)
        if decision is not None:
            say(game, seat, decision, "defence")
    winner: int | None = None
    pool = accused
    for revote in (False, True):
        pool = standing(game, pool)
        if len(pool) < 2:
            break
        votes = yield from _ballots(game, order, pool, revote, params.ballot == "sequential")
        pool = standing(game, pool)
        if len(pool) < 2:
            break
        top = top_of(votes)
        if len(top) == 1:
            winner = top[0]
            break
        if revote or not top:
            game.emit(NoExecution("tie", tuple(top)), PUBLIC)
            return
        pool = top
        text = "Tie: one re-vote between " + ", ".join(seat_name(s) for s in top) + "."
        game.emit(Runoff(tuple(top), 1, text), PUBLIC)
    if winner is None:
        if not pool:  # every accused was disqualified
            game.emit(NoExecution("no candidates"), PUBLIC)
            return
        winner = pool[0]  # a lone accused is the vote winner (D25)
    if winner in state.defended_today:
        text = f"{seat_name(winner)} is protected and will not be executed today."
        game.emit(Protected(winner, text), PUBLIC)
        return
    die(game, [winner], "execution", reveal=params.reveal)
    yield from last_word(game, winner)


def _nominations(
    game: Game, order: Sequence[int], candidates: Sequence[int], explain: bool
) -> Flow:
    """Round 1: each voter in `order` names one candidate, and with `explain` may then
    say why (club 6.2); returns the tally (of the nominations that still stand, see
    `standing_votes`)."""
    named: dict[int, int] = {}
    for voter in order:
        options = [c for c in candidates if c != voter]
        if not options:
            continue
        request = target_request(
            game,
            voter,
            "nominate",
            f"Day {game.state.day}: name one suspect.",
            options,
            default="random",
            info={"round": 1},
        )
        target = picked_seat((yield from ask_one(game, request)))
        if target is None:
            continue
        named[voter] = target
        game.emit(Nomination(voter, target, 1, _running_total(game, named)), PUBLIC)
        if explain:
            prompt = f"Day {game.state.day}: you named {seat_name(target)}; say why (or pass)."
            reason = yield from ask_one(game, speak_request(game, voter, "explain", prompt, 300))
            if reason is not None and reason != PASS:
                say(game, voter, reason, "explain")
    tally = dict(Counter(standing_votes(game, named).values()))
    game.emit(NominationTally(1, 1, {s: tally[s] for s in sorted(tally)}), PUBLIC)
    return tally


def _running_total(game: Game, named: dict[int, int]) -> dict[int, int]:
    """The round-1 count per candidate so far, as the table sees it (club 6.1: "the
    suspect raises one finger per vote against", so every running total is public);
    nominations made void by a disqualification are left out (`standing_votes`)."""
    return dict(sorted(Counter(standing_votes(game, named).values()).items()))


SIMULTANEOUS = (
    " Everyone votes at once: the votes stay hidden until all are in,"
    " then they are published with who voted for whom."
)
"""The round-2 prompt's note under ``ballot = "simultaneous"``: every vote is public
(club 6.1), so the switch only hides the ballots until everyone has voted; the closing
`votes` names each voter's target."""


def _ballots(
    game: Game, order: Sequence[int], pool: Sequence[int], revote: bool, sequential: bool
) -> Flow:
    """Round 2 (or its re-vote): each voter votes against one of `pool`.

    `sequential` (club 6.5): in order, every ballot public as cast, with the running
    tally, which is public too (6.1: `Ballot.total_public`). Otherwise everyone is
    asked at once and only the closing `votes` publishes the ballots, with who voted
    for whom. Returns the final tally of the ballots that still stand
    (`standing_votes`).
    """
    tally: Counter[int] = Counter()
    votes: dict[int, int] = {}
    what = "re-vote" if revote else "final vote"
    prompt = (
        f"Day {game.state.day}, {what}: vote against one of "
        + ", ".join(seat_name(s) for s in pool)
        + "."
        + ("" if sequential else SIMULTANEOUS)
    )

    def request_of(voter: int) -> Request | None:
        options = [c for c in pool if c != voter]
        if not options:
            return None
        return target_request(
            game, voter, "final_vote", prompt, options, default="random", info={"revote": revote}
        )

    if not sequential:
        requests = {v: r for v in order if (r := request_of(v)) is not None}
        answers = yield from ask(game, requests)
        for voter in order:
            target = picked_seat(answers[voter]) if voter in answers else None
            if target is not None:
                votes[voter] = target
        votes = standing_votes(game, votes)
        tally = Counter(votes.values())
        game.emit(
            Votes(
                "revote" if revote else "final_vote",
                dict(sorted(votes.items())),
                dict(sorted(tally.items())),
            ),
            PUBLIC,
        )
        return tally
    for voter in order:
        request = request_of(voter)
        if request is None:
            continue
        target = picked_seat((yield from ask_one(game, request)))
        if target is None:
            continue
        votes[voter] = target
        if game.state.disqualified:  # the running tally leaves out the void ballots
            tally = Counter(standing_votes(game, votes).values())
        else:
            tally[target] += 1
        running = {s: tally[s] for s in sorted(tally)}
        game.emit(Ballot(voter, target, revote, running, total_public=True), PUBLIC)
    if game.state.disqualified:
        votes = standing_votes(game, votes)
        tally = Counter(votes.values())
    game.emit(
        Votes("revote" if revote else "final_vote", dict(votes), dict(sorted(tally.items()))),
        PUBLIC,
    )
    return tally
