"""The strength benchmark's own logic: the tally it keeps, its clustered intervals,
its verdicts and the rows it prints, on a few real games and on constructed tallies."""

from __future__ import annotations

import pytest
from benchmarks.heuristic_strength import (
    BASELINE,
    CONFIGS,
    Tally,
    mixed_seating,
    play,
    report,
    verdict,
)

GAMES = 20
PLAYERS = 7


def test_the_default_configurations_include_every_published_variant() -> None:
    configs = set(CONFIGS.split(","))
    assert {"dictator:12", "palermo:12", "club:10", "standard:7"} <= configs


def test_a_short_run_tallies_every_seat_once_per_group_and_reports_every_group(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tally = play("standard", PLAYERS, "heuristic", GAMES)
    assert tally.pairs == set(range(GAMES // 2))
    for agent in ("heuristic", BASELINE):
        sides = sum(n for (a, g), n in tally.seats.items() if a == agent and g.startswith("side:"))
        roles = sum(n for (a, g), n in tally.seats.items() if a == agent and g.startswith("role:"))
        assert sides == roles == tally.seats[(agent, "all")]
    assert tally.seats[("heuristic", "all")] + tally.seats[(BASELINE, "all")] == GAMES * PLAYERS
    for game in range(0, GAMES, 2):  # mirrored pairs: each agent holds every seat once
        _, first = mixed_seating(PLAYERS, game, "heuristic")
        _, second = mixed_seating(PLAYERS, game + 1, "heuristic")
        assert all(a != b for a, b in zip(first, second, strict=True))
    rows: list[dict] = []
    report("standard", PLAYERS, "heuristic", tally, rows)
    groups = {g for _, g in tally.seats}
    assert {(r["agent"], r["group"]) for r in rows} == {
        (a, g) for a in ("heuristic", BASELINE) for g in groups
    }
    for row in rows:
        assert 0.0 <= row["clustered_low"] <= row["win_rate"] <= row["clustered_high"] <= 1.0
        assert row["verdict"] in (
            ("better", "worse", "overlap") if row["agent"] != BASELINE else ("",)
        )
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("standard/7: heuristic vs random")
    assert len(printed) == 1 + len(groups)


def test_the_clustered_interval_is_wider_than_wilson_when_a_team_wins_as_one() -> None:
    tally = Tally()
    for pair in range(100):  # a team of five that wins or loses together, half the time
        for _ in range(5):
            tally.add("heuristic", "side:town", pair % 2 == 0, pair)
    rate, low, high, n = tally.rate("heuristic", "side:town")
    c_low, c_high = tally.clustered("heuristic", "side:town")
    assert rate == 0.5 and n == 500
    assert c_high - c_low > 1.8 * (high - low)
    assert tally.clustered("heuristic", "side:town") == (c_low, c_high)  # seeded


def test_the_verdict_follows_the_clustered_intervals() -> None:
    tally = Tally()
    for pair in range(200):
        for seat in range(4):  # the preset's team wins as one in 3 pairs of 4
            tally.add("heuristic", "side:town", pair % 4 != 0, pair)
            tally.add(BASELINE, "side:town", pair % 4 == 0 and seat == 0, pair)
            tally.add("heuristic", "side:mafia", pair % 2 == 0, pair)
            tally.add(BASELINE, "side:mafia", pair % 2 == 1, pair)
    town = tally.clustered("heuristic", "side:town"), tally.clustered(BASELINE, "side:town")
    mafia = tally.clustered("heuristic", "side:mafia"), tally.clustered(BASELINE, "side:mafia")
    assert verdict(*town) == "better" and verdict(town[1], town[0]) == "worse"
    assert verdict(*mafia) == "overlap"
    assert verdict((0.30, 0.40), (0.20, 0.29)) == "better"
    assert verdict((0.30, 0.40), (0.20, 0.31)) == "overlap"
    assert verdict((0.10, 0.19), (0.20, 0.31)) == "worse"


def test_wilson_alone_would_call_better_where_the_clustered_interval_overlaps() -> None:
    """Seats that win and lose as teams: the per-seat intervals look disjoint, the
    clustered ones do not, and the verdict is "overlap"."""
    tally = Tally()
    for pair in range(40):
        for _ in range(6):
            tally.add("heuristic", "side:town", pair % 5 < 3, pair)  # 0.6
            tally.add(BASELINE, "side:town", pair % 5 < 2, pair)  # 0.4
    mine, base = tally.rate("heuristic", "side:town"), tally.rate(BASELINE, "side:town")
    assert mine[1] > base[2]  # Wilson: disjoint
    mine_c, base_c = (
        tally.clustered("heuristic", "side:town"),
        tally.clustered(BASELINE, "side:town"),
    )
    assert verdict(mine_c, base_c) == "overlap"
