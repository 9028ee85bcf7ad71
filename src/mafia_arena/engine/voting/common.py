"""Pieces shared by the voting procedures: ballots, tallies, the last dead's decision."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia_arena.engine.asking import ask, ask_one, picked_seat, target_request
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game, seat_name


def simultaneous_vote(game: Game, voters: Sequence[int], candidates: Sequence[int],
                      kind: str, prompt: str, *, abstain: bool) -> Flow:
    """Everyone votes at once for one candidate other than themselves; published together.

    Returns ``{voter: target or None}``. A timeout is a recorded abstention.
    """
    requests = {}
    for v in voters:
        targets = [c for c in candidates if c != v]
        if targets:
            requests[v] = target_request(game, v, kind, prompt, targets, allow_pass=abstain,
                                         pass_label="abstain", default="pass")
    answers = yield from ask(game, requests)
    votes = {v: picked_seat(answers[v]) if v in answers else None for v in sorted(voters)}
    tally = Counter(t for t in votes.values() if t is not None)
    game.emit("votes", {"kind": kind, "votes": {str(v): t for v, t in votes.items()},
                        "tally": {str(t): c for t, c in sorted(tally.items())}}, PUBLIC)
    return votes


def top_of(tally: Counter[int]) -> list[int]:
    """The candidates tied at the highest count (empty if no votes)."""
    if not tally:
        return []
    best = max(tally.values())
    return sorted(t for t, c in tally.items() if c == best)


def last_dead_chooses(game: Game, candidates: Sequence[int], places: int,
                      purpose: str) -> Flow:
    """The most recently dead player picks `places` of `candidates`; random if nobody.

    Classic ("Der letzte Tote entscheidet"): the only time a dead player acts. With no
    dead player yet, or a timeout, the choice is a uniform draw from the game's RNG.
    """
    chooser = game.state.last_dead
    chosen: list[int] = []
    remaining = list(candidates)
    for pick in range(places):
        if chooser is None:
            chosen.append(game.draw(f"{purpose}: no dead player to decide", remaining))
        else:
            request = target_request(
                game, chooser, "last_dead",
                f"You are the last dead player and decide the {purpose} "
                f"(pick {pick + 1} of {places}).",
                remaining, default="random")
            decision = yield from ask_one(game, request)
            chosen.append(picked_seat(decision))
        remaining.remove(chosen[-1])
    game.emit("last_dead_decision", {
        "purpose": purpose,
        "chooser": chooser,
        "chosen": chosen,
        "text": (f"{seat_name(chooser)} (the last dead) chose "
                 if chooser is not None else "Drawn at random: ")
        + ", ".join(seat_name(s) for s in chosen),
    }, PUBLIC)
    return chosen
