"""The text view names roles and intrigue cards as the variant does (`RoleSpec.display`,
Palermo's card titles), keeps the id beside the name where the seat is told its own role
or card, names nothing the seat may not know, and leaves the numbers alone.

Every reader of a seat's transcript gets the names: the seat tracker (LLM prompts, the
runner), the AEC and vector envs' ``text``, the command line's transcripts.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from tests.palermo.table import P, Table
from typer.testing import CliRunner

from mafia_arena import env as mafia_env
from mafia_arena.cli import app
from mafia_arena.engine.catalogue import CardsShown, RoleDealt
from mafia_arena.engine.events import Event
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.rules import load_variant
from mafia_arena.views import view_of
from mafia_arena.views.display_names import PLAIN, DisplayNames
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.knowledge import KnowledgeFold
from mafia_arena.views.text import render_event
from mafia_arena.views.view import View

HANDS = {15: "vote_exemption", 14: "resurrection", 16: "grave_robbing"}


def test_the_names_come_from_the_variant_and_only_where_it_gives_one() -> None:
    palermo = DisplayNames.of(load_variant("palermo"))
    assert palermo.role("known_a") == "Known Mafioso A" and palermo.card("echo") == (
        "Echo from Beyond"
    )
    assert palermo.role_and_id("citizen") == "Simple Citizen (citizen)"
    assert palermo.card_and_id("pythia") == "Pythia's Oracle (pythia)"
    assert palermo.role("nobody_knows") == "nobody_knows"  # an unknown id stays as it is
    standard = DisplayNames.of(load_variant("standard"))
    assert not standard.roles and not standard.cards  # no names: ids as before
    assert standard.role_and_id("detective") == "detective"


def test_a_palermo_seat_reads_its_role_card_and_allies_by_name() -> None:
    t = Table(hands=HANDS, keep={14, 15, 16})
    t.until(2, "morning")
    citizen = view_of(t.game, P(15)).knowledge.lines()
    assert "You are P15; your role is Simple Citizen (citizen; town)." in citizen
    assert "Your intrigue card: Vote Exemption (vote_exemption)." in citizen
    assert citizen[0].startswith("Game of palermo with 16 players: 1 Known Mafioso A, ")
    text = "\n".join(citizen)
    assert "Resurrection" not in text and "Grave Robbing" not in text  # others' cards
    assert "resurrection" not in text and "grave_robbing" not in text
    mafioso = view_of(t.game, P(1)).knowledge.lines()
    assert "You are P1; your role is Known Mafioso A (known_a; mafia)." in mafioso
    allies = next(line for line in mafioso if line.startswith("You know: "))
    assert allies == "You know: P2 (Known Mafioso B), P3 (Hidden Mafioso), P4 (Archmafioso)."


def test_names_render_only_the_ids_an_event_holds() -> None:
    """The same event with and without the names: only its own ids become names (the
    names are rules data, so a line can tell no more than its event)."""
    names = DisplayNames.of(load_variant("palermo"))
    dealt = Event(0, 0, "setup", RoleDealt(3, "rival", "town"))
    assert render_event(dealt, 3, PLAIN) == "You are P4; your role is rival (town)."
    assert render_event(dealt, 3, names) == "You are P4; your role is Rival Mafioso (rival; town)."
    shown = Event(1, 6, "runoff", CardsShown({15: "failed_assassination"}))
    assert render_event(shown, None, names) == "[D6] Cards still held: P16 Failed Assassination."


@pytest.mark.parametrize("seed", [3, 4])
def test_the_env_text_view_names_the_seats_role(seed: int) -> None:
    """The AEC env's ``info["text"]`` and the vector env's ``infos["text"]`` are the
    seat's transcript with the names, from the first observation on."""
    env = mafia_env.raw_env("palermo", 12)
    env.reset(seed=seed)
    game = env.session.game
    assert game is not None
    names = DisplayNames.of(game.variant)
    seat = int(env.agent_selection.split("_")[1])
    role = game.state.seats[seat].card
    _, _, _, _, info = env.last()
    own = f"your role is {names.role(role)} ({role}; "
    assert names.role(role) != role and own in info["text"]

    vector = MafiaVectorEnv("palermo", 12, num_envs=1, text=True)
    _, infos = vector.reset(seed=seed)
    row = vector.games[0]
    held = row.state.seats[int(infos["seat"][0])].card
    assert f"your role is {names.role(held)} ({held}; " in infos["text"][0]


def test_the_numeric_observation_does_not_change_with_the_names() -> None:
    """The encoder reads the fold's facts, never its text: a seat folded with the names
    and the same seat folded without them encode to the same vector."""
    t = Table(hands=HANDS, keep={14, 15, 16})
    t.until(2, "morning")
    variant = t.game.variant
    named = view_of(t.game, P(15))
    fold = KnowledgeFold(P(15), tuple(variant.roles), None, PLAIN)
    fold.extend(t.game.stream(P(15)).pull())
    plain = View(P(15), variant, fold.snapshot(), named.request)
    assert "Vote Exemption (vote_exemption)" in named.knowledge.text()
    assert "vote_exemption." in plain.knowledge.text()  # the plain fold writes ids
    vectors = [ObservationEncoder(variant, 16).encode(v) for v in (named, plain)]
    digests = {hashlib.sha256(v.tobytes()).hexdigest() for v in vectors}
    assert len(digests) == 1 and np.count_nonzero(vectors[0]) > 0


def test_the_command_line_transcript_names_roles_and_cards() -> None:
    result = CliRunner().invoke(
        app, ["play", "--variant", "palermo", "--players", "12", "--seed", "1", "--seat", "2"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()  # the seat's private lines tagged, as the terminal's
    own = "[private] You are P2; your role is "
    assert any(line.startswith(own) and "; " in line for line in lines)
    card = next(line for line in lines if line.startswith("[private] Your intrigue card: "))
    assert card.endswith(")."), card  # "Echo from Beyond (echo)."
    assert "Game of palermo with 12 players: 1 Known Mafioso A" in result.output
