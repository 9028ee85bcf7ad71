"""The game master's rulings in a forum game (dictator.md 8.4, 8.5.3).

The engine plays the game master, but two of his duties are judgement calls that the
source leaves to a person: what counts as a game-relevant post ("Der Spielleiter
entscheidet was spielrelevant ist und was nicht") and how a broken conduct rule is
punished ("Verstöße werden vom Spielleiter entsprechend geahndet, im Extremfall durch
den sofortigen Sieg der Gegenpartei"). The judgement stays with the host; the effect of
each ruling is an engine rule here, with an event of explicit audience:

- ``irrelevant``: one of a seat's thread posts of the current phase (its number among
  that seat's posts of the phase, from 1; empty: all of them so far) no longer counts
  as game-relevant for the inactivity check at the phase end (8.5.3). The post stays in
  the thread; only its author is told, privately.
- ``warning``: a sanction short of the game's end, a private game-master message to the
  seat (dead or alive) with the host's reason. It is not an inactivity warning and never
  counts towards the three of 8.5: the source names no other warning trigger (OP-D26).
- ``forfeit``: the extreme sanction: the game ends at once with the victory of the
  party opposing the seat's current party, announced publicly with the host's reason (6,
  "Forfeit"). Every member of the winning party wins, dead or alive.

`Game.moderate` validates, records the ruling as a host decision (so a log replays it
at the same point) and calls `apply`; `refusal` says why a ruling is not possible now.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import GameMasterNotice, Narration
from mafia_arena.engine.events import PUBLIC, private
from mafia_arena.engine.forum.state import forum
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.win import end_game

KINDS = ("irrelevant", "warning", "forfeit")
IRRELEVANT_NOTICE = (
    "The game master marked your thread post irrelevant: it does not count as a "
    "game-relevant post for the inactivity rule."
)


def refusal(game: Game, kind: str, seat: int, value: str) -> str:
    """Why the ruling `kind` on `seat` with `value` is not possible now ("" if it is)."""
    if game.variant.rules.flow != "dictator":
        return f"the {game.variant.name} variant has no game-master rulings"
    if kind not in KINDS:
        return f"unknown ruling {kind!r}; rulings: {', '.join(KINDS)}"
    if not 0 <= seat < game.players:
        return f"there is no seat {seat}"
    if kind != "irrelevant":
        return "" if value.strip() else f"a {kind} needs the reason in words"
    if not game.state.alive(seat):
        return f"{seat_name(seat)} is out of the game and posts nothing that is checked"
    posts = _posts_of(game, seat)
    if not posts:
        return f"{seat_name(seat)} has no thread post in this phase"
    number = value.strip()  # compared as text: no int() of what a client typed
    if number and number not in {str(n) for n in range(1, len(posts) + 1)}:
        return f"{seat_name(seat)} has {len(posts)} thread post(s) in this phase, not {value!r}"
    return ""


def apply(game: Game, kind: str, seat: int, value: str) -> None:
    """Carry out a ruling that `refusal` allowed (see the module doc)."""
    if kind == "irrelevant":
        mark_irrelevant(game, seat, int(value) if value.strip() else None)
    elif kind == "warning":
        text = f"The game master warns you: {value.strip()}"
        game.emit(GameMasterNotice(seat, "sanction", text), private(seat, channel="gm"))
    else:
        forfeit(game, seat, value.strip())


def _posts_of(game: Game, seat: int) -> list[int]:
    """Positions in the open window's thread of `seat`'s posts, in writing order."""
    return [i for i, (author, _) in enumerate(forum(game).thread) if author == seat]


def mark_irrelevant(game: Game, seat: int, number: int | None) -> None:
    """The seat's `number`-th post of this phase (None: all so far) stops counting."""
    state = forum(game)
    posts = _posts_of(game, seat)
    state.irrelevant.update(posts if number is None else [posts[number - 1]])
    state.posted = {
        author for i, (author, _) in enumerate(state.thread) if i not in state.irrelevant
    }
    game.emit(GameMasterNotice(seat, "moderation", IRRELEVANT_NOTICE), private(seat, channel="gm"))


def forfeit(game: Game, seat: int, reason: str) -> None:
    """The opposing party wins at once (8.4's extreme sanction)."""
    variant, gs = game.variant, game.state
    side = variant.side(gs.faction(seat))
    winner = next(name for name, spec in variant.factions.items() if spec.side != side)
    text = (
        f"The game master ends the game: {seat_name(seat)} broke the rules ({reason}). "
        f"The {winner} win."
    )
    game.emit(Narration("sanction", text), PUBLIC)
    end_game(game, winner, f"forfeit by {seat_name(seat)}: {reason}")
