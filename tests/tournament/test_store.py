"""The results store: durable appends, truncated tails, duplicates, one writer."""

from __future__ import annotations

import errno
import json
import os
import signal
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from mafia_arena.experiments import ResultsConflict, read_records
from mafia_arena.experiments.records import log_path
from mafia_arena.experiments.store import ResultsStore
from mafia_arena.output_folders import partial_path


def game(index: int, spec_hash: str = "h") -> dict:
    record = {"spec_hash": spec_hash, "game_index": index, "log_path": log_path(index)}
    return {"record": record, "log": f'{{"game": {index}}}\n'}


def test_append_then_read_sorted_with_logs(tmp_path: Path) -> None:
    with ResultsStore(tmp_path) as store:
        store.append([game(2), game(0)])
        store.append([game(1)])
    records = read_records(tmp_path / "games.jsonl")
    assert [r["game_index"] for r in records] == [0, 1, 2]
    assert (tmp_path / "logs" / "game-000001.jsonl").read_text() == '{"game": 1}\n'
    assert not list((tmp_path / "logs").glob("*.tmp"))


def test_a_replayed_game_replaces_its_log_and_drops_a_stale_sidecar(tmp_path: Path) -> None:
    """A void game played again: its new log replaces the old one whole (a large log,
    written in more than one system call's worth), and the trace sidecar of the first
    play goes when the new play has no traces."""
    first = {**game(3), "traces": '{"seat": 0}\n'}
    again = {**game(3), "log": "".join(f'{{"line": {i}}}\n' for i in range(50_000))}
    logs = tmp_path / "logs"
    with ResultsStore(tmp_path) as store:
        store.append([first, game(4)])
        assert (logs / "game-000003.traces.jsonl").read_text() == '{"seat": 0}\n'
        store.append([again])
    assert (logs / "game-000003.jsonl").read_text() == again["log"]
    assert not (logs / "game-000003.traces.jsonl").exists()
    assert (logs / "game-000004.jsonl").read_text() == '{"game": 4}\n'
    assert not list(logs.glob("*.tmp"))


def test_truncated_last_line_is_ignored_then_cut_before_appending(tmp_path: Path) -> None:
    with ResultsStore(tmp_path) as store:
        store.append([game(0), game(1)])
    path = tmp_path / "games.jsonl"
    whole = json.dumps(game(2)["record"])
    with path.open("ab") as handle:
        handle.write(whole[:15].encode())  # a crash in the middle of a line
    assert [r["game_index"] for r in read_records(path)] == [0, 1]
    with path.open("ab") as handle:  # even a complete object without its newline
        handle.write(whole[15:].encode())
    assert [r["game_index"] for r in read_records(path)] == [0, 1]
    with ResultsStore(tmp_path) as store:
        store.append([game(2)])
    assert [r["game_index"] for r in read_records(path)] == [0, 1, 2]
    assert path.read_text().count("\n") == 3


def test_opening_a_large_store_reads_only_its_tail(tmp_path: Path) -> None:
    """The truncated tail is cut without reading the store whole: the driver's memory
    must not grow with the number of stored games when it resumes."""
    path = tmp_path / "games.jsonl"
    line = json.dumps(game(0)["record"]).encode() + b"\n"
    with path.open("wb") as handle:
        for _ in range(32 * 2**20 // len(line)):
            handle.write(line)
        handle.write(line[:20] + b"x" * 100_000)  # a long line cut off by a crash
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with ResultsStore(tmp_path):
            pass
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert path.stat().st_size == size - 100_020
    assert path.read_bytes().endswith(line)
    assert peak < 2**20, f"opening a {size >> 20} MiB store took {peak >> 20} MiB"


def test_duplicates_are_read_once(tmp_path: Path) -> None:
    with ResultsStore(tmp_path) as store:
        store.append([game(0), game(1)])
        store.append([game(1)])
        store.append([game(1, "other")])
    keys = [(r["spec_hash"], r["game_index"]) for r in read_records(tmp_path / "games.jsonl")]
    assert keys == [("h", 0), ("h", 1), ("other", 1)]


def test_a_corrupt_line_in_the_middle_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text('{"game_index": 0}\nnot json\n{"game_index": 1}\n')
    with pytest.raises(ValueError, match=r"games\.jsonl: line 2"):
        read_records(path)


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    with ResultsStore(tmp_path), pytest.raises(ResultsConflict, match="another tournament"):
        ResultsStore(tmp_path).open()
    with ResultsStore(tmp_path):  # released on close
        pass


def test_archive_moves_old_results_aside(tmp_path: Path) -> None:
    with ResultsStore(tmp_path) as store:
        store.append([game(0)])
        moved = store.archive()
        store.append([game(5)])
    assert moved is not None and moved.name.endswith(".old")
    assert [r["game_index"] for r in read_records(tmp_path / "games.jsonl")] == [5]
    assert [p.name for p in (tmp_path / "logs").iterdir()] == ["game-000005.jsonl"]


def test_ctrl_c_while_the_store_is_archived_moves_its_logs_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C as the store has been moved aside (``--no-resume``) but not yet its logs:
    the logs are moved too before it stops, so the archive keeps its games' logs and
    the new games' logs do not replace them, and the store still closes."""
    replace = os.replace

    def interrupted(source: Any, target: Any) -> None:
        replace(source, target)
        if Path(source).name == "games.jsonl":
            os.kill(os.getpid(), signal.SIGINT)

    store = ResultsStore(tmp_path)
    store.open()
    store.append([game(0)])
    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        store.archive()
    store.close()
    logs = [p for p in tmp_path.glob("logs.*.old") if (p / "game-000000.jsonl").is_file()]
    assert len(logs) == 1 and not list((tmp_path / "logs").iterdir())


def _reference(path: Path) -> list[dict]:
    """The reader's contract written out plainly: every complete line parsed, the first
    record of a game kept unless it is void, then sorted by index, spec hash, game id."""
    kept: dict[tuple, dict] = {}
    for line in path.read_bytes().split(b"\n")[:-1]:
        if line.strip():
            record = json.loads(line)
            index = record.get("game_index")
            key: tuple[Any, ...] = (str(record.get("spec_hash")), -1 if index is None else index)
            key += (str(record.get("game_id", "")),)
            if key not in kept or kept[key].get("void"):
                kept[key] = record
    return sorted(
        kept.values(),
        key=lambda r: (
            r["game_index"] if r.get("game_index") is not None else -1,
            str(r.get("spec_hash")),
            str(r.get("game_id", "")),
        ),
    )


def test_streamed_records_are_the_listed_ones_in_their_order(tmp_path: Path) -> None:
    import random

    from mafia_arena.results_file import StoredRecords

    rng = random.Random(3)
    path = tmp_path / "games.jsonl"
    lines = []
    for n in range(400):  # replays of void games, other specs, web games, blank lines
        record: dict = {"spec_hash": rng.choice(["h", "h", "k"]), "n": n}
        record["game_index"] = rng.choice([rng.randrange(60), None] if n % 7 else [None])
        if record["game_index"] is None or rng.random() < 0.1:
            record["game_id"] = f"web-{rng.randrange(20)}"
        if rng.random() < 0.3:
            record["void"] = True
        lines.append(json.dumps(record))
        if rng.random() < 0.05:
            lines.append("  ")
    path.write_text("\n".join(lines) + "\n" + '{"spec_hash": "h", "game_index": 99')
    expected = _reference(path)
    stored = StoredRecords(path)
    assert list(stored) == expected and list(stored) == expected  # re-iterable
    assert len(stored) == len(expected) > 50
    assert read_records(path) == expected
    only_h = StoredRecords(path, "h")
    assert list(only_h) == [r for r in expected if r["spec_hash"] == "h"]
    assert stored.spec_hashes() == {"h", "k"}
    assert stored.void_count() == sum(bool(r.get("void")) for r in expected)
    assert stored.played_indices() == {
        r["game_index"] for r in expected if not r.get("void") and r["game_index"] is not None
    }
    assert list(StoredRecords(tmp_path / "missing.jsonl")) == []


def _store_with(path: Path, second: str) -> bytes:
    """A store whose second line is `second` (one game on each side of it); its bytes."""
    path.write_text('{"spec_hash": "h", "game_index": 0}\n' + second + "\n")
    with path.open("a") as handle:
        handle.write('{"spec_hash": "h", "game_index": 1}\n')
    return path.read_bytes()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('"three"', "'three' is not a whole number"),
        ("2.5", "2.5 is not a whole number"),  # int() would make it game 2
        ("true", "True is not a whole number"),  # int() would make it game 1
        ("-5", "-5 is negative"),
        ("30000000000", "30000000000 is not below 10000000"),  # 270 GB of index
        ("100000000", "100000000 is not below 10000000"),  # 900 MB of index
    ],
)
def test_a_game_index_that_is_not_a_stored_index_names_file_line_and_key(
    tmp_path: Path, value: str, reason: str
) -> None:
    from mafia_arena.results_file import StoredRecords, StoreFormatError

    path = tmp_path / "games.jsonl"
    before = _store_with(path, f'{{"spec_hash": "h", "game_index": {value}}}')
    with pytest.raises(StoreFormatError) as caught:
        StoredRecords(path)
    assert str(caught.value) == f"{path}: line 2: game_index: {reason}" + (
        " (the most games a results store holds)" if "below" in reason else ""
    )
    with pytest.raises(StoreFormatError, match=r"games\.jsonl: line 2: game_index: "):
        read_records(path)
    assert path.read_bytes() == before


def test_a_game_index_outside_the_specs_games_is_refused_for_that_spec_only(
    tmp_path: Path,
) -> None:
    from mafia_arena.results_file import StoredRecords, StoreFormatError

    path = tmp_path / "games.jsonl"
    _store_with(path, '{"spec_hash": "h", "game_index": 2}')
    assert StoredRecords(path, games=("h", 3)).played_indices() == {0, 1, 2}
    assert len(StoredRecords(path, games=("other", 2))) == 3  # another spec's bound
    with pytest.raises(StoreFormatError) as caught:
        StoredRecords(path, games=("h", 2))
    assert str(caught.value) == (
        f"{path}: line 2: game_index: 2 is not below 2 (the spec's number of games: indices 0..1)"
    )


@pytest.mark.parametrize("games", [10_000_000, 10_000_001])
def test_a_spec_of_as_many_games_as_a_store_holds_or_more_gets_the_stores_reason(
    tmp_path: Path, games: int
) -> None:
    """The spec's number of games bounds its indices only below the store's own bound;
    at or above it the store's bound applies, and the message gives the store's reason."""
    from mafia_arena.results_file import MAX_GAME_INDEX, StoredRecords, StoreFormatError

    path = tmp_path / "games.jsonl"
    _store_with(path, f'{{"spec_hash": "h", "game_index": {MAX_GAME_INDEX}}}')
    with pytest.raises(StoreFormatError) as caught:
        StoredRecords(path, games=("h", games))
    assert str(caught.value) == (
        f"{path}: line 2: game_index: {MAX_GAME_INDEX} is not below {MAX_GAME_INDEX} "
        "(the most games a results store holds)"
    )


@pytest.mark.parametrize(
    ("line", "kind"), [("[1, 2]", "array"), ("42", "number"), ("null", "null"), ('"x"', "string")]
)
def test_a_line_that_is_json_but_not_an_object_is_a_format_error(
    tmp_path: Path, line: str, kind: str
) -> None:
    from mafia_arena.results_file import StoredRecords, StoreFormatError

    path = tmp_path / "games.jsonl"
    _store_with(path, line)
    with pytest.raises(StoreFormatError) as caught:
        StoredRecords(path)
    assert str(caught.value) == f"{path}: line 2: not a JSON record (a JSON {kind}, not an object)"


@pytest.mark.parametrize("value", ['"false"', '"true"', "0", "1", "[]"])
def test_a_void_that_is_not_a_boolean_is_a_format_error(tmp_path: Path, value: str) -> None:
    """``bool("false")`` is True: the game would be voided and played again."""
    from mafia_arena.results_file import StoredRecords, StoreFormatError

    path = tmp_path / "games.jsonl"
    _store_with(path, f'{{"spec_hash": "h", "game_index": 5, "void": {value}}}')
    with pytest.raises(
        StoreFormatError, match=r"games\.jsonl: line 2: void: .* is not true or false"
    ):
        StoredRecords(path)
    _store_with(path, '{"spec_hash": "h", "game_index": 5, "void": false}')
    assert StoredRecords(path).played_indices() == {0, 1, 5}


def test_a_manifest_that_cannot_be_written_names_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk when the manifest is written: the error names the file (the command
    line prints it as that file and the reason), and no manifest is left half written."""
    from mafia_arena.experiments.provenance import write_manifest

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_manifest(tmp_path, {"store_id": "x"})
    assert caught.value.errno == errno.ENOSPC
    assert caught.value.filename == str(partial_path(tmp_path / "manifest.json"))
    assert not (tmp_path / "manifest.json").exists()
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_the_manifest_is_written_keeps_the_previous_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the new manifest is being written (before it is synced): the previous
    manifest stays whole and no temporary file is left beside it."""
    from mafia_arena.experiments.provenance import read_manifest, write_manifest

    write_manifest(tmp_path, {"store_id": "before"})
    fsync = os.fsync

    def interrupted(fd: int) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        fsync(fd)

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_manifest(tmp_path, {"store_id": "after"})
    assert read_manifest(tmp_path) == {"store_id": "before"}
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_two_archives_in_one_second_keep_both(tmp_path: Path) -> None:
    """Starting over twice within a second (a script retrying `--no-resume`) keeps both
    earlier stores and their logs: the second archive must not replace the first."""
    with ResultsStore(tmp_path) as store:
        store.append([game(0)])
        first = store.archive()
        store.append([game(1)])
        second = store.archive()
        store.append([game(2)])
    assert first is not None and second is not None and first != second
    archived = sorted(tmp_path.glob("games.jsonl.*.old"))
    assert sorted(r["game_index"] for p in archived for r in read_records(p)) == [0, 1]
    old_logs = sorted(p.name for d in tmp_path.glob("logs.*.old") for p in d.iterdir())
    assert old_logs == ["game-000000.jsonl", "game-000001.jsonl"]
    assert [p.name for p in (tmp_path / "logs").iterdir()] == ["game-000002.jsonl"]
