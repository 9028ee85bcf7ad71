"""The copy primitive (club's cardsharp): take one player's skill tonight, then use it.

Two decisions in sequence (club.md 5.15, D17). First the source: a player other than
the copier. An arrested source, or one whose current role has no night step, gives
crossed arms (the copier cannot tell which). Otherwise the copier is told the skill (the
action of the first night step of the source's role) and picks its targets under that
step's own target rules, with himself in the holder's place; the holder's usage limits
and history neither bind him nor are touched by him, and a group kill becomes his own
individual attempt. The effect applies at once, at the copier's step, like the
original's would (a copied watch is still answered at dawn).
"""

from __future__ import annotations

from mafia_arena.engine.actions import Action
from mafia_arena.engine.asking import ask, ask_one, picked_seat, target_request
from mafia_arena.engine.catalogue import Blocked, NightAction, NightResult
from mafia_arena.engine.choices import Choice
from mafia_arena.engine.events import private
from mafia_arena.engine.game import Flow, Game
from mafia_arena.engine.night import legal_targets, night_no, step_request
from mafia_arena.engine.state import NightState
from mafia_arena.rules.params import individual
from mafia_arena.rules.spec import Limits, NightStep


def copyable_step(game: Game, seat: int) -> NightStep | None:
    """The step whose skill `seat` lends tonight: its current role's first night step."""
    role = game.state.role(seat)
    return next(
        (step for step in game.variant.night if role in step.actors and step.action != "copy"), None
    )


def borrowed(skill: NightStep, own: NightStep) -> NightStep:
    """`skill` as the copier uses it: his own step name, alone, mandatory, no limits."""
    return skill.model_copy(
        update={
            "name": own.name,
            "group": False,
            "rounds": 1,
            "chat_rounds": 0,
            "observers": (),
            "optional": False,
            "default": own.default,
            "limits": Limits(),
            "params": individual(skill.params),
            "label": f"use the copied skill ({skill.label or skill.action})",
        }
    )


class Copy(Action):
    """Copy one player's skill, then apply it (runs its own decision sequence)."""

    name = "copy"

    def apply(self, game, night, step, actors, picks):
        raise NotImplementedError("copy runs through Copy.run")

    def run(self, game: Game, step: NightStep, night: NightState, participants: list[int]) -> Flow:
        for actor in participants:
            yield from self._one(game, step, night, actor)

    def _one(self, game: Game, step: NightStep, night: NightState, actor: int) -> Flow:
        sources = legal_targets(game, step, actor, [actor], [])
        if not sources:
            return
        channel = private(actor, channel=step.name)
        request = target_request(
            game,
            actor,
            f"night:{step.name}",
            f"Night {night_no(game)}: choose whose skill to copy",
            sources,
            default=step.default,
            info={"step": step.name, "action": "copy", "pick": "source"},
        )
        source = picked_seat((yield from ask_one(game, request)))
        if source is None:
            return
        skill = copyable_step(game, source)
        if skill is None or night.is_void(source):
            game.emit(NightAction(step.name, (actor,), (f"copy:{source}",)), channel)
            game.emit(Blocked(step.name), channel)
            return
        game.emit(NightResult("copy", (source,), skill.action, step.name), channel)
        use = borrowed(skill, step)
        picks: list[Choice] = []
        for pick_no in range(use.target.count):
            picked = [c.target for c in picks if c.target is not None]
            next_request = step_request(game, use, actor, [actor], picked, pick_no)
            if next_request is None:
                return
            answers = yield from ask(game, {actor: next_request})
            decision = answers.get(actor)  # None: the copier was disqualified meanwhile
            if not isinstance(decision, Choice) or decision.target is None:
                return
            picks.append(decision)
        game.emit(
            NightAction(
                step.name,
                (actor,),
                (f"copy:{source}", *(c.key for c in picks)),
                skill=skill.action,
            ),
            channel,
        )
        game.hooks.actions[use.action].apply(game, night, use, (actor,), picks)


COPY = Copy()
"""The copy step, added to a game's actions where its variant has one
(`engine.extensions`)."""
