"""Night ability primitives: what each action does to the night state.

Each primitive is a small class registered under the name variant files use
(``action = "kill"``). `choices` offers the legal options for one actor (the engine has
already filtered targets by the step's target rules and limits); `apply` puts the effect
into the `NightState` at once, as the step resolves. Kills are only attempts here; dawn
decides who dies.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from mafia_arena.engine.catalogue import NightResult
from mafia_arena.engine.choices import PASS, Choice, shared_choice
from mafia_arena.engine.events import private
from mafia_arena.engine.game import Game, seat_name
from mafia_arena.engine.state import Attempt, NightState
from mafia_arena.rules.params import attempt_kind
from mafia_arena.rules.spec import NightStep

NO_RESULT = "no result"


class Action:
    """Base primitive: pick targets, apply an effect. Subclasses override `apply`.

    `options_by_targets` says that `choices` and `label` depend on the legal targets
    alone (not on the game, the step or the actor), so `options` may reuse them. A
    subclass that overrides either method is assumed not to, unless it says so.
    """

    name: ClassVar[str] = ""
    verb: ClassVar[str] = "target"
    options_by_targets: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        overrides = "choices" in vars(cls) or "label" in vars(cls)
        if overrides and "options_by_targets" not in vars(cls):
            cls.options_by_targets = False

    def choices(
        self, game: Game, step: NightStep, actor: int, targets: Sequence[int]
    ) -> list[Choice]:
        return [shared_choice(self.verb, t) for t in targets]

    def label(self, choice: Choice) -> str:
        return f"{self.name} {seat_name(choice.target)}" if choice.target is not None else "pass"

    def options(
        self, game: Game, step: NightStep, actor: int, targets: tuple[int, ...], optional: bool
    ) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
        """The request's choices and labels, led by ``decline`` when `optional`."""
        if self.options_by_targets:
            return _options(self, targets, optional)
        return _build_options(self, game, step, actor, targets, optional)

    def apply(
        self,
        game: Game,
        night: NightState,
        step: NightStep,
        actors: tuple[int, ...],
        picks: list[Choice],
    ) -> None:
        raise NotImplementedError

    @staticmethod
    def tell(
        game: Game,
        seats: Sequence[int],
        step: NightStep,
        action: str,
        targets: tuple[int, ...],
        result: str,
    ) -> None:
        """A private answer to the actors (and the step's observers)."""
        game.emit(
            NightResult(action, targets, result, step.name), private(*seats, channel=step.name)
        )


def _build_options(
    action: Action,
    game: Game | None,
    step: NightStep | None,
    actor: int | None,
    targets: tuple[int, ...],
    optional: bool,
) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    choices = action.choices(game, step, actor, targets)  # type: ignore[arg-type]
    labels = [action.label(c) for c in choices]
    if optional:
        return (PASS, *choices), ("decline", *labels)
    return tuple(choices), tuple(labels)


@lru_cache(maxsize=8192)
def _options(
    action: Action, targets: tuple[int, ...], optional: bool
) -> tuple[tuple[Choice, ...], tuple[str, ...]]:
    """`_build_options` for actions whose options depend on the targets alone.

    Cached: each night step offers its actors the same target lists night after night
    and game after game; the choices are shared and the tuples immutable.
    """
    return _build_options(action, None, None, None, targets, optional)


class Kill(Action):
    name = "kill"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is None or night.is_void(pick.target):
                continue
            kind = attempt_kind(step.params, step.group)
            night.attempts.append(Attempt(pick.target, actors, kind, step.name))


class Shoot(Kill):
    """An optional kill (the sheriff may decline)."""

    name = "shoot"


class Protect(Action):
    """Heal: the target survives tonight's kill attempts."""

    name = "protect"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.healed.add(pick.target)


class Check(Action):
    """Learn how the target appears: framing shows mafia, arrest gives no result."""

    name = "check"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is None:
                continue
            result = appearance(game, night, pick.target)
            self.tell(
                game,
                observers(game, step, actors),
                step,
                "check",
                (pick.target,),
                result,
            )


def appearance(game: Game, night: NightState, target: int) -> str:
    """The mafia-check answer function, evaluated when the check is made."""
    if night.is_void(target):
        return NO_RESULT
    if target in night.framed:
        return "mafia"
    return game.variant.appearance(game.state.role(target))


def observers(game: Game, step: NightStep, actors: tuple[int, ...]) -> list[int]:
    """Actors plus living observers of the step who were not blocked tonight."""
    night = game.state.night
    watchers = [
        s
        for s in game.state.holders(set(step.observers))
        if night is None or not night.is_blocked(s)
    ]
    return sorted({*actors, *watchers})


class Arrest(Action):
    name = "arrest"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.arrested.add(pick.target)


class Steal(Action):
    name = "steal"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.robbed.add(pick.target)


class Frame(Action):
    name = "frame"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.framed.add(pick.target)


class Defend(Action):
    """Protection from tomorrow's execution (the lawyer)."""

    name = "defend"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.defended.add(pick.target)


class Silence(Action):
    """The target may not speak, vote or be voted against tomorrow (the lover)."""

    name = "silence"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None and not night.is_void(pick.target):
                night.silenced.add(pick.target)


class Compare(Action):
    """Same team or different (the journalist); solo teams always differ."""

    name = "compare"

    def apply(self, game, night, step, actors, picks):
        a, b = (p.target for p in picks[:2])
        if a is None or b is None:
            return
        if night.is_void(a) or night.is_void(b):
            result = NO_RESULT
        else:
            fa, fb = game.state.faction(a), game.state.faction(b)
            solo = game.variant.factions[fa].solo or game.variant.factions[fb].solo
            result = "different" if solo or fa != fb else "same"
        self.tell(
            game,
            observers(game, step, actors),
            step,
            "compare",
            (a, b),
            result,
        )


class Watch(Action):
    """Who tried to kill the watched player tonight; answered after the last step."""

    name = "watch"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.target is not None:
                night.watches.append((actors, pick.target))


class CheckOrKill(Action):
    """Each night either check a player or kill one (the club detective)."""

    name = "check_or_kill"

    options_by_targets = True

    def choices(self, game, step, actor, targets):
        return [shared_choice("check", t) for t in targets] + [
            shared_choice("kill", t) for t in targets
        ]

    def label(self, choice):
        return f"{choice.verb} {seat_name(choice.target)}"

    def apply(self, game, night, step, actors, picks):
        for pick in picks:
            if pick.verb == "kill":
                ACTIONS["kill"].apply(game, night, step, actors, [pick])
            else:
                ACTIONS["check"].apply(game, night, step, actors, [pick])


ACTIONS: dict[str, Action] = {
    cls.name: cls()
    for cls in (
        Kill,
        Shoot,
        Protect,
        Check,
        Arrest,
        Steal,
        Frame,
        Defend,
        Silence,
        Compare,
        Watch,
        CheckOrKill,
    )
}
