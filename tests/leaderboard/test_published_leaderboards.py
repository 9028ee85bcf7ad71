"""The published reference leaderboards regenerate byte-identically from their specs.

The small `mini-league` spec is replayed from scratch (in-process, no tracking) and its
README and tables must equal the committed `leaderboards/mini-league/` files byte for
byte, but for the line naming the code that played it (its source digest changes with
any change of the source; it must name the running code). The league's host key is
published with it (`host_key`): it derives the players' own seeds, so the same games are
played again. (The figures are checked for determinism by the publish tests; their bytes
depend on the installed matplotlib version, so they are not compared with the committed
ones.)
"""

import difflib
import shutil
from pathlib import Path

import pytest

from mafia_arena.code_identity import code_identity
from mafia_arena.experiments import run_tournament
from mafia_arena.leaderboard.cli import Invocation, leaderboard_command
from mafia_arena.seat_seeds import KEY_FILE

ROOT = Path(__file__).resolve().parents[2]
TEXT_FILES = ("README.md", "leaderboard.csv", "roles.csv")


def test_mini_league_leaderboard_regenerates_byte_identically(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # provenance names the spec relative to the repository
    published = ROOT / "leaderboards" / "mini-league"
    (tmp_path / "results").mkdir()
    shutil.copy(published / KEY_FILE, tmp_path / "results" / KEY_FILE)
    summary = run_tournament(
        ROOT / "experiments" / "mini-league.toml",
        use_ray=False,
        results_dir=tmp_path / "results",
        track=False,
        progress=False,
    )
    out = tmp_path / "leaderboard"
    published_as = Invocation(Path("experiments/mini-league.toml"))  # the README's command
    written = leaderboard_command(summary.results_dir, out, invocation=published_as)
    assert {p.name for p in written} >= {*TEXT_FILES, "ratings.png", "win_rate_by_role.png"}
    for name in TEXT_FILES[1:]:
        assert (out / name).read_bytes() == (published / name).read_bytes(), name
    made, committed = ((out / "README.md").read_text(), (published / "README.md").read_text())
    assert f"source digest {code_identity()['digest']}" in _code_line(made)
    assert _code_line(committed)  # the published board names the code that played it
    made_rest = made.replace(_code_line(made), "")
    committed_rest = committed.replace(_code_line(committed), "")
    assert made_rest == committed_rest, (
        "leaderboards/mini-league/README.md is not what the present code publishes; if "
        "the change is intended (a new line of its provenance, such as the host key "
        "fingerprint), regenerate the published boards "
        "(mafia-arena leaderboard experiments/mini-league.toml), else fix the code:\n"
        + "\n".join(
            difflib.unified_diff(
                committed_rest.splitlines(),
                made_rest.splitlines(),
                "published",
                "regenerated",
                lineterm="",
            )
        )
    )


def _code_line(readme: str) -> str:
    """The README's "Code that played the games" line: it names the source digest of the
    code that ran, which any change of the package's source changes, so it is compared on
    its own rather than byte for byte."""
    return next((ln for ln in readme.splitlines() if "**Code that played the games**" in ln), "")


@pytest.mark.parametrize("name", ["mini-league", "scripted-baseline", "local-llm"])
def test_published_leaderboards_name_their_spec_and_command(name):
    readme = ROOT / "leaderboards" / name / "README.md"
    if not readme.exists():
        pytest.skip(f"{name} is not published")
    text = readme.read_text()
    assert f"experiments/{name}.toml" in text
    assert f"mafia-arena leaderboard experiments/{name}.toml" in text


def test_the_documented_command_plays_a_new_results_folder_with_the_published_key(
    tmp_path, monkeypatch, capsys
):
    """`mafia-arena leaderboard experiments/mini-league.toml`, as the README gives it, in
    a checkout without results: the new results folder starts with the board's published
    host key, so the same games are played and the tables come out as published (a
    folder that already has a key keeps its own)."""
    from tests.cli.support import run_cli

    published = ROOT / "leaderboards" / "mini-league"
    shutil.copytree(ROOT / "experiments", tmp_path / "experiments")
    shutil.copytree(published, tmp_path / "leaderboards" / "mini-league")
    monkeypatch.chdir(tmp_path)
    args = ["leaderboard", "experiments/mini-league.toml", "--no-ray", "--no-tracking"]
    code, err = run_cli(args, capsys)
    assert code == 0, err
    results = tmp_path / "results" / "mini-league"
    assert (results / KEY_FILE).read_bytes() == (published / KEY_FILE).read_bytes()
    board = tmp_path / "leaderboards" / "mini-league"
    for name in TEXT_FILES[1:]:
        assert (board / name).read_bytes() == (published / name).read_bytes(), name
    (results / KEY_FILE).write_text("ab" * 32 + "\n")
    (results / "games.jsonl").unlink()
    code, err = run_cli([*args, "--out", str(tmp_path / "other")], capsys)
    assert code == 0, err
    assert (results / KEY_FILE).read_text() == "ab" * 32 + "\n"
    assert (tmp_path / "other" / "leaderboard.csv").read_bytes() != (
        published / "leaderboard.csv"
    ).read_bytes()
