"""Why a finished game ended, in words, for the people who read its end: the web's end
screen and replay page, the terminal game and the command line's `play` and `replay`
transcripts (`views.people_text`).

The engine records the winner in `GameEnded`, and a reason only where its own rules
write one (a draw's "maximum length reached", Palermo's endings, a forfeit). A game
won by a faction's win rule (`engine.win.check_win`) ends with an empty reason, and the
forum game's (`engine.forum.dictator.check_win`) says "the mafia win", which says
nothing the page's title ("Game over: mafia won") does not. The page then gave no hint
that the mafia had won at parity, say, with two mafiosi against two villagers.

The words are found here, when the page or line is rendered, from the finished game's
state, and never written into the event nor into the transcript a model reads: a
stored log must replay as the same game, event for event, so the engine's events and
prompts stay as they were.

What they say is public once the game is over: `GameEnded` shows every seat every card
and faction, every death is announced to the table as it happens (`Death`, before the
win check that follows it), and the forum's dictator is announced with each change of
office. The living counts are therefore what every seat can count on its own end
screen.
"""

from __future__ import annotations

from mafia_arena.engine.catalogue import GameEnded
from mafia_arena.engine.forum.state import forum
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.win import rule_holds
from mafia_arena.rules.spec import WinRule

__all__ = ["end_reason", "rule_words", "says_nothing", "why_won"]


def says_nothing(ended: GameEnded) -> bool:
    """Whether the event's reason is empty or merely repeats the end screen's title
    (the forum game's "the mafia win" under "Game over: mafia won")."""
    reason = ended.reason.strip().rstrip(".").lower()
    if not reason:
        return True
    winner = (ended.winner or "").lower()
    return bool(winner) and reason in (f"the {winner} win", f"the {winner} won", f"{winner} won")


def end_reason(game: Game, ended: GameEnded) -> str:
    """The reason the end screen shows for `ended`, the finished `game`'s end: the
    event's own where it says something, else the rule that held in words
    (`why_won`), or the event's own again where no rule can be named."""
    if not says_nothing(ended):
        return ended.reason
    return why_won(game, ended) or ended.reason


def why_won(game: Game, ended: GameEnded) -> str:
    """Which win rule ended `game` (over, `ended` its end), in words, with the living
    counts where the rule is a count: "the mafia are at least as many as all other
    living players (2 against 2)". Empty where no rule of the winner holds in the final
    state (an end the rules did not decide)."""
    if game.variant.rules.flow == "dictator":
        return _dictator_why(game, ended)
    living = game.state.living_seats()
    if ended.winner is None:
        if not living:
            return "nobody is left alive"
        factions = [
            name
            for name, spec in game.variant.factions.items()
            if any(rule.type == "clan" for rule in spec.win)
            and any(game.state.faction(s) == name for s in living)
        ]
        if len(factions) > 1:
            return f"the {' and the '.join(factions)} reach their goal at once"
        return ""
    faction = game.variant.factions.get(ended.winner)
    if faction is None:
        return ""
    seats = ended.winners if faction.solo else None
    members = [s for s in seats if s in living] if seats is not None else None
    rule = next((r for r in faction.win if rule_holds(game, ended.winner, r, members)), None)
    return "" if rule is None else rule_words(game, ended.winner, rule, members)


def rule_words(game: Game, faction: str, rule: WinRule, members: list[int] | None = None) -> str:
    """Why `rule` holds for `faction` (for `members`, one solo player), in the words of
    `WinRule`'s types (and of the rules text, `views.rules_text`), with the living
    counts that make it hold.

    A type this function has no words for (one added to `WinRule` and not here yet)
    gets plain ones naming the type: an end screen must still say how the game ended,
    where raising would take the whole page (or transcript) down with it."""
    state = game.state
    living = state.living_seats()
    own = members if members is not None else [s for s in living if state.faction(s) == faction]
    others = len(living) - len(own)
    counts = f"({len(own)} against {others})"
    if rule.type == "eliminated":
        named = rule.factions or tuple(game.variant.factions)
        enemies = [f for f in game.variant.factions if f != faction and f in named]
        enemies = enemies or ["other sides"]
        listed = ", ".join(enemies[:-1]) + (" or " if len(enemies) > 1 else "") + enemies[-1]
        return f"no player of the {listed} is left alive"
    if rule.type == "parity":
        return f"the {faction} are at least as many as all other living players {counts}"
    if rule.type == "sole_survivors":
        return f"only the {faction} are alive"
    if rule.type == "clan":
        return (
            f"the {faction} are at least as many as all other living players {counts}, "
            "with no killer of another side alive"
        )
    if rule.type == "solo":
        plural = "" if others == 1 else "s"
        return (
            f"{seat_name(own[0])} is alive with no other killer and {others} other "
            f"player{plural} (at most {rule.others})"
        )
    kind = str(rule.type).replace("_", " ")
    return f"the {faction} meet their {kind} win rule {counts}"


def _dictator_why(game: Game, ended: GameEnded) -> str:
    """The forum game's section 6 in words (`engine.forum.dictator.outcome`): which of
    its rules gave `ended`'s result, with the counts of the mafia dictator's rule."""
    state, variant = game.state, game.variant
    living = state.living_seats()
    town = [s for s in living if variant.side(state.faction(s)) == "town"]
    mafia = [s for s in living if variant.side(state.faction(s)) == "mafia"]
    if not town and not mafia:
        return "both parties are wiped out"
    side = variant.side(ended.winner) if ended.winner in variant.factions else None
    if side == "town" and not mafia:
        return "no mafia-party player is left in the game"
    if side == "mafia" and not town:
        return "no citizen is left in the game"
    dictator = forum(game).dictator
    if (
        side == "mafia"
        and dictator is not None
        and variant.side(state.faction(dictator)) == "mafia"
        and len(town) <= len(mafia)
    ):
        return (
            f"the dictator {seat_name(dictator)} is mafia and the citizens are no more than "
            f"the mafia ({len(town)} against {len(mafia)})"
        )
    return ""
