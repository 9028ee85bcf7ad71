"""A variant file, an experiment spec or a training spec that cannot be read as TOML text
(bytes that are not UTF-8, a symbolic-link loop, nesting deeper than the parser follows,
a device, a pipe, a folder, a file too large) is one paragraph naming the file and the
reason, exit code 2, for every command that reads it: not a traceback, a memory filled
by ``/dev/zero`` or a wait on a pipe without a writer.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.cli.support import assert_one_paragraph, pipe_writer, run_cli
from tests.host_key import FIXED_HOST_KEY

import mafia_arena.toml_file
from mafia_arena.toml_file import MAX_TOML_BYTES

REPO = Path(__file__).resolve().parents[2]
SIMPLE = (REPO / "envs" / "simple.toml").read_text()


def _not_utf8(path: Path) -> str:
    path.write_bytes(SIMPLE.replace('"Simple Mafia"', '"Simple M\xe4fia"').encode("latin-1"))
    return "not UTF-8 text (byte 0xe4 at offset"


def _link_loop(path: Path) -> str:
    other = path.with_name("other.toml")
    path.symlink_to(other)
    other.symlink_to(path)
    return "Too many levels of symbolic links"


def _nested(path: Path) -> str:
    path.write_text(SIMPLE + "deep = " + "[" * 5000 + "]" * 5000 + "\n")
    return "nested too deeply to read"


def _device(path: Path) -> str:
    path.symlink_to("/dev/null")  # a device; /dev/zero would never end
    return "not a regular file (a pipe or a device)"


def _folder(path: Path) -> str:
    path.mkdir()
    return "it is a folder"


DAMAGES: dict[str, Callable[[Path], str]] = {
    "not-utf8": _not_utf8,
    "link-loop": _link_loop,
    "nested": _nested,
    "device": _device,
    "folder": _folder,
}


def _command(command: str, path: Path, tmp_path: Path) -> list[str]:
    if command == "run":
        return ["run", "--variant", str(path), "--players", "5", "--games", "1"]
    if command == "tournament":
        results = str(tmp_path / "results")
        return ["tournament", str(path), "--no-ray", "--no-tracking", "--results", results]
    return ["train", str(path), "--no-tracking", "--out", str(tmp_path / "out")]


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("command", ["run", "tournament", "train"])
def test_an_unreadable_input_file_is_a_user_error(
    command: str, damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "input.toml"
    reason = DAMAGES[damage](path)
    code, err = run_cli(_command(command, path, tmp_path), capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(path), reason)
    assert not (tmp_path / "results").exists() and not (tmp_path / "out").exists()


def test_a_spec_naming_an_unreadable_variant_names_the_spec_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = tmp_path / "variant.toml"
    reason = _link_loop(variant)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'name = "s"\nbase_seed = 1\ngames = 1\npool = ["random"]\n'
        f'[[variants]]\nvariant = "{variant}"\nplayers = 5\n'
    )
    code, err = run_cli(_command("tournament", spec, tmp_path), capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{spec}: variants.0.variant: {variant}", reason)


def test_a_pipe_is_refused_without_waiting_for_a_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Opening a pipe waits for a writer: it is refused before it is opened. (A writer
    serves a variant for a few seconds, so a reader that opens the pipe reads it instead
    of hanging.)"""
    path = tmp_path / "pipe.toml"
    writer = pipe_writer(path, SIMPLE.encode())
    code, err = run_cli(_command("run", path, tmp_path), capsys)
    writer.join()
    assert code == 2, err
    assert_one_paragraph(err, str(path), "not a regular file (a pipe or a device)")


def test_a_file_over_the_size_limit_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mafia_arena.toml_file, "MAX_TOML_BYTES", 1024 * 1024)
    path = tmp_path / "large.toml"
    path.write_text(SIMPLE + "# padding\n" * 110_000)
    code, err = run_cli(_command("run", path, tmp_path), capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(path), "larger than 1 MiB")
    assert 100 * len(SIMPLE) < MAX_TOML_BYTES  # the real limit leaves room for any variant


@pytest.mark.parametrize("damage", ["nested", "device"])
def test_a_log_naming_an_unreadable_variant_is_a_user_error(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay`` loads the variant a log names: a hostile log may name any file."""
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    result = play_match_sync(
        load_variant("simple"), [RandomAgent(s) for s in range(5)], 2, host_key=FIXED_HOST_KEY
    )
    log = result.log.save(tmp_path / "game.jsonl")
    variant = tmp_path / "variant.toml"
    reason = DAMAGES[damage](variant)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    lines[0]["variant"] = lines[1]["payload"]["variant"] = str(variant)
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, err = run_cli(["replay", str(log)], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{log}: line 1: variant: ", str(variant), reason)
