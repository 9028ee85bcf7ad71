"""No player is given the game seed: seat seeds come from a key only the host holds.

The deal reader (tests/deal_reader.py) really reads the deal when handed the game seed
or a keyless hash of it; with the runner's seat seeds it finds nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.deal_reader import DealReader, deal, plain_seat_seed, read_deal

from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match, play_match_sync
from mafia_arena.seat_seeds import KEY_FILE, load_or_create_host_key, seat_seed, seat_seeds

KEY = bytes(range(32))
STANDARD = load_variant("standard")


@pytest.mark.parametrize("given", ["game seed", "plain hash"])
def test_the_deal_reader_reads_the_deal_from_a_keyless_seed(given: str) -> None:
    """The attack is real: the old ways of seeding players give the deal away."""
    game_seed, seat = 4321, 3
    cards = deal(STANDARD, 7, game_seed)
    number = game_seed if given == "game seed" else plain_seat_seed(game_seed, seat)
    found = read_deal(STANDARD, 7, seat, {number}, cards[seat], {})
    assert found == cards


def test_the_deal_reader_finds_nothing_from_a_keyed_seed() -> None:
    game_seed, seat = 4321, 3
    cards = deal(STANDARD, 7, game_seed)
    given = {seat_seed(KEY, game_seed, seat)}
    assert read_deal(STANDARD, 7, seat, given, cards[seat], {}) is None


@pytest.mark.parametrize(("variant", "players", "seed"), [("standard", 7, 12), ("simple", 5, 99)])
def test_play_match_gives_no_seat_the_deal(variant: str, players: int, seed: int) -> None:
    rules = load_variant(variant)
    DealReader.reports.clear()
    agents = [DealReader(), *(RandomAgent() for _ in range(players - 2)), DealReader()]
    result = asyncio.run(play_match(rules, agents, seed, host_key=KEY))
    assert result.winner is not None or result.log.events
    assert len(DealReader.reports) >= 1  # a reader killed before deciding never attacks
    for report in DealReader.reports:
        assert report["found"] is None
        assert seed not in report["given"]


def test_seat_seeds_follow_the_key() -> None:
    """Same key, same seat seeds (reproducible); another key, others; never the seed."""
    seeds = seat_seeds(KEY, 7, 7)
    assert seeds == seat_seeds(KEY, 7, 7) and len(set(seeds)) == 7
    assert seeds != seat_seeds(bytes(32), 7, 7) and 7 not in seeds
    played = [DealReader() for _ in range(5)]
    play_match_sync(load_variant("simple"), played, 7, host_key=KEY)
    assert [sorted(a.given) for a in played] == [[s] for s in seat_seeds(KEY, 7, 5)]


def test_the_host_key_is_kept_in_the_folder(tmp_path: Path) -> None:
    key = load_or_create_host_key(tmp_path / "results")
    assert load_or_create_host_key(tmp_path / "results") == key and len(key) == 32
    path = tmp_path / "results" / KEY_FILE
    assert path.stat().st_mode & 0o077 == 0  # readable by its owner only
    path.write_text("not hex\n")
    with pytest.raises(ValueError, match="not a host key"):
        load_or_create_host_key(tmp_path / "results")
