"""Damaged copies of a real game log (and of its decision-trace sidecar) given to
``mafia-arena replay``: each is refused with one paragraph naming the file, the line and
key, and the reason, exit code 2 (`runner.log_file`). Before, these ended in a
traceback, a replay of another game, a hang or a misleading "differs" verdict. A log that
is well formed but does not reproduce still says it differs (exit 1).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.cli.support import assert_one_paragraph, pipe_writer, run_cli, run_cli_output
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.runner.log import GameLog
from mafia_arena.runner.log_file import LogFileError

Lines = list[Any]
"""A log as parsed lines: the header, then the events (objects, or raw text)."""


def _real_log(folder: Path) -> Path:
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    result = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 2, host_key=FIXED_HOST_KEY
    )
    return result.log.save(folder / "game.jsonl")


@pytest.fixture(scope="module")
def real_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _real_log(tmp_path_factory.mktemp("real"))


def _lines(log: Path) -> Lines:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _text(lines: Lines) -> str:
    return "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)


def _first(lines: Lines, kind: str) -> int:
    return next(i for i, e in enumerate(lines) if i and e["kind"] == kind)


def _header(**changes: Any) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[0].update(changes)
        return lines

    return edit


def _event(kind: str, /, **changes: Any) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[_first(lines, kind)].update(changes)
        return lines

    return edit


def _payload(kind: str, /, **changes: Any) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[_first(lines, kind)]["payload"].update(changes)
        return lines

    return edit


def _meta(**changes: Any) -> Callable[[Lines], Lines]:
    def edit(lines: Lines) -> Lines:
        lines[0]["meta"].update(changes)
        return lines

    return edit


def _unseated(players: int) -> Callable[[Lines], Lines]:
    """Another player count, without the per-seat lists that would name the mismatch."""

    def edit(lines: Lines) -> Lines:
        lines[0]["players"] = players
        lines[0]["seating"] = []
        for key in ("agent_kinds", "agent_stats"):
            lines[0]["meta"].pop(key, None)
        return lines

    return edit


def _swap(lines: Lines) -> Lines:
    lines[3], lines[4] = lines[4], lines[3]
    return lines


def _duplicate(lines: Lines) -> Lines:
    lines[4]["seq"] = lines[3]["seq"]
    return lines


def _drop(lines: Lines) -> Lines:
    del lines[3]
    return lines


def _nested(lines: Lines) -> Lines:
    return [*lines, "[" * 100_000]


def _nested_header(lines: Lines) -> Lines:
    return ["[" * 100_000, *lines[1:]]


def _long_int(lines: Lines) -> Lines:
    return [json.dumps(lines[0]).replace(f'"seed": {lines[0]["seed"]}', '"seed": ' + "9" * 5000)]


def _u2028(lines: Lines) -> Lines:
    lines[0]["meta"]["note"] = "one\u2028two"
    return [json.dumps(lines[0], ensure_ascii=False), *lines[1:]]


def _nan_day(lines: Lines) -> Lines:
    text = json.dumps(lines[3]).replace('"day": 0', '"day": NaN')
    return [*lines[:3], text, *lines[4:]]


#: (id, edit of the log's lines, parts of the message after the file name)
LOG_CASES: list[tuple[str, Callable[[Lines], Lines], tuple[str, ...]]] = [
    ("deeply-nested-event", _nested, (": line ", "nested too deeply")),
    ("deeply-nested-header", _nested_header, (": line 1: ", "nested too deeply")),
    ("integer-too-long", _long_int, (": line 1: ", "a number of more digits")),
    ("variant-a-number", _header(variant=42), (": line 1: variant: ", "not a variant name")),
    ("variant-null", _header(variant=None), (": line 1: variant: ", "not a variant name")),
    ("variant-not-the-setup", _header(variant="nosuch"), (": line 1: ", "the setup event")),
    (
        "variant-unknown",
        lambda ls: _payload("setup", variant="nosuch")(_header(variant="nosuch")(ls)),
        (": line 1: variant: ", "no variant 'nosuch'"),
    ),
    ("overrides-a-string", _header(overrides="x"), (": line 1: overrides: ", "not an object")),
    ("overrides-null", _header(overrides=None), (": line 1: overrides: ", "not an object")),
    (
        "overrides-unknown-switch",
        lambda ls: _header(overrides={**ls[0]["overrides"], "nosuch": 1})(ls),
        (": line 1: overrides: ", "nosuch: unknown switch"),
    ),
    ("players-a-billion", _header(players=10**9), (": line 1: players: ", "outside 1..1000")),
    ("players-negative", _header(players=-1), (": line 1: players: ", "outside 1..1000")),
    ("players-not-the-setup", _unseated(6), (": line 1: ", "the setup event")),
    ("seed-a-string", _header(seed="2"), (": line 1: seed: ", "not a whole-number seed")),
    ("seed-a-float", _header(seed=2.5), (": line 1: seed: ", "not a whole-number seed")),
    ("seating-short", _header(seating=["random"]), (": line 1: seating: ", "1 agents for 5")),
    ("meta-not-an-object", _header(meta=[1]), (": line 1: meta: ", "not an object")),
    ("meta-code-a-string", _meta(code="x"), (": line 1: meta.code: ",)),
    ("meta-agent-stats-a-string", _meta(agent_stats="x"), (": line 1: meta.agent_stats: ",)),
    ("seq-a-float", _event("role", seq=1.0), (": line 3: seq: ", "1.0 where 1 was due")),
    ("seq-a-string", _event("role", seq="1"), (": line 3: seq: ",)),
    ("seq-duplicated", _duplicate, (": line 5: seq: ", "2 where 3 was due")),
    ("seq-out-of-order", _swap, (": line 4: seq: ", "3 where 2 was due")),
    ("line-dropped", _drop, (": line 4: seq: ", "3 where 2 was due")),
    ("day-negative", _event("role", day=-1), (": line 3: day: ", "-1")),
    ("day-a-string", _event("role", day="x"), (": line 3: day: ",)),
    ("day-nan", _nan_day, (": line 4: ", "NaN is not standard JSON")),
    ("meta-infinity", _meta(cost=float("inf")), (": line 1: ", "Infinity is not standard JSON")),
    ("phase-a-number", _event("role", phase=3), (": line 3: phase: ",)),
    ("seat-out-of-range", _payload("role", seat=99), (": line 3: payload.seat: ", "seat 99")),
    ("seat-negative", _payload("role", seat=-1), (": line 3: payload.seat: ", "seat -1")),
    ("seat-a-string", _payload("role", seat="x"), (": line 3: payload.seat: ", "'x'")),
    (
        "scope-unknown",
        _event("role", visibility={"scope": "everyone"}),
        (": line 3: visibility.scope: ", "'everyone' is not one of public, seats, host"),
    ),
    (
        "scope-seats-a-string",
        _event("role", visibility={"scope": "seats", "seats": "abc"}),
        (": line 3: visibility.seats: ",),
    ),
    (
        "scope-seat-out-of-range",
        _event("role", visibility={"scope": "seats", "seats": [99]}),
        (": line 3: visibility.seats: ",),
    ),
    # already refused before; kept so they stay refused
    ("players-a-string", _header(players="5"), (": line 1: players: ", "not a player count")),
    ("players-1e300", _header(players=1e300), (": line 1: players: ", "not a player count")),
    ("header-not-an-object", lambda ls: ["[1, 2]", *ls[1:]], (": line 1: ", "no format key")),
    ("header-missing", lambda ls: ls[1:], (": line 1: ", "no format key")),
    ("kind-unknown", _event("role", kind="bogus"), (": line 3: kind: ", "'bogus'")),
    ("truncated-last-line", lambda ls: [*ls[:-1], json.dumps(ls[-1])[:-30]], ("not JSON",)),
]


@pytest.mark.parametrize(
    ("edit", "parts"), [c[1:] for c in LOG_CASES], ids=[c[0] for c in LOG_CASES]
)
def test_a_damaged_log_is_refused_naming_file_line_and_key(
    real_log: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[Lines], Lines],
    parts: tuple[str, ...],
) -> None:
    path = tmp_path / "damaged.jsonl"
    path.write_text(_text(edit(_lines(real_log))), encoding="utf-8")
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {path}", *parts)
    if "the variant does not load" not in err:  # the reader checks the form, not the rules
        with pytest.raises(LogFileError):
            GameLog.load(path)  # the library reads through the same checks


def test_a_line_separator_inside_a_string_is_text(
    real_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A U+2028 inside a header string split the header in two (a traceback)."""
    path = tmp_path / "u2028.jsonl"
    path.write_text(_text(_u2028(_lines(real_log))), encoding="utf-8")
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 0 and not err, err
    assert GameLog.load(path).meta["note"] == "one\u2028two"


def _trace(lines: Lines, **changes: Any) -> str:
    decision = lines[_first(lines, "decision")]
    record = {
        "seat": decision["payload"]["seat"],
        "seq": decision["seq"] - 1,
        "day": decision["day"],
        "kind": decision["payload"]["kind"],
        "question": "who?",
        "answers": ["P1"],
        "choice": decision["payload"].get("choice"),
        "latency_s": 0.5,
        **changes,
    }
    return json.dumps(record) + "\n"


#: (id, sidecar text from the log's lines, parts of the message after the sidecar's name)
TRACE_CASES: list[tuple[str, Callable[[Lines], str], tuple[str, ...]]] = [
    ("not-an-object", lambda ls: "[1, 2]\n", (": line 1: ", "not an object")),
    ("a-number", lambda ls: "3\n", (": line 1: ", "not an object")),
    ("deeply-nested", lambda ls: "[" * 100_000 + "\n", (": line 1: ", "nested too deeply")),
    ("seat-a-string", lambda ls: _trace(ls, seat="x"), (": line 1: seat: ", "'x'")),
    ("seat-a-float", lambda ls: _trace(ls, seat=1.5), (": line 1: seat: ",)),
    ("seq-a-string", lambda ls: _trace(ls, seq="x"), (": line 1: seq: ",)),
    ("seq-null", lambda ls: _trace(ls, seq=None), (": line 1: seq: ",)),
    ("latency-a-string", lambda ls: _trace(ls, latency_s="x"), (": line 1: latency_s: ",)),
    ("answers-a-number", lambda ls: _trace(ls, answers=5), (": line 1: answers: ",)),
    ("answers-a-string", lambda ls: _trace(ls, answers="abc"), (": line 1: answers: ",)),
    ("question-a-list", lambda ls: _trace(ls, question=["a"]), (": line 1: question: ",)),
    ("latency-nan", lambda ls: _trace(ls, latency_s=float("nan")), (": line 1: ", "NaN is not")),
    (
        "latency-minus-infinity",
        lambda ls: _trace(ls) + _trace(ls, latency_s=float("-inf")),
        (": line 2: ", "-Infinity is not standard JSON"),
    ),
    # already refused before
    ("not-json", lambda ls: _trace(ls) + "nope\n", (": line 2: ", "not JSON")),
]


@pytest.mark.parametrize(
    ("sidecar", "parts"), [c[1:] for c in TRACE_CASES], ids=[c[0] for c in TRACE_CASES]
)
def test_a_damaged_trace_sidecar_is_refused_naming_file_line_and_key(
    real_log: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    sidecar: Callable[[Lines], str],
    parts: tuple[str, ...],
) -> None:
    lines = _lines(real_log)
    path = tmp_path / "game.jsonl"
    path.write_text(_text(lines))
    traces = tmp_path / "game.traces.jsonl"
    traces.write_text(sidecar(lines))
    code, err = run_cli(["replay", str(path), "--traces"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"error: {traces}", *parts)


@pytest.mark.parametrize(
    ("where", "field"),
    [("header", "meta.cost"), ("trace 2", "latency_s")],
)
def test_a_log_holding_a_non_finite_number_is_not_written(
    real_log: Path, tmp_path: Path, where: str, field: str
) -> None:
    """Logs and sidecars are standard JSON, as their reader requires: a NaN or an
    Infinity is refused when written, naming the record and field, and nothing is
    stored."""
    log = GameLog.load(real_log)
    if where == "header":
        log.meta["cost"] = float("nan")
    else:
        log.traces = [{"seat": 0, "latency_s": 0.5}, {"seat": 1, "latency_s": float("nan")}]
    target = tmp_path / "game.jsonl"
    with pytest.raises(ValueError, match=rf"^{where}: {field}: nan is not a finite number"):
        log.save(target)
    assert not target.exists()


def test_a_sound_trace_sidecar_is_shown(
    real_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = _lines(real_log)
    path = tmp_path / "game.jsonl"
    path.write_text(_text(lines))
    (tmp_path / "game.traces.jsonl").write_text(_trace(lines))
    code, err = run_cli(["replay", str(path), "--traces"], capsys)
    assert code == 0 and not err, err
    assert GameLog.load(path).traces[0]["question"] == "who?"


def test_a_trace_sidecar_that_is_a_folder_is_refused(
    real_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(real_log.read_text())
    (tmp_path / "game.traces.jsonl").mkdir()
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{tmp_path / 'game.traces.jsonl'}: ", "it is a folder")


def test_a_log_path_through_a_file_is_cannot_read(
    real_log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = real_log / "inside.jsonl"
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(path), "cannot read")


def test_a_log_that_is_a_folder_is_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_cli(["replay", str(tmp_path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(tmp_path), "cannot read")


def test_a_device_is_not_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A device (``/dev/zero`` never ends) is refused before anything is read."""
    path = tmp_path / "device.jsonl"
    path.symlink_to("/dev/null")
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(path), "not a regular file")


def test_a_pipe_is_refused_without_waiting_for_a_writer(
    real_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Opening a pipe waits for a writer: it is refused before it is opened. (A writer
    serves the log to every reader for a few seconds, so a reader that opens the pipe
    reads a log instead of hanging.)"""
    path = tmp_path / "pipe.jsonl"
    writer = pipe_writer(path, real_log.read_bytes())
    code, err = run_cli(["replay", str(path)], capsys)
    writer.join()
    assert code == 2, err
    assert_one_paragraph(err, str(path), "not a regular file")


def test_a_file_over_the_size_limit_is_not_read(
    real_log: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("mafia_arena.runner.log_file.MAX_FILE_BYTES", 1000)
    code, err = run_cli(["replay", str(real_log)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(real_log), "too large")


def test_bad_utf8_names_its_line(
    real_log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = real_log.read_bytes().split(b"\n")
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b"\n".join([*lines[:4], b'{"x": "\xff"}', *lines[4:]]))
    code, err = run_cli(["replay", str(path)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{path}: line 5: ", "not a text file", "0xff")


def test_a_damaged_log_is_refused_by_the_metrics_reader(real_log: Path, tmp_path: Path) -> None:
    from mafia_arena.metrics import compute_metrics

    lines = _lines(real_log)
    lines[0]["meta"]["agent_stats"] = "x"  # made `compute_metrics` fail deep inside
    path = tmp_path / "stats.jsonl"
    path.write_text(_text(lines))
    with pytest.raises(LogFileError, match=r"line 1: meta\.agent_stats"):
        compute_metrics(GameLog.load(path))
    assert compute_metrics(GameLog.load(real_log))


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (_payload("decision", seat=99), "IllegalDecision: seat 99"),
        (_payload("decision", choice="target:99"), "is not a legal choice"),
        (_header(seed=3), "(it is damaged)"),
    ],
    ids=["decision-seat-out-of-range", "decision-choice-illegal", "seed-another"],
)
def test_a_well_formed_log_that_does_not_replay_still_differs(
    real_log: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[Lines], Lines],
    reason: str,
) -> None:
    """A decision the game refuses is the replay's verdict (exit 1), not a read error."""
    path = tmp_path / "edited.jsonl"
    path.write_text(_text(edit(_lines(real_log))))
    code, out, err = run_cli_output(["replay", str(path)], capsys)
    assert code == 1 and not err, err
    last = out.strip().splitlines()[-1]
    assert last.startswith("replay DIFFERS FROM the stored log:") and reason in last, last


def test_the_real_logs_of_every_variant_still_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    for name, players in [
        ("simple", 7),
        ("standard", 7),
        ("classic", 7),
        ("club", 8),
        ("dictator", 12),
        ("palermo", 12),
    ]:
        result = play_match_sync(
            load_variant(name),
            [RandomAgent(s) for s in range(players)],
            1,
            host_key=FIXED_HOST_KEY,
        )
        path = result.log.save(tmp_path / f"{name}.jsonl")
        code, err = run_cli(["replay", str(path)], capsys)
        assert code == 0 and not err, (name, err)
