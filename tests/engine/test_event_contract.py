"""The engine's event contract: a typed catalogue, per-seat streams, frozen views."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path

import pytest

from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import (
    HOST_KINDS,
    KINDS,
    NightAction,
    NightResult,
    RoleChange,
    UsageRecord,
)
from mafia_arena.engine.events import Event, SeatEvent, private
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.runner import GameLog
from mafia_arena.views.view import SeatTracker

SRC = Path(__file__).resolve().parents[2] / "src" / "mafia_arena"
STORED_FORM = ("engine/catalogue.py", "engine/events.py")


def _played(name: str, players: int, seed: int) -> Game:
    game = Game(load_variant(name), players, seed)
    rng = random.Random(seed)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
    return game


def test_no_consumer_reads_a_payload_by_key():
    pattern = re.compile(r"payload\s*\[|payload\.get|to_payload\(|fact_from_payload")
    offenders = [
        f"{path.relative_to(SRC)}:{number}"
        for path in SRC.rglob("*.py")
        if path.relative_to(SRC).as_posix() not in STORED_FORM
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_every_catalogued_kind_is_emitted_by_the_engine():
    engine = "\n".join(p.read_text() for p in (SRC / "engine").rglob("*.py"))
    for kind, cls in KINDS.items():
        assert re.search(rf"\b{cls.__name__}\(", engine.replace(f"class {cls.__name__}(", "")), kind


@pytest.mark.parametrize("name", available_variants())
def test_seat_streams_are_numbered_per_seat_and_carry_no_host_facts(name):
    variant = load_variant(name)
    players = max(variant.min_players, 8)
    game = _played(name, players, 3)
    for seat in range(players):
        view = SeatTracker(seat).view(game)
        entries = list(view.knowledge.events)
        numbered = [e for e in game.events if e.visibility.admits(seat)]
        assert entries == [e.seen for e in numbered]  # numbered by position, per seat
        assert all(type(e) is SeatEvent for e in entries)
        assert not {e.kind for e in entries} & HOST_KINDS
        assert not any(
            isinstance(getattr(e, f.name), Event) for e in entries for f in dataclasses.fields(e)
        )
        assert "seq=" not in repr(view)


def test_a_view_is_a_frozen_snapshot_that_later_events_do_not_change():
    game = Game(load_variant("standard"), 7, 1)
    tracker = SeatTracker(0)
    view = tracker.view(game)
    length, alive = len(view.knowledge.events), view.knowledge.alive
    rng = random.Random(1)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            game.submit(seat, rng.choice(request.choices))
        tracker.view(game)
    assert len(view.knowledge.events) == length and view.knowledge.alive == alive
    assert view.rules is game.variant
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.request = None  # type: ignore[misc]
    with pytest.raises(TypeError):
        view.knowledge.revealed[0] = "x"  # type: ignore[index]


def test_a_version_1_log_still_loads(tmp_path):
    game = _played("club", 16, 1)
    log = GameLog.from_game(game)
    lines = log.to_jsonl().splitlines()
    header = json.loads(lines[0])
    header["format"] = "mafia-arena-log/1"
    old = [json.dumps(header)]
    for line in lines[1:]:
        data = json.loads(line)
        payload = data["payload"]
        if data["kind"] == "night_result":  # version 1: one `target`, a watch's list
            if payload["action"] != "compare":
                payload["target"] = payload.pop("targets")[0]
            if "attackers" in payload:
                payload["result"] = payload.pop("attackers")
        elif data["kind"] == "night_action":
            team = payload.pop("team")
            seats = payload.pop("seats")
            if team:
                payload["seats"] = seats
            else:
                payload["seat"] = seats[0]
        old.append(json.dumps(data))
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(old) + "\n")
    loaded = GameLog.load(path)
    assert loaded.events == game.events
    results = [e.fact for e in loaded.events if isinstance(e.fact, NightResult)]
    assert {"check", "compare"} <= {f.action for f in results}
    assert any(isinstance(e.fact, NightAction) and e.fact.team for e in loaded.events)


def test_inherited_usage_records_are_stored_and_old_role_changes_still_load():
    records = (UsageRecord("doctor_heal", 2, 4, 3, {4: 1, 1: 1}), UsageRecord("check", 0))
    event = Event(7, 3, "day", RoleChange(2, "doctor", "town", records), private(2))
    stored = json.loads(json.dumps(event.to_json()))
    assert stored["payload"]["inherited"] == [
        {"step": "doctor_heal", "uses": 2, "last": 4, "last_night": 3, "counts": {"1": 1, "4": 1}},
        {"step": "check", "uses": 0, "counts": {}},
    ]
    assert Event.from_json(stored) == event
    del stored["payload"]["inherited"]  # a log written before the field existed
    assert Event.from_json(stored).fact == RoleChange(2, "doctor", "town")
    loaded = Event.from_json(stored).fact
    assert isinstance(loaded, RoleChange)
    assert loaded.inherited is None


def test_item6_a_log_names_the_code_that_played_it_and_older_logs_still_replay(tmp_path):
    from mafia_arena.code_identity import code_identity
    from mafia_arena.runner import replay

    game = _played("classic", 10, 2)
    log = GameLog.from_game(game, meta={"void": False})
    header = json.loads(log.to_jsonl().splitlines()[0])
    assert header["meta"]["code"] == code_identity() and header["meta"]["void"] is False
    assert set(code_identity()) == {"version", "commit", "digest"}

    del header["meta"]["code"]  # a log written before the field existed
    older = "\n".join([json.dumps(header), *log.to_jsonl().splitlines()[1:]]) + "\n"
    path = tmp_path / "older.jsonl"
    path.write_text(older)
    loaded = GameLog.load(path)
    assert "code" not in loaded.meta and loaded.events == game.events
    assert replay(loaded).events == game.events
    assert loaded.to_jsonl() == older  # saving again does not claim the present code

    stamped = GameLog.from_game(game, meta={"code": {"version": "0.0.1"}})
    assert stamped.meta["code"] == {"version": "0.0.1"}  # the caller's identity wins


def test_a_log_names_the_variant_file_content_and_older_logs_still_replay(tmp_path):
    import hashlib

    from mafia_arena.rules.loader import envs_dir
    from mafia_arena.runner import replay
    from mafia_arena.runner.log_file import LogFileError

    game = _played("classic", 10, 2)
    log = GameLog.from_game(game)
    header = json.loads(log.to_jsonl().splitlines()[0])
    played = hashlib.sha256((envs_dir() / "classic.toml").read_bytes()).hexdigest()[:16]
    assert header["meta"]["variant_digest"] == played

    del header["meta"]["variant_digest"]  # a log written before the field existed
    older = "\n".join([json.dumps(header), *log.to_jsonl().splitlines()[1:]]) + "\n"
    path = tmp_path / "older.jsonl"
    path.write_text(older)
    loaded = GameLog.load(path)
    assert "variant_digest" not in loaded.meta and loaded.events == game.events
    assert replay(loaded).events == game.events
    assert loaded.to_jsonl() == older  # saving again does not claim the present file

    header["meta"]["variant_digest"] = 7  # hand-edited: refused like any other bad type
    path.write_text("\n".join([json.dumps(header), *log.to_jsonl().splitlines()[1:]]) + "\n")
    with pytest.raises(LogFileError, match=r"meta\.variant_digest"):
        GameLog.load(path)
