"""A timed phase as rounds of moves (3.2 in the discrete model).

In each timed phase every seat that can do something is asked at once for one move:
a ballot, a card play, a night action, ``post`` or ``post_channel`` (then a speaking
turn, free text; a channel post reaches the mafia team or the Roommates only), or
``pass`` (done for this phase). Moves are applied in seat order, each checked
again against the state the earlier moves left (a move that no longer applies is
refused privately and changes nothing; a card is then kept); a state check follows
every card. Every seat is asked again (a seat may answer another's move), up to the
variant's `moves` rounds; the phase ends early when everyone passed in one round.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Narration, SpeechMade
from mafia_arena.engine.choices import PASS, Choice, Request, Speech, shared_choice
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.palermo import cards, night, vote
from mafia_arena.engine.palermo.roles import MAFIA_TEAM, ROOMMATE
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.player_states import Capability, PlayerState

POST = shared_choice("post")
"""The move "I want to post": the seat then gets a speaking turn (`posts`)."""
POST_CHANNEL = shared_choice("post_channel")
"""The same in the seat's private channel (the mafia team's, the Roommates')."""
_POST_OFFER = (POST, "post in the public discussion")
DISCUSSION = frozenset({"night_early", "night_late", "dead_time", "morning", "afternoon"})
TITLES = {
    "night_early": "Night, before midnight",
    "night_late": "Night, midnight to 02:00",
    "dead_time": "Dead time",
    "morning": "Morning",
    "afternoon": "Afternoon",
}


def moves_for(game: Game, seat: int, phase: str) -> list[tuple[Choice, str]]:
    """Every move `seat` may make now in `phase`, besides a post and ``pass``."""
    return [
        *vote.options(game, seat),
        *cards.options(game, seat, phase),
        *night.options(game, seat, phase),
    ]


def request_for(game: Game, seat: int, phase: str) -> Request | None:
    ps = of(game)
    picks = moves_for(game, seat, phase)
    if phase in DISCUSSION:
        allowed = ps.states.capabilities(seat)
        if Capability.POST in allowed:
            picks.append(_POST_OFFER)
        channel = channel_of(game, seat)
        if channel is not None and Capability.POST_CHANNEL in allowed:
            picks.append((POST_CHANNEL, f"post in the {channel} channel"))
    victim = phase == "afternoon" and seat == ps.todays_victim
    if not picks and not victim:
        return None  # today's victim is always asked: being asked shows no card
    moves, labels = zip(*picks, strict=True) if picks else ((), ())
    choices = (PASS, *moves)
    labels = ("done for this phase", *labels)
    prompt = f"{TITLES[phase]} of round {ps.round}: one move, or done."
    return Request(seat, "turn", prompt, choices, labels, "pass", info={"phase": phase})


def timed_phase(game: Game, phase: str) -> Flow:
    """Run one timed phase (see the module docstring)."""
    ps = of(game)
    spec = game.variant.palermo
    assert spec is not None
    ps.phase = game.state.phase = phase
    for _ in range(spec.moves):
        prompt = {}
        for seat in range(game.players):
            request = request_for(game, seat, phase)
            if request is not None:
                prompt[seat] = request
        if not prompt:
            return
        moderated = ps.moderated
        answers = yield prompt
        # a moderator's action while the prompt waited may have made any offer stale
        moved, changed = False, ps.moderated != moderated
        posters: list[tuple[int, bool]] = []
        for seat in sorted(answers):
            decision = answers[seat]
            if decision is PASS or decision == PASS:
                continue
            moved = True
            if decision in (POST, POST_CHANNEL):
                posters.append((seat, decision == POST_CHANNEL))
                continue
            # only a move other than a ballot can make a later seat's offer stale
            apply(game, seat, decision, phase, recheck=changed)
            if game.over:
                return
            changed = changed or (isinstance(decision, Choice) and decision.verb != "vote")
        if posters:
            yield from posts(game, posters, phase)
        if not moved:
            return


def channel_of(game: Game, seat: int) -> str | None:
    """The private channel the seat belongs to (2.4), or None."""
    role = game.state.seats[seat].role
    if role in MAFIA_TEAM:
        return "mafia"
    if role == ROOMMATE:
        return "roommates"
    return None


def channel_members(game: Game, channel: str) -> list[int]:
    """Who reads the channel now: its Active members and its ghosts (read only, 4.2)."""
    ps = of(game)
    return [
        s
        for s in range(game.players)
        if channel_of(game, s) == channel
        and ps.states.of(s) in (PlayerState.ACTIVE, PlayerState.GHOST)
    ]


def posts(game: Game, seats: list[tuple[int, bool]], phase: str) -> Flow:
    """The seats that chose to post write their message (a speaking turn each, at once);
    a channel post is read by the channel's members only."""
    ps = of(game)
    prompt = {}
    for seat, in_channel in seats:
        where = f"the {channel_of(game, seat)} channel" if in_channel else "the discussion"
        allowed = Capability.POST_CHANNEL if in_channel else Capability.POST
        if ps.states.can(seat, allowed):
            text = f"{TITLES[phase]}: your post in {where}."
            prompt[seat] = Request(seat, "speak", text, (PASS,), ("say nothing",), "pass", True)
    if not prompt:
        return
    answers = yield prompt
    channels = dict(seats)
    for seat in sorted(answers):
        said = answers[seat]
        if not isinstance(said, Speech):
            continue
        channel = channel_of(game, seat) if channels.get(seat) else None
        if channel is None:
            game.emit(SpeechMade(seat, said.text, "discussion"), PUBLIC)
        else:
            audience = private(*channel_members(game, channel), channel=channel)
            game.emit(SpeechMade(seat, said.text, "night_chat"), audience)


def apply(
    game: Game, seat: int, decision: Choice | Speech, phase: str, *, recheck: bool = True
) -> None:
    """Apply one move if it is still legal; otherwise tell the seat it was refused.

    `recheck` False: nothing but ballots changed since the seat was offered the move
    (ballots change no other seat's offer), so the offer still holds as submitted."""
    if isinstance(decision, Speech):
        return  # posts are speaking turns of their own (`posts`)
    if recheck and not offered(decision, moves_for(game, seat, phase)):
        game.emit(
            Narration("refused", f"Your move {decision.key} no longer applies."), private(seat)
        )
        return
    if decision.verb == "vote" and decision.target is not None:
        vote.cast(game, seat, decision.target)
    elif decision.verb in night.VERBS:
        night.submit(game, seat, decision)
    else:
        cards.play(game, seat, decision)


def offered(decision: Choice, picks: list[tuple[Choice, str]]) -> bool:
    """Is `decision` among the offered `picks`? By identity first (the engine's shared
    choices come back as the same objects), then by equality."""
    return any(c is decision for c, _ in picks) or any(c == decision for c, _ in picks)
