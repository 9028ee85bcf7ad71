"""A researcher's own variant file, played and replayed with the real command line: a
log replays only with the rules that played it.

A game played from a file other than the bundled one of its name records the file's
path (``meta["variant_file"]``) beside its content digest, so ``mafia-arena replay LOG``
reads that file; ``--variant FILE`` gives it where it moved; and a file whose content is
not the one that played the game is refused before anything is replayed (exit 1), never
replayed with other rules, even where those rules would give the same events. A log of
a bundled variant records no file, as before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mafia_arena.rules.loader import envs_dir

STANDARD = envs_dir() / "standard.toml"


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`mafia-arena ARGS` in a fresh interpreter, as a user runs it, from `cwd`."""
    return subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", *map(str, args)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def own_variant(folder: Path, name: str, *edits: tuple[str, str]) -> Path:
    """A copy of ``standard.toml`` in `folder`, named `name`, with each (old, new) edit."""
    text = STANDARD.read_text().replace('name = "standard"', f'name = "{name}"')
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path = folder / f"{name}-copy.toml"
    path.write_text(text)
    return path


NO_DETECTIVE = ("doctor = 1, detective = 1", "doctor = 1, detective = 0")
LONGER = ('max_rounds = "n + 2"', 'max_rounds = "n + 20"')


def header(log: Path) -> dict[str, object]:
    return dict(json.loads(log.read_text().splitlines()[0]))


def play_seed_3(variant: Path, folder: Path) -> subprocess.CompletedProcess[str]:
    """A 7-player game of `variant` (seed 3) played in `folder`, logged to game.jsonl."""
    return cli(
        "play",
        "--variant",
        variant,
        "--players",
        "7",
        "--seed",
        "3",
        "--log",
        "game.jsonl",
        cwd=folder,
    )


def test_a_log_of_an_own_variant_file_replays_with_that_file(tmp_path: Path) -> None:
    variant = own_variant(tmp_path, "no-detective", NO_DETECTIVE)
    played = play_seed_3(Path(variant.name), tmp_path)  # the file by its name, as typed
    assert played.returncode == 0, played.stderr
    log = tmp_path / "game.jsonl"
    meta = header(log)["meta"]
    assert isinstance(meta, dict) and meta["variant_file"] == str(variant.resolve())
    bundled = cli(
        "play", "--variant", STANDARD, "--players", "7", "--log", "std.jsonl", cwd=tmp_path
    )  # the bundled file by its path: its log is as it was
    assert bundled.returncode == 0, bundled.stderr
    assert "variant_file" not in header(tmp_path / "std.jsonl")["meta"]  # type: ignore[operator]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = cli("replay", log, cwd=elsewhere)  # another working folder: the path holds
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert replayed.stdout.strip().endswith("replay matches the stored log")
    assert "7 players: 4 villager, 1 doctor, 2 mafioso." in replayed.stdout  # the file's deck

    moved = variant.rename(tmp_path / "moved.toml")
    gone = cli("replay", log, cwd=tmp_path)
    assert gone.returncode == 2 and gone.stdout == "", gone.stdout + gone.stderr
    assert "Traceback" not in gone.stderr and len(gone.stderr.strip().splitlines()) == 1
    assert f"{log}: line 1: meta.variant_file:" in gone.stderr, gone.stderr
    assert str(variant.resolve()) in gone.stderr and "--variant FILE" in gone.stderr
    assert str(meta["variant_digest"]) in gone.stderr

    given = cli("replay", log, "--variant", moved, cwd=tmp_path)
    assert given.returncode == 0, given.stdout + given.stderr
    assert given.stdout.strip().endswith("replay matches the stored log")


def test_an_older_log_of_an_own_variant_says_to_give_its_file(tmp_path: Path) -> None:
    variant = own_variant(tmp_path, "no-detective", NO_DETECTIVE)
    play_seed_3(variant, tmp_path)
    log = tmp_path / "game.jsonl"
    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    first["meta"].pop("variant_file", None)  # a log written before the field
    log.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")

    named = cli("replay", log, cwd=tmp_path)
    assert named.returncode == 2, named.stdout + named.stderr
    assert f"{log}: line 1: variant: " in named.stderr, named.stderr
    assert "no variant 'no-detective' is bundled" in named.stderr
    assert "mafia-arena replay LOG --variant FILE" in named.stderr, named.stderr

    given = cli("replay", log, "--variant", variant, cwd=tmp_path)
    assert given.returncode == 0, given.stdout + given.stderr
    assert given.stdout.strip().endswith("replay matches the stored log")


def test_a_copy_that_keeps_a_bundled_name_is_never_replayed_silently_with_the_bundled_rules(
    tmp_path: Path,
) -> None:
    # a longer round limit than standard's, which a short game never reaches: the
    # bundled file would replay the same events, and vouch for rules that did not play
    variant = own_variant(tmp_path, "standard", LONGER)
    play_seed_3(variant, tmp_path)
    log = tmp_path / "game.jsonl"
    played = str(header(log)["meta"]["variant_digest"])  # type: ignore[index]
    assert cli("replay", log, cwd=tmp_path).returncode == 0

    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    first["meta"].pop("variant_file", None)  # as a log of this file read by its name alone
    older = tmp_path / "older.jsonl"
    older.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    bundled = cli("replay", older, cwd=tmp_path)  # an edited bundled file replays ...
    assert bundled.returncode == 0, bundled.stdout + bundled.stderr
    note, last = bundled.stdout.strip().splitlines()[-2:]
    assert note.startswith(f"note: the variant file {STANDARD} differs from the one that")
    assert played in note, note  # ... but never silently
    assert last == "replay matches the stored log"
    refused = cli("replay", older, "--variant", STANDARD, cwd=tmp_path)  # a file given
    assert refused.returncode == 1, refused.stdout + refused.stderr
    last = refused.stdout.strip().splitlines()[-1]
    assert f"the variant file {STANDARD} differs from the one that played" in last, last
    assert played in last and "--variant FILE" in last, last
    assert "matches" not in refused.stdout and "Night" not in refused.stdout

    variant.write_text(variant.read_text().replace("n + 20", "n + 30"))  # edited since
    edited = cli("replay", log, cwd=tmp_path)
    assert edited.returncode == 1, edited.stdout + edited.stderr
    last = edited.stdout.strip().splitlines()[-1]
    assert f"the variant file {variant.resolve()} differs from the one that played" in last
    assert "matches" not in edited.stdout


def test_a_tournament_of_own_variant_files_gives_a_board_and_replayable_logs(
    tmp_path: Path,
) -> None:
    own_variant(tmp_path, "no-detective", NO_DETECTIVE)
    own_variant(tmp_path, "longer", LONGER)  # a name of its own: other rules than standard's
    (tmp_path / "spec.toml").write_text(
        'name = "own-variants"\nbase_seed = 7\ngames = 2\npool = ["random", "heuristic"]\n'
        'results = "results"\n\n'
        '[[variants]]\nvariant = "no-detective-copy.toml"\nplayers = 7\n\n'
        '[[variants]]\nvariant = "longer-copy.toml"\nplayers = 7\n'
    )
    ran = cli("tournament", "spec.toml", "--no-ray", "--no-tracking", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    board = cli("leaderboard", "results", "--out", "board", cwd=tmp_path)
    assert board.returncode == 0, board.stdout + board.stderr
    readme = (tmp_path / "board" / "README.md").read_text()
    assert "`no-detective/7`" in readme and "`longer/7`" in readme

    logs = sorted((tmp_path / "results" / "logs").glob("game-*.jsonl"))
    assert len(logs) == 4
    for log in logs:
        replayed = cli("replay", log, cwd=tmp_path)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert replayed.stdout.strip().endswith("replay matches the stored log")


def test_a_tournament_results_folder_moved_with_its_project_still_replays(
    tmp_path: Path,
) -> None:
    """A tournament's logs name an own file inside the project by a path from their own
    folder, so no path of the machine that played them is stored and the folder, moved
    with its project (another checkout, machine or user), replays as it is; a file
    outside the project keeps its absolute path."""
    project = tmp_path / "alice" / "study"
    (project / "experiments").mkdir(parents=True)
    (project / "my-variants").mkdir()
    own_variant(project / "my-variants", "longer", LONGER)
    shared = tmp_path / "shared"
    shared.mkdir()
    outside = own_variant(shared, "no-detective", NO_DETECTIVE)
    (project / "experiments" / "own.toml").write_text(
        'name = "own"\nbase_seed = 7\ngames = 1\npool = ["random", "heuristic"]\n'
        'results = "results/own"\n\n'
        '[[variants]]\nvariant = "my-variants/longer-copy.toml"\nplayers = 7\n\n'
        f'[[variants]]\nvariant = "{outside}"\nplayers = 7\n'
    )
    ran = cli("tournament", "experiments/own.toml", "--no-ray", "--no-tracking", cwd=project)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    inside_log, outside_log = sorted((project / "results" / "own" / "logs").glob("game-*"))
    inside, elsewhere = header(inside_log)["meta"], header(outside_log)["meta"]
    assert isinstance(inside, dict) and isinstance(elsewhere, dict)
    assert inside["variant_file"] == "../../../my-variants/longer-copy.toml"
    store = inside_log.parent.parent / "games.jsonl"
    assert str(tmp_path) not in inside_log.read_text() + store.read_text()
    assert elsewhere["variant_file"] == str(outside.resolve())

    moved = tmp_path / "bob" / "checkout"
    moved.parent.mkdir()
    project.rename(moved)
    logs = moved / "results" / "own" / "logs"
    for log, cwd in (
        (logs / inside_log.name, moved),
        (Path(inside_log.name), logs),
        (logs / outside_log.name, tmp_path),
    ):
        replayed = cli("replay", log, cwd=cwd)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert replayed.stdout.strip().endswith("replay matches the stored log")
    board = cli("leaderboard", "results/own", "--out", "board", cwd=moved)
    assert board.returncode == 0, board.stdout + board.stderr
    assert "`longer/7`" in (moved / "board" / "README.md").read_text()

    (moved / "my-variants" / "longer-copy.toml").rename(moved / "longer-copy.toml")
    gone = cli("replay", logs / inside_log.name, cwd=moved)  # named where it was looked for
    assert gone.returncode == 2, gone.stdout + gone.stderr
    assert f"no such variant file {moved / 'my-variants' / 'longer-copy.toml'}" in gone.stderr
