"""The forum channel metrics on a scripted dictator game (docs/metrics.md)."""

from __future__ import annotations

from tests.dictator.table import C1, C2, C3, C4, C5, B, R, Table, c, w
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.metrics import compute_metrics
from mafia_arena.runner import GameLog


def test_channel_metrics_count_sides_partners_guesses_and_testaments() -> None:
    t = Table().to("day", 1)
    t.act(C2, w("hello", "pm", C3), w("my ad", "ad", None, "Phantom"))
    t.act(B, w("tonight P13", "pm", R), w("us", "pm", None, f"{R}.{C3}"))
    t.act(C5, w("I trust P1? No: P1 is the boss.", "testament", None, "public"))
    t.act(C1, c("execute", C5)).phase()
    t.act(C4, w("Phantom is surely P12.", "post"))
    t.phase().act(C1, c("execute", B)).phase()
    metrics = compute_metrics(GameLog.from_game(t.game), t.game.variant)
    game, seats = metrics["game"], metrics["per_seat"]
    assert game["pm.town_to_town"] == 1 + 0 and game["pm.mafia_to_mafia"] == 2
    assert game["pm.mafia_to_town"] == 1 and game["pm.total"] == 3
    assert game["pm.group_share"] == 1 / 3
    # C2 and C3 talk to town; C3 also heard from B: his partners are half mafia
    assert game["town_partner_mafia"] == (0 + 0.5) / 2
    assert game["ads.total"] == 1 and game["ads.town"] == 1
    assert (game["ad_guess.correct"], game["ad_guess.wrong"], game["ad_guess.rate"]) == (1, 0, 1.0)
    assert game["testament.public"] == 1 and game["testament.named_mafia"] == 1.0
    assert game["testament.named_executed"] == 1.0
    assert seats[str(C2)]["pm_sent"] == 1 and seats[str(C2)]["ads_placed"] == 1
    assert seats[str(R)]["pm_received"] == 2


def test_channel_metrics_are_absent_where_there_are_no_channels() -> None:
    from mafia_arena.agents import make_agent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner import play_match_sync

    result = play_match_sync(
        load_variant("simple"), [make_agent("random") for _ in range(5)], 1, host_key=FIXED_HOST_KEY
    )
    assert "pm.total" not in compute_metrics(result.log)["game"]
