"""Every player kind plays Palermo: scripted games end and replay, the env encodes
states and cards, the rules text and the web page show them."""

from __future__ import annotations

import pytest
from tests.palermo.table import P, Table

from mafia_arena.agents import make_agent
from mafia_arena.engine.player_states import PlayerState
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match_sync
from mafia_arena.runner.log import replay
from mafia_arena.views import view_of
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.encode import ObservationEncoder
from mafia_arena.views.rules_text import rules_text
from mafia_arena.web.render import SeatInfo, snapshot

VARIANT = load_variant("palermo")
NAMES = DisplayNames.of(VARIANT)


@pytest.mark.parametrize("players", [12, 16, 20, 24])
def test_scripted_games_end_and_replay_identically(players: int) -> None:
    agents = [make_agent("heuristic" if s % 3 else "random") for s in range(players)]
    result = play_match_sync(VARIANT, agents, seed=players, host_key=b"k" * 32)
    assert result.winner in ("town", "mafia", "rival", None)
    again = replay(result.log)
    assert [e.fact for e in again.events] == [e.fact for e in result.log.events]


def test_the_heuristic_uses_every_card_and_ability() -> None:
    from benchmarks.palermo_stats import play_one

    used: set[str] = set()
    for seed in range(24):
        used |= set(play_one((12, 16, 20, 24)[seed % 4], seed)[1])
    cards = {f"card_{c}" for c in VARIANT.palermo.cards}  # type: ignore[union-attr]
    abilities = {
        "assassination", "detective_investigation", "medium_investigation",
        "prostitute_block", "lawyer_defence", "corrupt_cop_transfer", "mayor_tiebreak",
        "snitch_simple", "snitch_massacre", "snitch_vendetta", "rival_takes_killer",
        "rival_assassination", "rival_activation",
    }  # fmt: skip
    assert cards | abilities <= used, sorted(cards | abilities - used)


def test_the_observation_encodes_states_and_the_own_card() -> None:
    t = Table(hands={15: "resurrection"}, keep={14, 15})
    t.until(3, "morning")
    encoder = ObservationEncoder(VARIANT, 16)
    blocks = encoder.layout.decode(encoder.encode(view_of(t.game, P(15))))
    ghosts = set(t.ps.states.in_state(PlayerState.GHOST))
    assert {s for s in range(16) if blocks["states"][s, 1] == 1.0} == ghosts
    assert blocks["card"][encoder.layout.card_index["resurrection"]] == 1.0
    ghost = sorted(ghosts)[0]
    t.step({15: f"resurrection:{ghost}"})
    blocks = encoder.layout.decode(encoder.encode(view_of(t.game, P(15))))
    assert blocks["states"][ghost, 0] == 1.0 and not blocks["card"].any()
    other = encoder.layout.decode(encoder.encode(view_of(t.game, P(3))))
    assert not other["card"].any()  # nobody sees another seat's card


def test_the_rules_text_explains_states_cards_and_windows() -> None:
    text = rules_text(VARIANT, 16)
    assert "Player states:" in text and "Ghost while Echo from Beyond is in effect" in text
    assert "Echo from Beyond (echo; one per 8 players; playable in: afternoon)" in text
    assert "The vendetta snitch is accepted on nights 1 to 3." in text


def test_the_web_snapshot_shows_the_seats_card_and_state() -> None:
    t = Table(hands={15: "resurrection"}, keep={14, 15})
    t.until(3, "morning")
    roster = [SeatInfo(s, f"p{s}", "bot", "heuristic") for s in range(16)]
    page = snapshot(view_of(t.game, P(15)), VARIANT, roster, None, NAMES)
    assert page["you"]["state"] == "active"
    assert page["you"]["intrigue_card"]["title"] == "Resurrection"
    ghosts = [p["seat"] for p in page["players"] if p["state"] == "ghost"]
    assert ghosts == t.ps.states.in_state(PlayerState.GHOST) and ghosts
    other = snapshot(view_of(t.game, P(3)), VARIANT, roster, None, NAMES)
    assert (
        other["you"]["intrigue_card"] is None
        or other["you"]["intrigue_card"]["name"] != "resurrection"
    )


def test_the_statistics_do_not_depend_on_the_worker_count() -> None:
    from benchmarks.palermo_stats import markdown, run

    alone = run(6, (12,), 1, 3)
    shared = run(6, (12,), 2, 3)
    assert alone[12].games == 6 and sum(alone[12].wins.values()) == 6
    assert markdown(shared) == markdown(alone)
