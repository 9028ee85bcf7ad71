"""The request kinds a variant can ask each side, read from the variant's own data.

Why from the data: a learner told to answer a kind its side is never asked would have
`TeamEnv.reset` deal games without ever reaching a decision, so `TeamSetup` refuses
such a kind when the env is built. A fixed list of every kind the engine knows would
let ``vote`` through in classic (whose day is nominations and a final vote) and fail
only at `reset`; here each kind comes from the step that asks it: the night steps
(`night:<step>`, their channel talk and the group's description of a death), the day
steps (a discussion's protocol, the voting procedure and its switches, last words),
Palermo's forum clock and the dictator's communication window.

A kind is listed where the variant *can* ask it at that player count; whether a given
game does depends on the deal and the play (a tie, a second detective, a night with
more than one living mafioso). A role that changes cards counts with the roles it can
become (the variant's traits name them); a seat keeps the side it was dealt, so a
night step is listed for the sides its roles belong to.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mafia_arena.rules import Variant, load_variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.params import AccuseDefendParams, DiscussionParams
from mafia_arena.rules.spec import DayStep, NightStep
from mafia_arena.views.encode import DAY_KINDS, FORUM_KINDS

UNENCODED_KINDS = ("bid", "explain", "vote_intent", "forum")
"""Request kinds the engine asks that the observation layout files under ``other``
(speaking-order bids, a voter's explanation, the vote-intention poll, a forum game's
window)."""
DISCUSSION_KINDS = ("speak",)
PROCEDURE_KINDS: dict[str, tuple[str, ...]] = {
    "plurality": ("vote",),
    "nominate_final": ("nominate", "plea", "final_vote", "last_dead"),
    "accuse_defend": ("nominate", "explain", "defence", "final_vote", "last_word"),
}
"""The kinds each voting procedure asks (`engine.voting`); ``explain`` only with the
procedure's ``explain`` switch. A procedure a variant module registers itself is
taken to ask any of them."""
PALERMO_KINDS = ("speak", *FORUM_KINDS)
"""Palermo's forum clock (`engine.palermo`): moves, posts, the vote and its window."""
DICTATOR_KINDS = ("forum",)
"""A ``dictator`` flow asks everything, night forms included, in its window."""


def request_kinds(
    variant: Variant | str | Path,
    players: int,
    overrides: Mapping[str, Any] | None = None,
    side: str | None = None,
) -> tuple[str, ...]:
    """The request kinds `variant` can ask at `players` seats (of `side`, when given),
    as `TeamSetup.kinds` names them, in the observation layout's order.

    `variant` is a `Variant`, or a name in `envs/` or a file path loaded with
    `overrides`, as every env takes it: `TeamSetup.variant` is a name, so a caller
    listing the kinds a setup may name passes it as it is. Raises `VariantError` for a
    player count the variant does not deal."""
    if not isinstance(variant, Variant):
        variant = load_variant(variant, overrides)
    asked = asked_sides(variant, players)
    return tuple(k for k, sides in asked.items() if side is None or side in sides)


def asked_sides(variant: Variant, players: int) -> dict[str, set[str]]:
    """Each kind `variant` can ask at `players` seats, with the sides it asks it of."""
    counts = deck_counts(variant, players)
    roles = reachable_roles(variant, counts)
    everyone = {side_of(variant, role) for role in roles}
    found: dict[str, set[str]] = {}

    def add(kinds: Iterable[str], sides: set[str]) -> None:
        for kind in kinds:
            found.setdefault(kind, set()).update(sides)

    if variant.rules.flow == "dictator":  # its window asks everything, the nights too
        add(DICTATOR_KINDS, everyone)
        return found
    for step in variant.night:
        acting = [role for role in step.actors if role in roles]
        if acting:
            add(night_kinds(step, sum(counts.get(r, 1) for r in acting)), sides_of(variant, acting))
    for day_step in variant.day:
        add(day_kinds(day_step), everyone)
    if variant.palermo is not None:
        add(PALERMO_KINDS, everyone)
    order = {k: i for i, k in enumerate(canonical_order(variant))}
    return dict(sorted(found.items(), key=lambda item: order.get(item[0], len(order))))


def night_kinds(step: NightStep, actors: int) -> list[str]:
    """What a night step asks its actors: its pick, the channel talk before it (with
    more than one actor), and the group's line on the manner of death (``describe``)."""
    kinds = [f"night:{step.name}"]
    if step.chat_rounds and actors > 1:
        kinds.append("night_chat")
    if step.group and step.params.describe:
        kinds.append("describe")
    return kinds


def day_kinds(step: DayStep) -> tuple[str, ...]:
    """What a day step asks every living player (`engine.flow.day_step`)."""
    if step.type == "introductions":
        return DISCUSSION_KINDS
    if step.type == "discussion":
        if not step.rounds:
            return ()
        params = step.params if isinstance(step.params, DiscussionParams) else None
        bids = ("bid",) if params is not None and params.order == "bidding" else ()
        poll = ("vote_intent",) if params is not None and params.intentions else ()
        return (*DISCUSSION_KINDS, *bids, *poll)
    if step.type == "vote":
        kinds = PROCEDURE_KINDS.get(step.procedure)
        if kinds is None:
            return tuple(dict.fromkeys(k for ks in PROCEDURE_KINDS.values() for k in ks))
        explain = isinstance(step.params, AccuseDefendParams) and step.params.explain
        return tuple(k for k in kinds if k != "explain" or explain)
    if step.type == "last_words":
        return ("last_word",)
    if step.type == "forum":
        return ("forum",)
    return ()


def reachable_roles(variant: Variant, dealt: Mapping[str, int]) -> set[str]:
    """The dealt roles and every role they can become: a role a trait names (club's
    ``succeeds``, ``activates_when_accused``, ``converts_to`` values), repeatedly."""
    roles = set(dealt)
    todo = list(roles)
    while todo:
        for name in _named_roles(variant, variant.roles[todo.pop()].traits):
            if name not in roles:
                roles.add(name)
                todo.append(name)
    return roles


def _named_roles(variant: Variant, value: Any) -> Iterable[str]:
    """The role names in a trait's value (text, or nested mappings and lists of it)."""
    if isinstance(value, str):
        if value in variant.roles:
            yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _named_roles(variant, item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _named_roles(variant, item)


def side_of(variant: Variant, role: str) -> str:
    """The side of `role`'s faction (the faction's own name where it has no entry)."""
    faction = variant.roles[role].faction
    return variant.factions[faction].side if faction in variant.factions else faction


def sides_of(variant: Variant, roles: Iterable[str]) -> set[str]:
    """The sides of `roles`."""
    return {side_of(variant, role) for role in roles}


def canonical_order(variant: Variant) -> tuple[str, ...]:
    """Every kind in the observation layout's order, then the unencoded ones."""
    nights = (f"night:{s.name}" for s in variant.night)
    return (*nights, *DAY_KINDS, *FORUM_KINDS, *UNENCODED_KINDS)
