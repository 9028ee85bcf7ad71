"""Reading the JSONL store, validation, canonical order and human/bot views."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mafia_arena.leaderboard.records import (
    filter_records,
    load_records,
    parse_game,
    prepare_games,
)

GameFactory = Callable[..., dict[str, Any]]
PAIR = [("h", "villager", "town"), ("b", "mafioso", "mafia")]


def test_load_records_reads_the_store_file_or_its_folder(tmp_path: Path, game: GameFactory) -> None:
    recs = [game(PAIR, "town", game_index=i) for i in range(3)]
    (tmp_path / "games.jsonl").write_text(
        "\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8"
    )
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "game-000000.jsonl").write_text('{"format": "a game log"}\n', encoding="utf-8")
    assert load_records(tmp_path / "games.jsonl") == recs
    assert load_records(tmp_path) == recs  # game logs under logs/ are not records


def test_load_records_rejects_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"seats": []}\n{not json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 2"):
        load_records(path)


def test_parse_validates_and_ignores_extra_keys(game: GameFactory) -> None:
    rec = game(PAIR, "mafia")
    parsed = parse_game(rec)
    assert parsed.setup == "standard/2"
    assert [s.agent for s in parsed.winners] == ["b"]
    assert parsed.decisive and not parsed.is_draw
    with pytest.raises(ValueError, match="seats"):
        parse_game({"winner": "town"})
    bad = game(PAIR, "town")
    del bad["seats"][0]["won"]
    with pytest.raises(ValueError, match="won"):
        parse_game(bad)


def test_draw_detection(game: GameFactory) -> None:
    assert parse_game(game(PAIR, None)).is_draw
    # Winner named but no seat flagged as won: treated as a draw (no contrast).
    rec = game(PAIR, "town")
    for seat in rec["seats"]:
        seat["won"] = False
    assert not parse_game(rec).decisive


def test_canonical_order(game: GameFactory) -> None:
    recs = [
        game(PAIR, "town", spec_hash="b", game_index=0),
        game(PAIR, "town", spec_hash="a", game_index=10, seed=1),
        game(PAIR, "town", spec_hash="a", game_index=2, seed=5),
    ]
    keys = [(g.spec_hash, g.game_index) for g in prepare_games(recs)]
    assert keys == [("a", 2), ("a", 10), ("b", 0)]


def test_views(game: GameFactory) -> None:
    humans = game(PAIR, "town", kinds={"h": "human", "b": "human"}, game_index=0)
    bots = game(PAIR, "town", kinds={"h": "llm", "b": "scripted"}, game_index=1)
    mixed = game(PAIR, "town", kinds={"h": "human", "b": "rl"}, game_index=2)
    recs = [humans, bots, mixed]
    assert filter_records(recs, "all") == recs
    assert filter_records(recs, "human") == [humans]
    assert filter_records(recs, "bot") == [bots]
    assert filter_records(recs, "mixed") == [mixed]
    with pytest.raises(ValueError):
        filter_records(recs, "robots")  # type: ignore[arg-type]


def test_losing_teams_group_by_faction_and_split_solos(game: GameFactory) -> None:
    seats = [
        ("a", "villager", "town"),
        ("b", "villager", "town"),
        ("c", "mafioso", "mafia"),
        ("d", "jester", "solo"),
        ("e", "serial_killer", "solo"),
    ]
    rec = game(seats, "town")
    rec["seats"][3]["faction"] = "jester"
    rec["seats"][4]["faction"] = "killer"
    parsed = parse_game(rec)
    assert [s.agent for s in parsed.winners] == ["a", "b"]
    assert [[s.agent for s in team] for team in parsed.losing_teams] == [["c"], ["d"], ["e"]]


def _web_seat(rec: dict[str, Any], seat: int, name: str, stand_in_decisions: int) -> None:
    """Mark `seat` the way the web app writes a person's seat (`web.storage`)."""
    entry = rec["seats"][seat]
    entry.update(
        agent=f"human:{name}",
        agent_kind="human",
        replaced=True,
        stand_in="heuristic" if stand_in_decisions else None,
        stand_in_decisions=stand_in_decisions,
    )


def test_a_seat_a_stand_in_played_is_credited_to_the_stand_in_not_the_person(
    tmp_path: Path, game: GameFactory
) -> None:
    from mafia_arena.leaderboard.table import leaderboard_table

    people = {"b": "human"}
    won_by_stand_in = game(PAIR, "town", game_index=0, kinds=people)
    _web_seat(won_by_stand_in, 0, "Ann", stand_in_decisions=4)
    back_in_time = game(PAIR, "town", game_index=1, kinds=people)  # replaced, took it back unplayed
    _web_seat(back_in_time, 0, "Ann", stand_in_decisions=0)
    store = tmp_path / "games.jsonl"
    store.write_text(
        "".join(json.dumps(r) + "\n" for r in (won_by_stand_in, back_in_time)), encoding="utf-8"
    )
    games = prepare_games(load_records(tmp_path))
    first = games[0].seats[0]
    assert (first.agent, first.kind, first.won, first.decisions) == (
        "stand-in:heuristic",
        "stand-in",
        True,
        4,
    )
    assert games[1].seats[0].agent == "human:Ann"
    rows = leaderboard_table(load_records(tmp_path), n_boot=0).set_index("agent")
    assert rows.loc["human:Ann", "seats"] == 1 and rows.loc["human:Ann", "wins"] == 1
    assert rows.loc["stand-in:heuristic", "seats"] == 1
    # a game a stand-in played in is no longer a people-only game
    assert filter_records(games, "human") == [games[1]]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["seats"][0].update(won="false"), "seat #0: won: 'false' is not true or false"),
        (lambda r: r["seats"][1].update(won=1), "seat #1: won: 1 is not true or false"),
        (lambda r: r["seats"][0].update(survived="no"), "seat #0: survived: 'no' is not true"),
        (lambda r: r.update(void="false"), "void: 'false' is not true or false"),
        (lambda r: r.update(game_index="three"), "game_index: 'three' is not a whole number"),
        (lambda r: r.update(game_index=2.5), "game_index: 2.5 is not a whole number"),
        (lambda r: r.update(game_index=True), "game_index: True is not a whole number"),
        (lambda r: r.update(game_index=-1), "game_index: -1 is negative"),
        (lambda r: r.update(game_index=10**8), "game_index: 100000000 is not below 10000000"),
    ],
)
def test_parse_refuses_values_it_would_misread_naming_the_key(
    game: GameFactory, edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    """``bool("false")`` is True and ``int(2.5)`` is 2: read as they are, these records
    would count a loss as a win, void a played game or take another game's place."""
    rec = game(PAIR, "mafia")
    edit(rec)
    with pytest.raises(ValueError) as caught:
        parse_game(rec)
    assert str(caught.value).startswith(message), str(caught.value)


def test_parse_keeps_booleans_and_absent_values(game: GameFactory) -> None:
    rec = game(PAIR, "mafia", game_index=7)
    rec["void"] = False
    rec["seats"][0]["survived"] = None
    parsed = parse_game(rec)
    assert parsed.game_index == 7 and not parsed.void
    assert [s.won for s in parsed.seats] == [False, True]
    assert parsed.seats[0].survived is None and parsed.seats[1].survived is True
    del rec["game_index"], rec["void"]
    parsed = parse_game(rec)
    assert parsed.game_index is None and not parsed.void
