"""The mandatory vote (7): ballots, the change window, absences, the tally, the exit.

Ballots are public as they are cast and may be changed until VOTE CLOSE; the CHANGE
WINDOW gives each eligible voter one more action. RESOLUTION charges absences, runs the
pipeline (void ballots on illegal targets → Vote Cancellations → Mayor mark → Lawyer
→ Corrupt Cop), decides the exit with the absence and Mayor rules, holds a RUNOFF if
needed, applies the exits and gives last words.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import (
    Absence,
    Ballot,
    Narration,
    NoExecution,
    Runoff,
    SpeechMade,
    Votes,
)
from mafia_arena.engine.choices import PASS, Choice, Decision, Request, Speech, shared_choice
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Flow, Game, seat_name
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.checks import state_check
from mafia_arena.engine.palermo.roles import CORRUPT_COP, LAWYER, MAYOR
from mafia_arena.engine.palermo.state import PalermoState, of
from mafia_arena.engine.player_states import Capability, PlayerState


def legal_targets(game: Game, voter: int) -> list[int]:
    """Active players other than the voter who are not exempt this round (7.1)."""
    ps = of(game)
    return [t for t in ps.states.active() if t != voter and t not in ps.exempt]


def may_vote(ps: PalermoState, seat: int) -> bool:
    return ps.states.can(seat, Capability.VOTE)


def weight(ps: PalermoState, voter: int) -> int:
    return 2 if ps.extra_vote.get(voter) == ps.ballots.get(voter) else 1


def running_tally(ps: PalermoState) -> dict[int, int]:
    tally: dict[int, int] = {}
    for voter, target in ps.ballots.items():
        tally[target] = tally.get(target, 0) + weight(ps, voter)
    return dict(sorted(tally.items()))


def options(game: Game, seat: int) -> list[tuple[Choice, str]]:
    """Ballot moves `seat` may make now (before VOTE CLOSE or in the change window)."""
    ps = of(game)
    if not ps.voting_open or not may_vote(ps, seat):
        return []
    if seat in ps.extra_vote and seat not in ps.extra_unlocked:
        return []  # locked by Extra Vote (6.3)
    if ps.states.is_echo_voter(seat) and seat in ps.ballots and ps.phase != "change_window":
        return []  # an echo voter casts one ballot
    current = ps.ballots.get(seat)
    offers = _vote_offers(game)
    exempt = ps.exempt  # legal_targets, inlined: every seat is asked at every move
    return [offers[t] for t in ps.states.active() if t != seat and t != current and t not in exempt]


def _vote_offers(game: Game) -> list[tuple[Choice, str]]:
    """The ballot choice and label for each seat, built once per game (asked constantly)."""
    found: list[tuple[Choice, str]] | None = game.derived.get("palermo_votes")
    if found is None:
        found = [(shared_choice("vote", t), f"vote {seat_name(t)}") for t in range(game.players)]
        game.derived["palermo_votes"] = found
    return found


def cast(game: Game, seat: int, target: int) -> None:
    ps = of(game)
    revote = seat in ps.ballots
    ps.ballots[seat] = target
    if seat in ps.extra_unlocked:
        ps.extra_unlocked.discard(seat)
        ps.extra_vote[seat] = target
    game.emit(Ballot(seat, target, revote, running_tally(ps)), PUBLIC)


def change_window(game: Game) -> Flow:
    """CHANGE WINDOW (7.3): one vote action per eligible voter; no chat. At its end the
    seats holding a ballot are recorded as having taken part (7.2, `took_part`), before
    VOTE-END ACTIONS can take a ballot away with a state change."""
    ps = of(game)
    ps.phase = game.state.phase = "change_window"
    yield from _window_actions(game)
    ps.took_part = set(ps.ballots)


def _window_actions(game: Game) -> Flow:
    """Ask every seat with a window action for it and apply the answers in seat order."""
    prompt: dict[int, Request] = {}
    for seat in range(game.players):
        request = change_request(game, seat)
        if request is not None:
            prompt[seat] = request
    if not prompt:
        return
    answers = yield prompt
    for seat in sorted(answers):
        apply_single(game, seat, answers[seat])


def change_request(game: Game, seat: int) -> Request | None:
    """`seat`'s one action in the CHANGE WINDOW (7.3), or None if it has none.

    Also asked of a player freed while the window's prompt waits (the moderator lifting
    a sanction): Active after VOTE CLOSE, they may vote but are not obliged (7.1), so
    the request allows a pass and RESOLUTION charges them no absence."""
    from mafia_arena.engine.palermo import cards  # cards import this module

    picks = options(game, seat) + cards.options(game, seat, "vote")
    if not picks:
        return None
    choices = (PASS, *(c for c, _ in picks))
    labels = ("keep my ballot", *(label for _, label in picks))
    text = "Change window: one action (change or cast your vote), or keep your ballot."
    return Request(
        seat, "change_vote", text, choices, labels, "pass", info={"phase": "change_window"}
    )


def apply_single(game: Game, seat: int, decision: Decision) -> None:
    from mafia_arena.engine.palermo import cards

    if not isinstance(decision, Choice) or decision == PASS:
        return
    if decision.verb == "vote" and decision.target is not None:
        if decision in [c for c, _ in options(game, seat)]:
            cast(game, seat, decision.target)
    elif decision in [c for c, _ in cards.options(game, seat, "vote")]:
        cards.play(game, seat, decision)


def vote_end_actions(game: Game) -> Flow:
    """VOTE-END ACTIONS: the Lawyer and the Corrupt Cop, blind to each other (5.13, 5.7).

    Every Active player is asked (those without a power may only pass), so who is asked
    tells nobody who holds the powers."""
    ps = of(game)
    ps.phase = game.state.phase = "vote_end"
    seats = game.state.seats
    prompt: dict[int, Request] = {}
    for seat in ps.states.active():
        role = seats[seat].role
        picks: list[tuple[Choice, str]] = []
        text = "Vote-end actions: nothing for you to do."
        if role == LAWYER and not ps.lawyer_used:
            picks = [
                (shared_choice("defend", t), f"defend {seat_name(t)}") for t in ps.states.active()
            ]
            text = "Lawyer: annul every vote on one client (once per game), or pass."
        elif role == CORRUPT_COP and not ps.cop_used:
            sources = sorted(set(ps.ballots.values()))
            picks = [
                (
                    shared_choice("transfer", s, str(d)),
                    f"move the votes on {seat_name(s)} to {seat_name(d)}",
                )
                for s in sources
                for d in legal_targets(game, -1)
                if d != s
            ]
            text = "Corrupt Cop: move every vote on one player to another (once per game), or pass."
        choices = (PASS, *(c for c, _ in picks))
        labels = ("pass", *(label for _, label in picks))
        prompt[seat] = Request(
            seat, "vote_end", text, choices, labels, "pass", info={"phase": "vote_end"}
        )
    if not prompt:
        return {}
    answers = yield prompt
    return {s: d for s, d in answers.items() if isinstance(d, Choice) and d != PASS}


def resolution(game: Game, powers: dict[int, Choice]) -> Flow:
    """RESOLUTION (7.2, 7.4, 7.5), the RUNOFF (7.7) and LAST WORDS (7.8).

    Absences first (`charge_absences`); the ballots counted next are those held now,
    which may differ from those at the end of the CHANGE WINDOW (a seat that left the
    Active state since lost its ballot, 4.3)."""
    ps = of(game)
    ps.phase = game.state.phase = "resolution"
    seats = game.state.seats
    absent = charge_absences(game)
    # the pipeline (7.4)
    counted = [
        [voter, target, weight(ps, voter)]
        for voter, target in sorted(ps.ballots.items())
        if ps.states.is_active(target) and target not in ps.exempt and target != voter
    ]
    for voter in sorted(ps.cancelled):
        game.emit(Narration("vote_cancellation", f"The votes of {seat_name(voter)} are cancelled."))
    counted = [b for b in counted if b[0] not in ps.cancelled]
    mayor = next((s.seat for s in seats if s.role == MAYOR), None)
    mark = None
    if mayor is not None and ps.states.is_active(mayor):
        mark = next((b[1] for b in counted if b[0] == mayor), None)
    for _, choice in sorted(powers.items()):
        if choice.verb == "defend" and choice.target is not None:
            ps.lawyer_used = True
            ps.count("lawyer_defence")
            client = choice.target
            counted = [b for b in counted if b[1] != client]
            if mark == client:
                mark = None
            game.emit(Narration("lawyer", f"All votes on {seat_name(client)} are annulled."))
    for _, choice in sorted(powers.items()):
        if choice.verb == "transfer" and choice.target is not None:
            ps.cop_used = True
            ps.count("corrupt_cop_transfer")
            source, dest = choice.target, int(choice.value or 0)
            if dest not in legal_targets(game, -1):
                continue  # the destination left while the powers were asked: no transfer
            for ballot in counted:
                if ballot[1] == source:
                    ballot[1] = dest
            if mark == source:
                mark = dest
            text = f"The votes on {seat_name(source)} are transferred to {seat_name(dest)}."
            game.emit(Narration("corrupt_cop", text))
    tally: dict[int, int] = {}
    for _, target, w in counted:
        tally[target] = tally.get(target, 0) + w
    game.emit(
        Votes("vote", {v: t for v, t in sorted(ps.ballots.items())}, dict(sorted(tally.items()))),
        PUBLIC,
    )
    top = max(tally.values(), default=0)
    leaders = sorted(t for t, n in tally.items() if n == top) if top else []
    exits: list[tuple[int, PlayerState, str, bool]] = []
    absent_set = set(absent)
    if not leaders:
        game.emit(NoExecution("nobody received a counted vote"), PUBLIC)
    elif len(leaders) == 1:
        one = leaders[0]
        if one in absent_set:
            exits.append((one, PlayerState.OUT, "absences", True))
        else:
            exits.append((one, PlayerState.GHOST, "vote", True))
    elif absent_set & set(leaders):
        for seat in leaders:
            if seat in absent_set:
                exits.append((seat, PlayerState.OUT, "absences", True))
    elif mark in leaders:
        game.emit(Narration("mayor", "The tie is broken by the Mayor's vote."))
        ps.count("mayor_tiebreak")
        exits.append((mark, PlayerState.GHOST, "vote", True))
    else:
        chosen = yield from runoff(game, leaders, mayor)
        exits.append((chosen, PlayerState.GHOST, "vote", True))
    leaving = {e[0] for e in exits}
    for seat in absent:
        if seat not in leaving:
            exits.append((seat, PlayerState.OUT, "absences", False))
    for seat, to, cause, _ in exits:
        if ps.states.is_active(seat):
            change(game, seat, to, cause)
    speakers = [seat for seat, _, _, words in exits if words]
    if speakers:
        ps.phase = game.state.phase = "last_words"
        prompt = {
            s: Request(
                s,
                "last_words",
                "Your last words (one message).",
                (PASS,),
                ("say nothing",),
                "pass",
                True,
            )
            for s in speakers
        }
        answers = yield prompt
        for seat in sorted(answers):
            said = answers[seat]
            if isinstance(said, Speech):
                game.emit(SpeechMade(seat, said.text, "last_words"), PUBLIC)
    state_check(game)


def charge_absences(game: Game) -> list[int]:
    """Settle this vote's absences (7.2); returns the seats removed for them, in order.

    Only obliged voters (`PalermoState.obliged`, 7.1) are counted: a vote in which a
    player was not obliged leaves both counters unchanged, even if they voted (the
    Decision of 7.2). An obliged voter who took part (`PalermoState.took_part`, settled
    at the end of the CHANGE WINDOW) has the consecutive count reset, whatever their state
    now: taking part is what resets it. One who did not take part is charged only if
    Active now, since RESOLUTION is where absences are charged (3.3) and only an Active
    player is charged (4.2) or removed for absences (4.3); a seat the moderator holds
    imprisoned from VOTE-END ACTIONS through RESOLUTION keeps both counts as they were.
    An obliged voter with no legal target is not charged (7.1) and did not take part,
    so both counts stay as they were: only taking part resets the consecutive count
    (7.2), and a vote that charges nothing leaves it unchanged."""
    ps = of(game)
    spec = game.variant.palermo
    assert spec is not None
    absent: list[int] = []
    for seat in sorted(ps.obliged):
        if seat in ps.took_part:
            ps.absences_consecutive[seat] = 0
            continue
        if not ps.states.is_active(seat):
            continue
        if not legal_targets(game, seat):
            continue
        ps.absences_total[seat] += 1
        ps.absences_consecutive[seat] += 1
        total, run = ps.absences_total[seat], ps.absences_consecutive[seat]
        game.emit(Absence(seat, total, run), PUBLIC)
        if run >= spec.absences_consecutive or total >= spec.absences_total:
            absent.append(seat)
    return absent


def runoff(game: Game, candidates: list[int], mayor: int | None) -> Flow:
    """The tie poll (7.7): one optional ballot each; a tie → the Mayor's pick, else lot."""
    ps = of(game)
    ps.phase = game.state.phase = "runoff"
    ps.count("runoff")
    names = ", ".join(seat_name(c) for c in candidates)
    game.emit(Runoff(tuple(candidates), 1, f"Runoff between {names}."), PUBLIC)
    voters = [s for s in range(game.players) if ps.states.can(s, Capability.VOTE)]
    prompt = {}
    for seat in voters:
        picks = [c for c in candidates if c != seat]
        if not picks:
            continue
        choices = (PASS, *(shared_choice("vote", c) for c in picks))
        labels = ("abstain", *(f"vote {seat_name(c)}" for c in picks))
        prompt[seat] = Request(
            seat, "runoff", f"Runoff: {names}.", choices, labels, "pass", info={"phase": "runoff"}
        )
    answers = yield prompt
    ballots = {
        s: d.target
        for s, d in answers.items()
        if isinstance(d, Choice) and d.verb == "vote" and d.target is not None
    }
    tally: dict[int, int] = {}
    for target in ballots.values():
        tally[target] = tally.get(target, 0) + 1
    game.emit(Votes("runoff", dict(sorted(ballots.items())), dict(sorted(tally.items()))), PUBLIC)
    top = max(tally.values(), default=0)
    leaders = [c for c in candidates if tally.get(c, 0) == top]
    if len(leaders) == 1:
        return leaders[0]
    if mayor is not None and ps.states.is_active(mayor) and ballots.get(mayor) in leaders:
        game.emit(Narration("mayor", "The runoff tie is broken by the Mayor's vote."))
        return ballots[mayor]
    chosen: int = game.draw("runoff", leaders)
    return chosen
