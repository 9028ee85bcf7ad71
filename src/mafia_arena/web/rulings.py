"""The moderator's rulings at a web table: which a variant has, and carrying one out.

Forum games leave some calls to a person (dictator.md 8.4–8.5: a post that does not
count against inactivity, a warning, a forfeit; palermo.md 4.4: the moderator's
imprisonment and release). The engine applies them (`Game.moderate`, recorded like a
decision so a replay and a restarted server apply them again at the same point); at a
web table the game's creator gives them, through ``POST /api/games/{id}/rulings``.

Why a ruling is applied at once rather than at the end of the open prompt: a forum
window is one long prompt, and a post judged irrelevant must be judged before the
window's inactivity count. The driver's turns then follow (`settle`): a seat that the
ruling took out of the prompt (a sanction), or every seat when it ended the game (a
forfeit), stops waiting, and a seat it brought into the waiting prompt (a release in
Palermo's CHANGE WINDOW) is asked at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mafia_arena.agents.human import clean_text
from mafia_arena.engine.errors import GameOver, IllegalModeration
from mafia_arena.engine.forum import moderation
from mafia_arena.engine.palermo import moderator
from mafia_arena.rules import Variant

if TYPE_CHECKING:
    from mafia_arena.web.session import GameSession


class RulingRefused(ValueError):
    """A ruling that cannot be given now; the message says why (public facts only)."""


@dataclass(frozen=True)
class Ruling:
    """One ruling as given: what, on whom, why."""

    kind: str
    seat: int
    value: str = ""


def ruling_kinds(variant: Variant) -> tuple[str, ...]:
    """The rulings `variant` lets its moderator give (none outside forum games)."""
    if variant.palermo is not None:
        return moderator.KINDS
    if variant.rules.flow == "dictator":
        return moderation.KINDS
    return ()


def give(session: GameSession, ruling: Ruling) -> None:
    """Apply `ruling` to the session's game now, store it, settle the open turns and
    push every page; `RulingRefused` (the game untouched) when it is not possible.

    The reason is cleaned like speech (`clean_text`): the engine writes it into lines
    every seat reads, and the creator is an anonymous visitor, so a line break or a
    right-to-left override there could fake a game line, and invisible characters could
    whisper to the language-model players."""
    game = session.game
    if game is None:
        raise RulingRefused("the game has not started")
    if not ruling_kinds(session.variant):
        raise RulingRefused(f"the {session.variant.name} variant has no moderator rulings")
    try:
        game.moderate(ruling.kind, ruling.seat, clean_text(ruling.value))
    except GameOver:
        raise RulingRefused("the game is over") from None
    except IllegalModeration as exc:
        raise RulingRefused(exc.reason) from None
    session.record("moderator")
    settle(session)
    session.push_all()


def settle(session: GameSession) -> None:
    """End the turns of seats that no longer have to answer (out of the prompt, or the
    game over): their coroutines in the driver stop waiting. And wake the driver, which
    opens a turn at once for a seat the waiting prompt asks now (a Palermo player
    released in the CHANGE WINDOW), not after the seats asked before it answer."""
    game = session.game
    assert game is not None
    for slot in session.slots:
        if slot.active and (game.over or game.request(slot.seat) is None):
            slot.active = False
            slot.changed.set()
    session.prompt_changed.set()
