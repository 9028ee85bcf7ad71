"""Pieces shared by the voting procedures: ballots, tallies, the last dead's decision."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mafia_arena.engine.asking import ask, ask_one, picked_seat, target_request
from mafia_arena.engine.catalogue import Ballot, LastDeadDecision, Votes
from mafia_arena.engine.discussion import speaking_order
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game, seat_name


def simultaneous_vote(
    game: Game,
    voters: Sequence[int],
    candidates: Sequence[int],
    kind: str,
    prompt: str,
    *,
    abstain: bool,
    self_vote: bool = False,
) -> Flow:
    """Everyone votes at once for one candidate, other than themselves unless
    `self_vote`. The ballots stay hidden until all are in; then one public `votes`
    event publishes them with who voted for whom.

    Returns ``{voter: target or None}``. A timeout is a recorded abstention.
    """
    requests = {}
    for v in voters:
        targets = list(candidates) if self_vote else [c for c in candidates if c != v]
        if targets:
            requests[v] = target_request(
                game,
                v,
                kind,
                prompt,
                targets,
                allow_pass=abstain,
                pass_label="abstain",
                default="pass",
            )
    answers = yield from ask(game, requests)
    removed = game.state.disqualified
    votes = {
        v: picked_seat(answers[v]) if v in answers else None
        for v in sorted(voters)
        if v not in removed
    }
    tally = Counter(t for t in votes.values() if t is not None)
    game.emit(Votes(kind, dict(votes), dict(sorted(tally.items()))), PUBLIC)
    return votes


def sequential_vote(
    game: Game,
    voters: Sequence[int],
    candidates: Sequence[int],
    kind: str,
    prompt: str,
    **how: bool,
) -> Flow:
    """Public voting one voter at a time, from the day's first speaker in seat order:
    each cast ballot is published at once (`Ballot`, with the running tally), so every
    voter sees the earlier ones; an abstention shows only in the closing `Votes`, which
    publishes the whole vote as `simultaneous_vote` does (so every reader of votes reads
    both procedures alike). `how`: ``abstain`` and ``self_vote``, as for
    `simultaneous_vote`. Returns ``{voter: target or None}``."""
    abstain, self_vote = how.get("abstain", False), how.get("self_vote", False)
    state = game.state
    order = speaking_order(game, state.first_speaker or 0, voters)
    votes: dict[int, int | None] = {}
    tally: Counter[int] = Counter()
    for voter in order:
        if voter in state.disqualified:
            continue
        targets = [c for c in candidates if self_vote or c != voter]
        if not targets:
            continue
        request = target_request(
            game,
            voter,
            kind,
            f"{prompt} Public vote, one voter at a time.",
            targets,
            allow_pass=abstain,
            pass_label="abstain",
            default="pass",
        )
        target = picked_seat((yield from ask_one(game, request)))
        if voter in state.disqualified:
            continue
        votes[voter] = target
        if target is not None:
            tally[target] += 1
            game.emit(Ballot(voter, target, False, dict(sorted(tally.items()))), PUBLIC)
    removed = state.disqualified
    votes = {v: t for v, t in sorted(votes.items()) if v not in removed}
    final = Counter(t for t in votes.values() if t is not None)
    game.emit(Votes(kind, dict(votes), dict(sorted(final.items()))), PUBLIC)
    return votes


def standing(game: Game, seats: Sequence[int]) -> list[int]:
    """`seats` without the disqualified (they leave a vote at once, club D34)."""
    removed = game.state.disqualified
    return [s for s in seats if s not in removed] if removed else list(seats)


def standing_votes(game: Game, votes: dict[int, int]) -> dict[int, int]:
    """The votes (voter → target) that still count: a disqualified player's own votes
    and the votes against him are void, as if never cast."""
    removed = game.state.disqualified
    if not removed:
        return votes
    return {v: t for v, t in votes.items() if v not in removed and t not in removed}


def top_of(tally: Counter[int]) -> list[int]:
    """The candidates tied at the highest count (empty if no votes)."""
    if not tally:
        return []
    best = max(tally.values())
    return sorted(t for t, c in tally.items() if c == best)


def last_dead_chooses(game: Game, candidates: Sequence[int], places: int, purpose: str) -> Flow:
    """The most recently dead player picks `places` of `candidates`; random if nobody.

    Classic ("Der letzte Tote entscheidet"): the only time a dead player acts. With no
    dead player yet, or a timeout, the choice is a uniform draw from the game's RNG. A
    disqualified player never decides: the last dead before him does. Candidates
    disqualified meanwhile are dropped; if none is left to pick, fewer are chosen.

    The public announcement names the last dead as the chooser only for the picks that
    player made; a pick drawn at random (a timeout, OP-C14) is announced as a draw,
    because the table reads the last dead's choice as that player's judgement.
    """
    state = game.state
    chooser = next((s for s in reversed(state.death_order) if s not in state.disqualified), None)
    chosen: list[int] = []
    decided: list[int] = []
    remaining = list(candidates)
    for pick in range(places):
        remaining = standing(game, remaining)
        if not remaining:
            break
        seat: int | None = None
        if chooser is not None:
            request = target_request(
                game,
                chooser,
                "last_dead",
                f"You are the last dead player and decide the {purpose} "
                f"(pick {pick + 1} of {places}).",
                remaining,
                default="random",
            )
            seat = picked_seat((yield from ask_one(game, request)))
            remaining = standing(game, remaining)
            if not remaining:
                break
            if seat not in remaining:  # the pick was withdrawn by a disqualification
                seat = game.draw(f"{purpose}: the pick was withdrawn", remaining)
            elif _answered(game, chooser):
                decided.append(seat)
        if seat is None:
            seat = game.draw(f"{purpose}: no dead player to decide", remaining)
        chosen.append(seat)
        remaining.remove(seat)
    text = _decision_text(chooser, decided, [s for s in chosen if s not in decided])
    game.emit(LastDeadDecision(purpose, chooser if decided else None, tuple(chosen), text), PUBLIC)
    return chosen


def _answered(game: Game, seat: int) -> bool:
    """Did `seat`'s latest decision come from the player, not from a timeout's or an
    agent's fallback (a random draw the game made in the player's place)?"""
    record = next((r for r in reversed(game.decisions) if r.get("seat") == seat), None)
    return record is not None and not record.get("fallback")


def _decision_text(chooser: int | None, decided: list[int], drawn: list[int]) -> str:
    """The public line of a last-dead decision: the picks the last dead made, then the
    ones drawn at random (all of them when there was no dead player or no answer)."""
    names = ", ".join
    if chooser is None:
        return "Drawn at random: " + names(seat_name(s) for s in drawn)
    made = f"chose {names(seat_name(s) for s in decided)}" if decided else "did not decide"
    parts = [f"{seat_name(chooser)} (the last dead) {made}"]
    if drawn:
        parts.append("drawn at random: " + names(seat_name(s) for s in drawn))
    return "; ".join(parts)
