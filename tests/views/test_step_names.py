"""Night steps go by the variant's readable names (`NightStep.display`) in the text view
and the rules text, and by their ids everywhere else.

Per bundled variant: every step has a name; every transcript line about a step (a
team's picks, the night action, a blocked actor, an heir's usage record) writes the
name and not the id; the rules text heads each step's rule with the name and the id
beside it and lists a role's steps by name; and a seeded game played with and without
the names differs in those lines alone, while every seat's numeric observation is the
same at every step (the names are rules data read by the text view only).
"""

from __future__ import annotations

import hashlib
import random
import re

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    Blocked,
    GroupPicks,
    NightAction,
    RoleChange,
    UsageRecord,
)
from mafia_arena.engine.events import Event
from mafia_arena.rules import Variant, load_variant
from mafia_arena.views import SeatTracker
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.rules_text import rules_text
from mafia_arena.views.text import render_event

NIGHT_VARIANTS = ["simple", "standard", "classic", "club"]
"""The variants played by night steps (their text view and rules text name steps)."""
NAMED = [*NIGHT_VARIANTS, "dictator"]
"""Every bundled variant with night steps (the forum game's steps are its night forms)."""
GAMES = [("simple", 7, 1), ("standard", 8, 2), ("classic", 10, 2), ("club", 12, 2)]
GAMES += [("dictator", 12, 1)]


def unnamed(variant: Variant) -> Variant:
    """`variant` with every night step's name taken away (the ids shown instead)."""
    night = tuple(step.model_copy(update={"display": ""}) for step in variant.night)
    return variant.model_copy(update={"night": night})


def _lines(variant: Variant) -> list[str]:
    """One line of every kind that names a step, for every step of `variant`."""
    names = DisplayNames.of(variant)
    lines = []
    for step in variant.night:
        record = RoleChange(0, "doctor", "town", (UsageRecord(step.name, 1, 2, 1, {2: 1}),))
        for fact in (
            GroupPicks(step.name, 1, {0: "target:2", 1: "target:3"}),
            NightAction(step.name, (0, 1), ("target:2",), team=True),
            NightAction(step.name, (0,), ("target:2",)),
            Blocked(step.name),
            record,
        ):
            line = render_event(Event(0, 1, "night", fact), 0, names)
            assert line is not None
            lines.append(line)
    return lines


@pytest.mark.parametrize("name", NAMED)
def test_every_night_step_has_a_name_that_fits_a_sentence(name: str) -> None:
    variant = load_variant(name)
    assert variant.night
    names = DisplayNames.of(variant)
    assert set(names.steps) == {step.name for step in variant.night}
    for step in variant.night:
        shown = names.step(step.name)
        assert shown == step.display and shown != step.name
        # a phrase that stands mid-sentence: lower case, no id-like underscores
        assert shown[:1].islower() and "_" not in shown and shown == shown.strip()
        assert names.step_and_id(step.name) == f"{shown} ({step.name})"


def test_a_variant_without_step_names_keeps_the_ids() -> None:
    plain = DisplayNames.of(unnamed(load_variant("standard")))
    assert not plain.steps
    assert plain.step("mafia_kill") == "mafia_kill" == plain.step_and_id("mafia_kill")
    assert DisplayNames.of(load_variant("palermo")).steps == {}  # no night steps at all


@pytest.mark.parametrize("name", NIGHT_VARIANTS)
def test_the_transcript_lines_name_each_step(name: str) -> None:
    variant = load_variant(name)
    lines = _lines(variant)
    for step, start in zip(variant.night, range(0, len(lines), 5), strict=True):
        own = lines[start : start + 5]
        spaced = step.name.replace("_", " ")
        for line in own:
            assert step.display in line, line
            assert step.name not in line and spaced not in line, line
        assert own[0].startswith(f"[N1] Team picks for {step.display} (round 1): ")
        assert own[1] == f"[N1] Your team's night action ({step.display}): P3."
        assert own[2] == f"[N1] Your night action ({step.display}): P3."
        assert own[3] == f"[N1] You could not act tonight ({step.display})."
        assert f" You take over its record for {step.display}: used 1 time" in own[4]


def test_without_names_the_lines_write_the_ids_as_before() -> None:
    team = Event(0, 1, "night", NightAction("mafia_kill", (0, 1), ("target:2",), team=True))
    blocked = Event(0, 1, "night", Blocked("doctor_protect"))
    assert render_event(team, 0, PLAIN) == "[N1] Your team's night action (mafia kill): P3."
    assert render_event(blocked, 0, PLAIN) == "[N1] You could not act tonight (doctor_protect)."


@pytest.mark.parametrize("name", NIGHT_VARIANTS)
def test_the_rules_text_names_each_step(name: str) -> None:
    variant = load_variant(name)
    text = rules_text(variant)
    lines = text.splitlines()
    for number, step in enumerate(variant.night, 1):
        head = f"{step.display[:1].upper()}{step.display[1:]} ({step.name}; "
        rule = next(line for line in lines if line.startswith(f"{number}. "))
        assert rule.startswith(f"{number}. {head}"), rule
        # the id stands only where the step is defined, beside its name
        assert len(re.findall(rf"\b{step.name}\b", text)) == 1, step.name
    for role in variant.roles:  # a role's card lists its steps by name
        card = next((line for line in lines if line.startswith(f"- {role} (")), None)
        acts = [s.display for s in variant.night if role in s.actors]
        watches = [s.display for s in variant.night if role in s.observers]
        if card is None:  # a role the text does not list (never dealt, never reached)
            continue
        if acts:
            assert f" Night step: {', '.join(acts)}." in card, card
        if watches:
            assert f" Watches the result of: {', '.join(watches)}." in card, card
    first = variant.night[0]
    plain = rules_text(unnamed(variant))  # without names: the ids, as before
    assert f"1. {first.name} (" in plain and f"({first.name}; " not in plain
    assert "Night step: " + first.name in plain


def _play(variant: Variant, players: int, seed: int) -> tuple[list[str], list[str]]:
    """Every seat's transcript lines and observation digests, step by step, of one
    seeded game with random decisions (as tests/golden plays it)."""
    game = Game(variant, players, seed)
    trackers = [SeatTracker(s) for s in range(players)]
    encoder = ObservationEncoder(variant, players)
    rng = random.Random(f"step names:{seed}")
    text: list[str] = []
    observations: list[str] = []
    while True:
        for tracker in trackers:
            before = len(tracker.knowledge.lines())
            view = tracker.view(game)
            text += [f"P{tracker.seat + 1}| {line}" for line in view.knowledge.lines()[before:]]
            vector = encoder.encode(view)
            observations.append(hashlib.sha256(vector.tobytes()).hexdigest())
        if game.over:
            return text, observations
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))


@pytest.mark.parametrize(("name", "players", "seed"), GAMES, ids=[g[0] for g in GAMES])
def test_the_names_change_the_step_lines_and_no_observation(
    name: str, players: int, seed: int
) -> None:
    variant = load_variant(name)
    named_text, named_obs = _play(variant, players, seed)
    plain_text, plain_obs = _play(unnamed(variant), players, seed)
    assert named_obs == plain_obs and len(named_obs) > players
    assert len(named_text) == len(plain_text)
    names = DisplayNames.of(variant)
    changed = 0
    for named, plain in zip(named_text, plain_text, strict=True):
        if named == plain:
            continue
        changed += 1
        for step, shown in names.steps.items():  # the plain line with each step named
            for before, after in (
                (f"Team picks for {step} (", f"Team picks for {shown} ("),
                (f"night action ({step.replace('_', ' ')})", f"night action ({shown})"),
                (f"tonight ({step})", f"tonight ({shown})"),
                (f"record for {step}:", f"record for {shown}:"),
            ):
                plain = plain.replace(before, after)
        assert named == plain
    if name == "dictator":
        assert changed == 0  # the forum game's text names forms by verb, never a step
    else:
        assert changed > 0
        assert any("Team picks for the mafia's kill" in line for line in named_text)
