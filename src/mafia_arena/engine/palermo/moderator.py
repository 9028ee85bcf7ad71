"""What the moderator may do to a misbehaving player (4.4): the penalty exit and the
sanction imprisonment.

- **Penalty exit** (`penalty`): for disclosing a role, directly or not, or any other
  misbehaviour; an expulsion is the same. The player leaves permanently and the role is
  revealed, with any card still held (3.5), without last words (7.8).
- **Sanction imprisonment** (the rulings ``sanction`` and ``release``): the player is
  Imprisoned without a card being used and without calling off the vote; no Cancel
  Imprisonment applies and no window ends it: only the moderator frees them (the
  Decision of 4.4).

The host gives them through `Game.disqualify` and `Game.moderate`, which record them in
the log like decisions (a replay applies them again at the same point) and fit the
waiting prompt; this module is the rules' side: the announcement, the state change and
the state check that follows (a mafioso taken out of play can activate the Rival
Mafioso or end the game).
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import Disqualified, Narration
from mafia_arena.engine.events import PUBLIC
from mafia_arena.engine.game import Game, Prompt, seat_name
from mafia_arena.engine.palermo.changes import change
from mafia_arena.engine.palermo.checks import state_check
from mafia_arena.engine.palermo.state import of
from mafia_arena.engine.palermo.vote import change_request
from mafia_arena.engine.player_states import PlayerState

CAUSE = "penalty"
"""The state change's cause (Active → permanently out, revealed: 4.3)."""


def penalty(game: Game, seat: int, reason: str) -> None:
    """Remove the Active `seat` permanently, revealed; then a state check.

    The caller (`Game.disqualify`) has checked that the game runs and the seat is
    Active; the game may be over when this returns.
    """
    game.state.disqualified.add(seat)  # never asked again, even while a prompt waits
    ps = of(game)
    ps.moderated += 1
    ps.count("moderator_penalty")
    text = f"The moderator removes {seat_name(seat)} from the game" + (
        f": {reason}." if reason else "."
    )
    game.emit(Disqualified(seat, reason, text), PUBLIC)
    change(game, seat, PlayerState.OUT, CAUSE)
    state_check(game)


KINDS = ("sanction", "release")
"""The moderator's rulings through `Game.moderate` (the penalty exit is `disqualify`)."""


def refusal(game: Game, kind: str, seat: int, value: str) -> str:
    """Why the ruling `kind` on `seat` is not possible now ("" if it is)."""
    if kind not in KINDS:
        return f"unknown ruling {kind!r}; rulings: {', '.join(KINDS)}"
    if not 0 <= seat < game.players:
        return f"there is no seat {seat}"
    ps = of(game)
    if kind == "sanction" and not ps.states.is_active(seat):
        return f"{seat_name(seat)} is not Active"
    if kind == "release" and seat not in ps.sanctioned:
        return f"{seat_name(seat)} is not imprisoned by the moderator"
    return ""


def apply(game: Game, kind: str, seat: int, value: str) -> Prompt:
    """Carry out a ruling that `refusal` allowed; then a state check. Returns the
    requests the ruling adds to the waiting prompt.

    A player released while the CHANGE WINDOW waits became Active during it: they may
    vote but are not obliged (7.1), so they get the window's one action (a pass allowed)
    at once; the window is one prompt, so waiting for the next one would skip them.
    Released in any other phase, they are asked at the phase's next move as usual."""
    ps = of(game)
    ps.moderated += 1
    if kind == "sanction":
        ps.sanctioned.add(seat)
        ps.count("moderator_sanction")
        reason = value.strip()
        text = f"The moderator imprisons {seat_name(seat)}" + (f": {reason}." if reason else ".")
        game.emit(Narration("sanction", text), PUBLIC)
        change(game, seat, PlayerState.IMPRISONED, "sanction")
    else:
        ps.sanctioned.discard(seat)
        change(game, seat, PlayerState.ACTIVE, "sanction_lifted")
    state_check(game)
    if kind == "release" and ps.phase == "change_window" and not game.over:
        request = change_request(game, seat)
        if request is not None:
            return {seat: request}
    return {}
