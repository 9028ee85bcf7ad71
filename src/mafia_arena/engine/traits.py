"""Passive role traits, as engine hooks: the parts of a role that are not a night step.

Each hook acts only for seats whose current role carries the trait, so variants without
these traits are untouched. The traits and their values in a variant file:

- ``night_immune = true``: survives every night death, kill or retaliation (read at
  dawn by the night code and here);
- ``retaliates = true`` or ``{ clan = "random" | "leader" }``: dying at night takes the
  attackers along: every individual attacker, and one participant of each group attack
  (drawn at random, or the group's leader if he took part);
- ``succeeds = "<role>"``: when a holder of <role> dies, this player takes the role;
- ``inherits = { causes = ["night"], except = ["<role>", ...] }``: the first time players
  of other roles die of one of `causes`, take the role (and its usage history) of one of
  them, drawn at random; once per game;
- ``converts_to = { <faction> = "<role>", ... }``: when a faction that had a member of a
  group kill step at the deal has none alive, become <role> (first listed wins a tie);
- ``activates_when_accused = "<role>"``: accused today and alive at the end of the day:
  become <role>.

A role change tells the player privately (`role_change`); a player whose new role knows
other roles (``knows_roles``) is introduced to their living holders at the start of the
next night (`allies`). Every firing is logged as a host-only `trigger` event for stats.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mafia_arena.engine.catalogue import Allies, RoleChange, Trigger
from mafia_arena.engine.events import HOST, private
from mafia_arena.engine.hooks import DawnHook, DayEndHook, DeathHook, NightHook
from mafia_arena.engine.state import NightState
from mafia_arena.rules import Variant

if TYPE_CHECKING:
    from mafia_arena.engine.game import Game


def trait(game: Game, seat: int, name: str) -> Any:
    """The value of trait `name` of `seat`'s current role (None if absent)."""
    return game.variant.roles[game.state.role(seat)].traits.get(name)


def roles_with(game: Game, name: str) -> frozenset[str]:
    """The variant's roles whose trait `name` is set (truthy), kept in `game.derived`.

    Why: the hooks below run at every dawn and death of every game, and most variants
    give no role their trait; asking this first lets such a hook return at once. The
    variant is immutable, so the answer holds for the whole game.
    """
    key = ("roles_with", name)
    roles = game.derived.get(key)
    if roles is None:
        roles = game.derived[key] = frozenset(
            role for role, spec in game.variant.roles.items() if spec.traits.get(name)
        )
    return roles


def fired(
    game: Game,
    name: str,
    seat: int,
    role: str | None = None,
    victims: Sequence[int] | None = None,
) -> None:
    """Log a trait firing for the host (never shown to players; read by the stats)."""
    game.emit(Trigger(name, seat, role, None if victims is None else tuple(victims)), HOST)


def change_role(game: Game, seat: int, role: str, because: str) -> None:
    """Give `seat` a new current role and that role's faction; the card stays.

    The player is told at once; if the new role knows other roles, the introduction
    waits for the start of the next night, as a live host would do it. A change during
    a night (a disqualification's triggers) is noted in `NightState.changed`: the new
    role acts from the next night on, as after a death at dawn.
    """
    state = game.state.seats[seat]
    if game.state.night is not None:
        game.state.night.changed.add(seat)  # acts in the new role from the next night
    state.role = role
    state.faction = game.variant.roles[role].faction
    game.emit(RoleChange(seat, role, state.faction), private(seat))
    fired(game, because, seat, role=role)
    if game.variant.roles[role].knows_roles:
        state.flags["introduce"] = True


# ----------------------------------------------------------------------------- dawn
def night_immune(game: Game, seat: int) -> bool:
    return bool(trait(game, seat, "night_immune"))


def immunity(game: Game, night: NightState, dying: list[int]) -> list[int]:
    """Dawn hook: log who survived an attack by night immunity alone (for the stats)."""
    if not roles_with(game, "night_immune"):
        return dying
    for target in sorted({a.target for a in night.attempts}):
        if (
            target not in dying
            and target not in night.healed
            and game.state.alive(target)
            and night_immune(game, target)
        ):
            fired(game, "night_immune", target)
    return dying


def retaliation(game: Game, night: NightState, dying: list[int]) -> list[int]:
    """Dawn hook: a dying retaliator's attackers die with him (club 4.7 step 3, D15).

    Retaliation never chains and is no attempt (the watch does not see it); a heal or
    night immunity saves its victims.
    """
    if not roles_with(game, "retaliates"):
        return dying
    hit: set[int] = set()
    for target in dying:
        spec = trait(game, target, "retaliates")
        if not spec:
            continue
        mode = spec.get("clan", "random") if isinstance(spec, dict) else "random"
        marked: set[int] = set()
        for attempt in night.attempts:
            if attempt.target != target:
                continue
            if attempt.kind == "clan":
                marked.add(_one_of(game, attempt.attackers, mode))
            else:
                marked.update(attempt.attackers)
        victims = sorted(
            s
            for s in marked
            if s not in night.healed and game.state.alive(s) and not night_immune(game, s)
        )
        if victims:
            fired(game, "retaliates", target, victims=victims)
            hit.update(victims)
    return sorted(set(dying) | hit) if hit else dying


def _one_of(game: Game, attackers: tuple[int, ...], mode: str) -> int:
    if mode == "leader":
        leaders = [s for s in attackers if trait(game, s, "leader")]
        if leaders:
            return leaders[0]
    return game.draw("retaliation: one of the group", sorted(attackers))


# ----------------------------------------------------------------------------- deaths
def succession(game: Game, seats: list[int], cause: str) -> None:
    """Death hook: a successor takes the role of a dead holder (club 4.8 a, D21)."""
    if not roles_with(game, "succeeds"):
        return
    state = game.state
    for dead in seats:
        role = state.role(dead)
        heir = next((s for s in state.living() if trait(game, s, "succeeds") == role), None)
        if heir is not None:
            state.seats[dead].flags["succeeded"] = True
            change_role(game, heir, role, "succeeds")


def inheritance(game: Game, seats: list[int], cause: str) -> None:
    """Death hook: an heir takes one dead player's role and its state (club 4.8 b, D20).

    A role already passed on by succession does not count. The heir gets the dead
    player's usage records (limits, last target, interactions), so the role continues.
    """
    if not roles_with(game, "inherits"):
        return
    state = game.state
    for heir in state.living():
        spec = trait(game, heir, "inherits")
        if not spec:
            continue
        spec = spec if isinstance(spec, dict) else {}
        if cause not in spec.get("causes", ["night"]):
            continue
        excluded = set(spec.get("except", ()))
        candidates = [
            d
            for d in seats
            if not state.alive(d)
            and d != heir
            and state.role(d) not in excluded
            and not state.seats[d].flags.get("succeeded")
        ]
        if not candidates:
            continue
        dead = candidates[0] if len(candidates) == 1 else game.draw("inheritance", candidates)
        for (actor, step), usage in list(state.usage.items()):
            if actor == dead:
                state.usage[(heir, step)] = copy.deepcopy(usage)
        change_role(game, heir, state.role(dead), "inherits")


def kill_group_roles(game: Game, faction: str) -> set[str]:
    """The roles of `faction` that act in a group kill step (club: the clan's killers)."""
    return {
        role
        for step in game.variant.night
        if step.group and step.action == "kill"
        for role in step.actors
        if game.variant.roles[role].faction == faction
    }


def conversion(game: Game, seats: list[int], cause: str) -> None:
    """Death hook: a converter joins a wiped-out group's faction (club 4.8 c, D18)."""
    if not roles_with(game, "converts_to"):
        return
    state = game.state
    for seat in state.living():
        spec = trait(game, seat, "converts_to")
        if not spec:
            continue
        for faction, role in spec.items():
            group = kill_group_roles(game, faction)
            at_deal = any(s.card in group for s in state.seats)
            if at_deal and not any(state.role(s) in group for s in state.living()):
                change_role(game, seat, role, "converts_to")
                break


# ----------------------------------------------------------------------------- night, day
def introductions(game: Game, number: int) -> None:
    """Night hook: a player who joined a team meets its living members (club 4.8 d)."""
    state = game.state
    for seat in state.seats:
        if not seat.flags.pop("introduce", False) or not seat.alive:
            continue
        roles = game.variant.roles
        team = [
            s
            for s in state.living()
            if s != seat.seat and state.role(s) in roles[seat.role].knows_roles
        ]
        if not team:
            continue
        game.emit(Allies(seat.seat, {s: state.role(s) for s in team}), private(seat.seat))
        for member in team:
            if seat.role in roles[state.role(member)].knows_roles:
                game.emit(Allies(member, {seat.seat: seat.role}), private(member))


def activation(game: Game) -> None:
    """Day-end hook: an accused player who survived the day changes role (club 6.7)."""
    if not roles_with(game, "activates_when_accused"):
        return
    state = game.state
    for seat in sorted(state.accused_today):
        role = trait(game, seat, "activates_when_accused") if state.alive(seat) else None
        if role:
            change_role(game, seat, role, "activates_when_accused")


# ----------------------------------------------------------------------------- per variant
DAWN_TRAITS: tuple[tuple[str, DawnHook], ...] = (
    ("night_immune", immunity),
    ("retaliates", retaliation),
)
DEATH_TRAITS: tuple[tuple[str, DeathHook], ...] = (
    ("succeeds", succession),
    ("inherits", inheritance),
    ("converts_to", conversion),
)
DAY_END_TRAITS: tuple[tuple[str, DayEndHook], ...] = (("activates_when_accused", activation),)
ROLE_CHANGES = frozenset({"succeeds", "inherits", "converts_to", "activates_when_accused"})
"""Traits that change a role, after which the new role may meet its team at night."""


def trait_hooks(
    variant: Variant,
) -> tuple[
    tuple[DawnHook, ...], tuple[DeathHook, ...], tuple[NightHook, ...], tuple[DayEndHook, ...]
]:
    """The (dawn, death, night, day-end) hooks of the traits `variant`'s roles carry,
    in calling order; empty for a variant without traits."""
    used = {name for spec in variant.roles.values() for name, value in spec.traits.items() if value}
    night: tuple[NightHook, ...] = (introductions,) if used & ROLE_CHANGES else ()
    return (
        tuple(hook for name, hook in DAWN_TRAITS if name in used),
        tuple(hook for name, hook in DEATH_TRAITS if name in used),
        night,
        tuple(hook for name, hook in DAY_END_TRAITS if name in used),
    )
