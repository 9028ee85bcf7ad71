"""No player is given the game seed: seat seeds come from a key only the host holds.

The deal reader (tests/deal_reader.py) really reads the deal when handed the game seed
or a keyless hash of it, whether `reset` hands it over or it shows in what the seat
sees (an event's field, a speech, the request); with the runner's seat seeds nothing a
seat sees rebuilds the game.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.agents.support import synthetic_view
from tests.deal_reader import (
    DealReader,
    deal,
    keyless_names,
    plain_seat_seed,
    read_deal,
    reproduces,
)
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.agents.random_agent import RandomAgent
from mafia_arena.engine import Game
from mafia_arena.engine.choices import PASS, Request
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match, play_match_sync
from mafia_arena.seat_seeds import KEY_FILE, load_or_create_host_key, seat_seed, seat_seeds
from mafia_arena.views.shown_names import Presentation
from mafia_arena.views.view import SeatTracker

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
    given = {seat_seed(FIXED_HOST_KEY, game_seed, seat)}
    assert read_deal(STANDARD, 7, seat, given, cards[seat], {}) is None


def test_the_deal_reader_reads_the_deal_when_a_keyless_host_hands_it_the_game_seed() -> None:
    """The agent's whole attack works: seated with the game seed itself, every reader
    rebuilds the game from it (the same loop as the runner's, without the key)."""
    seed = 54_321
    rules = load_variant("standard")
    game = Game(rules, 7, seed)
    readers = [DealReader() for _ in range(7)]
    DealReader.reports.clear()
    for seat, reader in enumerate(readers):
        reader.reset(seat, seed)
        reader.set_variant(rules)
    trackers = [SeatTracker(s) for s in range(7)]
    while not game.over:
        for seat in sorted(game.pending()):
            game.submit(seat, readers[seat].decide(trackers[seat].view(game)))
    assert len(DealReader.reports) == 7  # every seat decides on the first night or day
    for report in DealReader.reports:
        assert reproduces(report, seed)
        assert report["matches"][str(seed)] == deal(rules, 7, seed)


PLANTED = 54_321


@pytest.mark.parametrize("where", ["event field", "speech", "request info", "prompt"])
def test_the_deal_reader_mines_the_numbers_it_sees(where: str) -> None:
    """A game seed shown anywhere in a view is found: in any field of an event, in the
    digits of a speech, in the request's `info` or its words."""
    rules = load_variant("standard")
    cards = deal(rules, 7, PLANTED)
    seat = 2
    role = cards[seat]
    faction = "mafia" if role == "mafioso" else "town"
    events: list[tuple[str, dict, frozenset[int] | None]] = []
    prompt = "Your vote."
    info: dict[str, object] = {}
    if where == "event field":
        events.append(("floor", {"seat": 1, "bid": PLANTED, "tied": [1]}, None))
    elif where == "speech":
        events.append(("speech", {"seat": 4, "text": f"I counted {PLANTED}.", "kind": "x"}, None))
    elif where == "request info":
        info = {"table": PLANTED}
    else:
        prompt = f"Your vote (table {PLANTED})."
    request = Request(seat, "vote", prompt, (PASS,), ("pass",), info=info)
    composition = {r: cards.count(r) for r in sorted(set(cards))}
    view = synthetic_view("standard", composition, seat, role, faction, request, events)
    reader = DealReader()
    reader.reset(seat, seat_seed(FIXED_HOST_KEY, PLANTED, seat))
    reader.set_variant(rules)
    DealReader.reports.clear()
    reader.decide(view)
    assert PLANTED in reader.seen
    assert reproduces(DealReader.reports[0], PLANTED)
    assert DealReader.reports[0]["matches"][str(PLANTED)] == cards


@pytest.mark.parametrize(
    ("variant", "players", "seed"), [("standard", 7, 54_321), ("simple", 5, 98_765)]
)
def test_play_match_gives_no_seat_the_deal(variant: str, players: int, seed: int) -> None:
    """Seeds in the candidate range, beyond any count a game shows: were anything a seat
    sees to betray them, the reader would rebuild the game."""
    rules = load_variant(variant)
    DealReader.reports.clear()
    agents = [DealReader(), *(RandomAgent() for _ in range(players - 2)), DealReader()]
    result = asyncio.run(play_match(rules, agents, seed, host_key=FIXED_HOST_KEY))
    assert result.winner is not None or result.log.events
    assert len(DealReader.reports) >= 1  # a reader killed before deciding never attacks
    for report in DealReader.reports:
        assert report["seen"]  # it did mine its view
        assert not reproduces(report, seed)
        assert seed not in report["given"] and seed not in report["seen"]


def test_the_deal_reader_reads_the_deal_from_names_shuffled_without_a_key() -> None:
    """The attack is real: names drawn from the game seed alone narrow 100,001 candidate
    seeds to a handful (7! shuffles), the game's among them; the seat's own card narrows
    them further (and a tournament's few thousand game seeds to one)."""
    seed, seat = 54_321, 3
    cards = deal(STANDARD, 7, seed)
    reader = DealReader()
    reader.reset(seat, seat_seed(FIXED_HOST_KEY, seed, seat))
    reader.set_presentation(Presentation(names=keyless_names(seed, 7)))
    assert seed in reader.named and len(reader.named) < 100
    agreeing = [s for s in reader.named if deal(STANDARD, 7, s)[seat] == cards[seat]]
    assert seed in agreeing


def test_play_match_with_shuffled_names_gives_no_seat_the_deal() -> None:
    """The names every agent is handed are drawn with the host's key: trying every
    candidate seed's keyless shuffle finds no game."""
    seed = 54_321
    DealReader.reports.clear()
    agents = [DealReader(), *(RandomAgent() for _ in range(5)), DealReader()]
    result = asyncio.run(
        play_match(STANDARD, agents, seed, host_key=FIXED_HOST_KEY, shuffle_names=True)
    )
    assert result.log.meta["presentation"]["shuffle_names"] is True
    readers = [a for a in agents if isinstance(a, DealReader)]
    assert all(r.names is not None for r in readers)  # they were handed the names
    assert len(DealReader.reports) >= 1
    for report in DealReader.reports:
        assert not reproduces(report, seed)
    assert all(seed not in r.named for r in readers)


def test_seat_seeds_follow_the_key() -> None:
    """Same key, same seat seeds (reproducible); another key, others; never the seed."""
    seeds = seat_seeds(FIXED_HOST_KEY, 7, 7)
    assert seeds == seat_seeds(FIXED_HOST_KEY, 7, 7) and len(set(seeds)) == 7
    assert seeds != seat_seeds(bytes(32), 7, 7) and 7 not in seeds
    played = [DealReader() for _ in range(5)]
    play_match_sync(load_variant("simple"), played, 7, host_key=FIXED_HOST_KEY)
    assert [sorted(a.given) for a in played] == [[s] for s in seat_seeds(FIXED_HOST_KEY, 7, 5)]


def test_the_host_key_is_kept_in_the_folder(tmp_path: Path) -> None:
    key = load_or_create_host_key(tmp_path / "results")
    assert load_or_create_host_key(tmp_path / "results") == key and len(key) == 32
    path = tmp_path / "results" / KEY_FILE
    assert path.stat().st_mode & 0o077 == 0  # readable by its owner only
    path.write_text("not hex\n")
    with pytest.raises(ValueError, match="not a host key"):
        load_or_create_host_key(tmp_path / "results")
