"""Differential: the web table's words for a team's later round of picks
(`views.people_text.team_round_prompt` with the host's `web.stand_ins.round_answers`)
do not tell a blocked teammate from one who was asked and passed.

Two real engine games of a variant whose night kill wakes two mafiosi, who know each
other, and a hitman whom neither was shown: a thief steals one mafia member's action
(the thief's secret), and the observing mafioso picks while every other member asked
passes. In one world the thief robbed the observer's known teammate (so only the hitman
was asked and passed), in the other the hitman (so the teammate was asked and passed).
The observer's lines are the same in both; so must the prompt of the second round be.
"""

from __future__ import annotations

from pathlib import Path

from mafia_arena.engine import PASS, Game
from mafia_arena.engine.catalogue import GroupPicks
from mafia_arena.engine.choices import Choice, Request
from mafia_arena.rules import Variant, load_variant
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.people_text import people_prompt, seat_line
from mafia_arena.views.view import SeatTracker
from mafia_arena.web.stand_ins import round_answers

OBSERVER, TEAMMATE, HITMAN, VICTIM = 0, 1, 2, 4
DEAL = ["mafioso", "mafioso", "hitman", "thief", "villager", "villager"]


def variant_text(hitman_known: bool) -> str:
    """A six-player variant: two mafiosi and a hitman kill together (two rounds, a pass
    allowed) after a thief steals one player's action. `hitman_known`: the mafiosi and
    the hitman know one another; else the mafiosi know only each other."""
    knows = '["mafioso", "hitman"]' if hitman_known else '["mafioso"]'
    return f"""
name = "hitmen"
title = "Hitmen"
description = "Two mafiosi and a hitman against a thief and the town."
min_players = 6
max_players = 6

[rules]
first_phase = "night"
max_rounds = "n + 2"

[composition]
formula = {{ mafioso = "2", hitman = "1", thief = "1", villager = "rest" }}

[factions.town]
side = "town"
description = "Find the mafia."
win = [{{ type = "eliminated", factions = ["mafia"] }}]

[factions.mafia]
side = "mafia"
appears = "mafia"
description = "Outnumber the town."
win = [{{ type = "parity" }}]

[roles.villager]
faction = "town"
description = "No night action."

[roles.thief]
faction = "town"
description = "Steals one player's action each night."

[roles.mafioso]
faction = "mafia"
description = "Kills with the mafia."
knows_roles = {knows}

[roles.hitman]
faction = "mafia"
description = "Kills with the mafia."
knows_roles = {knows if hitman_known else "[]"}

[[night]]
name = "thief_steal"
label = "steal one player's action"
actors = ["thief"]
action = "steal"
target = {{ self = false }}

[[night]]
name = "mafia_kill"
label = "choose tonight's victim"
display = "the mafia's kill"
actors = ["mafioso", "hitman"]
action = "kill"
group = true
rounds = 2
optional = true
target = {{ self = false, team = false }}

[[day]]
type = "announce"

[[day]]
type = "vote"
procedure = "plurality"
params = {{ abstain = false, tie = "random" }}
"""


def hitmen(folder: Path, *, hitman_known: bool) -> Variant:
    path = folder / "hitmen.toml"
    path.write_text(variant_text(hitman_known))
    return load_variant(str(path))


def naming(request: Request, seat: int) -> Choice:
    """The request's choice that names `seat`."""
    return next(c for c in request.choices if isinstance(c, Choice) and c.target == seat)


def second_round(
    variant: Variant, stolen: int, pickers: frozenset[int] = frozenset({OBSERVER})
) -> tuple[list[str], str]:
    """Play night 1 with the thief robbing `stolen`, the `pickers` naming the victim
    and every other member asked passing, until the observer is asked the kill's second
    round: the observer's lines so far (as the terminal prints them) and the web
    table's prompt for that round, every decision marked a person's own."""
    game = Game(variant, len(DEAL), 1, deal=DEAL)
    while not any(isinstance(e.fact, GroupPicks) for e in game.events):
        for seat, request in sorted(game.pending().items()):
            if request.kind == "night:thief_steal":
                game.submit(seat, naming(request, stolen))
            elif request.kind == "night:mafia_kill" and seat in pickers:
                game.submit(seat, naming(request, VICTIM))
            else:
                game.submit(seat, PASS)
    asked = game.request(OBSERVER)
    assert asked is not None and asked.kind == "night:mafia_kill"
    knowledge = SeatTracker(OBSERVER).update(game)
    names = DisplayNames.of(variant)
    lines = [seat_line(e, knowledge, names, variant) or "" for e in knowledge.events]
    marks = ["player"] * len(game.decisions)

    def answered(picks: GroupPicks) -> dict[int, str] | None:
        return round_answers(game.events, marks, picks)

    return lines, people_prompt(asked, knowledge, variant, answered)


def test_a_blocked_teammate_and_an_asked_one_read_alike_beside_an_unknown_member(
    tmp_path: Path,
) -> None:
    """The teammate robbed (the unknown hitman asked, and passed) or the hitman robbed
    (the teammate asked, and passed): the observer's lines are the same, and the second
    round's words were not ("a teammate passed" only where the teammate was asked)."""
    variant = hitmen(tmp_path, hitman_known=False)
    robbed_teammate = second_round(variant, stolen=TEAMMATE)
    robbed_hitman = second_round(variant, stolen=HITMAN)
    assert robbed_teammate[0] == robbed_hitman[0]  # nothing the observer was shown differs
    assert robbed_teammate[1] == robbed_hitman[1]
    assert robbed_hitman[1].endswith("(round 2 of 2: a teammate passed or did not answer in time)")


def test_where_the_seat_knows_every_member_the_one_without_a_pick_is_named(
    tmp_path: Path,
) -> None:
    """Where the mafiosi know the hitman and he picks as the observer does, the one
    known member with no pick was asked (only a member asked who did not pick asks for
    the round again): "a teammate passed"."""
    variant = hitmen(tmp_path, hitman_known=True)
    _, prompt = second_round(variant, stolen=5, pickers=frozenset({OBSERVER, HITMAN}))
    assert prompt.endswith("(round 2 of 2: a teammate passed)")
