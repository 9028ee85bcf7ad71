"""Classic nomination: up to k nominations each, runoff nominations, final vote of two.

The procedure of classic.md 5.1–5.2. Voters name 0..k distinct players (not
themselves) in seat order, each nomination public as made. Let t be the count at
position k of the sorted tally; players above t are secured, players at t form the tie
set T. If they fill exactly k places they are nominated; otherwise a runoff among T fills
the remaining places with as many votes per voter as places. A runoff that reproduces
the same tie set for the same places is a deadlock that the last dead resolves. The two
nominees give final pleas, then everyone votes at once for one of them, a nominee for
himself too (5.2, OP-C13; ``self_vote = false`` forbids that). The nominee with the
most votes is executed, whatever the number of nominees (``nominees``, default 2); a
tie at the top is decided by the last dead among the tied. ``ballot = "sequential"``
makes the final vote public, one voter at a time (`sequential_vote`), instead of all at
once, hidden until everyone has voted and then published with who voted for whom (the
show of hands of 5.2, "per Handzeichen": never a secret ballot).

Where a variant allows disqualification, a removed player leaves the procedure at once:
nominations of him no longer count, a nominee removed before the final vote is not
replaced, and if nobody is left to vote on, nobody is executed.
"""

from __future__ import annotations

from collections import Counter

from mafia_arena.engine.asking import ask_one, picked_seat, target_request
from mafia_arena.engine.catalogue import NoExecution, Nomination, NominationTally, Nominees, Runoff
from mafia_arena.engine.deaths import die
from mafia_arena.engine.discussion import (
    say,
    speak_request,
    speaking_order,
)
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.voting.common import (
    last_dead_chooses,
    sequential_vote,
    simultaneous_vote,
    standing,
)
from mafia_arena.rules.params import NominateFinalParams


def split_places(tally: dict[int, int], places: int) -> tuple[list[int], list[int]]:
    """(secured S, tie set T) for `places` places; every candidate is in `tally`.

    Pure function of classic.md 5.1 steps 5–6, tested against the worked examples.
    """
    ranked = sorted(tally.values(), reverse=True)
    t = ranked[min(places, len(ranked)) - 1]
    secured = sorted(s for s, c in tally.items() if c > t)
    tied = sorted(s for s, c in tally.items() if c == t)
    return secured, tied


def nominate_final(game: Game, params: NominateFinalParams) -> Flow:
    state = game.state
    places = params.nominees
    living = state.living()
    first = state.first_speaker if params.rotate_first else living[0]
    order = speaking_order(game, first if first is not None else living[0], living)
    pool = list(living)
    nominees: list[int] = []
    deciding: dict[int, int] = {}
    previous: tuple[frozenset[int], int] | None = None
    round_no = 0
    while True:
        round_no += 1
        tally = yield from _nomination_round(game, order, pool, places, round_no)
        if state.disqualified:
            tally = {s: c for s, c in tally.items() if s not in state.disqualified}
        game.emit(NominationTally(round_no, places, {s: tally[s] for s in sorted(tally)}), PUBLIC)
        if len(tally) < places:  # disqualifications left fewer candidates than places
            nominees += sorted(tally)
            break
        secured, tied = split_places(tally, places)
        for seat in secured + tied:
            deciding[seat] = tally[seat]
        if len(secured) + len(tied) == places:
            nominees += secured + tied
            break
        if round_no > 1 and not secured and previous == (frozenset(tied), places):
            nominees += yield from last_dead_chooses(game, tied, places, "runoff deadlock")
            break
        nominees += secured
        places -= len(secured)
        previous = (frozenset(tied), places)
        pool = tied
        text = f"Runoff among {', '.join(seat_name(s) for s in tied)} for {places} place(s)."
        game.emit(Runoff(tuple(tied), places, text), PUBLIC)
    nominees = standing(game, sorted(nominees))
    if not nominees:
        game.emit(NoExecution("no candidates"), PUBLIC)
        return
    game.emit(Nominees(tuple(nominees)), PUBLIC)
    for seat in sorted(nominees, key=lambda s: (-deciding.get(s, 0), s)):
        request = speak_request(game, seat, "plea", f"Day {state.day}: your final plea.")
        decision = yield from ask_one(game, request)
        if decision is not None:
            say(game, seat, decision, "plea")
    nominees = standing(game, nominees)
    if not nominees:
        game.emit(NoExecution("no candidates"), PUBLIC)
        return
    cast = sequential_vote if params.ballot == "sequential" else simultaneous_vote
    votes = yield from cast(
        game,
        state.living(),
        nominees,
        "final_vote",
        f"Day {state.day}: final vote between " + " and ".join(seat_name(s) for s in nominees),
        abstain=False,
        self_vote=params.self_vote,
    )
    nominees = standing(game, nominees)
    if not nominees:
        game.emit(NoExecution("no candidates"), PUBLIC)
        return
    tally = Counter(t for t in votes.values() if t is not None)
    best = max(tally.get(s, 0) for s in nominees)
    top = [s for s in nominees if tally.get(s, 0) == best]  # 0 : 0 ties every nominee
    if len(top) == 1:
        target = top[0]
    else:
        chosen = yield from last_dead_chooses(game, top, 1, "tied final vote")
        if not chosen:  # the tied nominees were disqualified meanwhile
            game.emit(NoExecution("no candidates"), PUBLIC)
            return
        target = chosen[0]
    die(game, [target], "execution")


def _nomination_round(
    game: Game, order: list[int], pool: list[int], places: int, round_no: int
) -> Flow:
    """Each living voter in `order` names up to `places` distinct members of `pool`."""
    tally = dict.fromkeys(pool, 0)
    # The prompt of the n-th nomination, the same words for every voter of the round.
    prompts = [
        f"Day {game.state.day}: nomination {n + 1} of {places}"
        + (f" (runoff {round_no - 1})" if round_no > 1 else "")
        + "; pass to stop."
        for n in range(places)
    ]
    for voter in order:
        named: list[int] = []
        while len(named) < places:
            options = [s for s in pool if s != voter and s not in named]
            if not options:
                break
            request = target_request(
                game,
                voter,
                "nominate",
                prompts[len(named)],
                options,
                allow_pass=True,
                pass_label="no (more) nominations",
                info={"round": round_no, "places": places},
            )
            target = picked_seat((yield from ask_one(game, request)))
            if target is None:
                break
            named.append(target)
            tally[target] += 1
            game.emit(Nomination(voter, target, round_no), PUBLIC)
    return tally
