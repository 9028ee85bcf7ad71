"""A leaderboard never fits one side advantage to two rule sets.

A setup was ``"<variant>/<players>"``, so two spec entries of one variant and player
count that differ by a switch (``set = {...}``) were pooled as one: one side-advantage
term, one setup on the README, for games of other rules. Records now carry the entry's
switches (``overrides``) and the board names them in the setup. Games of a researcher's own
variant file carry their ``rules_digest``, so the records of two tournaments whose own
files bear one name but hold other rules are refused rather than rated as one setup;
records of an own file written before the digest are not taken for the bundled rules.
Records of bundled variants without switches are what they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import write_spec
from tests.tournament.test_own_variant_setups import copy_of_standard

from mafia_arena.experiments import run_tournament
from mafia_arena.leaderboard import load_records, write_leaderboard
from mafia_arena.leaderboard.cli import leaderboard_command
from mafia_arena.leaderboard.records import LeaderboardError, parse_game
from mafia_arena.leaderboard.synthetic import synthetic_records

SWITCHED = """base_seed = 5
games = 6
pool = ["random"]

[[variants]]
variant = "simple"
players = 5
label = "default"

[[variants]]
variant = "simple"
players = 5
label = "hidden"
set = { reveal_on_death = false }
"""


def play(folder: Path, name: str, body: str) -> list[dict[str, Any]]:
    """Play the spec `name` (`body`) in `folder`, in this process and untracked, and
    return its stored records."""
    results = with_host_key(folder / "results" / name)
    run_tournament(
        write_spec(folder, name, body),
        use_ray=False,
        track=False,
        progress=False,
        results_dir=results,
    )
    return load_records(results)


def board(records: list[dict[str, Any]], out: Path) -> str:
    """The README of the board of `records`, written to `out`."""
    write_leaderboard(records, out, title="Leaderboard: t", provenance={}, n_boot=5)
    return (out / "README.md").read_text(encoding="utf-8")


def test_entries_differing_by_a_switch_are_two_setups_each_with_its_side_advantage(
    tmp_path: Path,
) -> None:
    records = play(tmp_path, "switched", SWITCHED)
    assert [r.get("overrides") for r in records] == [None] * 6 + [{"reveal_on_death": False}] * 6
    assert not any("rules_digest" in r for r in records)  # bundled: no file to tell
    readme = board(records, tmp_path / "board")
    assert "setups: `simple/5`, `simple/5 (reveal_on_death=false)`;" in readme
    advantage = [line for line in readme.splitlines() if " Elo vs mafia" in line]
    assert [line.split(":")[0] for line in advantage] == [
        "- `simple/5`",
        "- `simple/5 (reveal_on_death=false)`",
    ], readme


def own_file_spec(file: str, seed: int = 3) -> str:
    """A two-game spec of the variant file `file` at 7 players."""
    return (
        f'base_seed = {seed}\ngames = 2\npool = ["random"]\n\n'
        f'[[variants]]\nvariant = "{file}"\nplayers = 7\n'
    )


def test_two_stores_of_other_own_files_of_one_name_are_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the files are named from the working folder
    copy_of_standard(tmp_path / "a.toml", "mine")
    copy_of_standard(tmp_path / "b.toml", "mine", ('max_rounds = "n + 2"', "max_rounds = 9"))
    first = play(tmp_path, "first", own_file_spec("a.toml"))
    second = play(tmp_path, "second", own_file_spec("b.toml"))
    digests = {r["rules_digest"] for r in first} | {r["rules_digest"] for r in second}
    assert len(digests) == 2  # one per file, the same for every game of one
    with pytest.raises(LeaderboardError) as caught:
        board(first + second, tmp_path / "board")
    message = str(caught.value)
    assert message.startswith(
        "setup 'mine/7': its games were played by 2 rule sets under the variant name 'mine'"
    ), message
    for record in (first[0], second[0]):
        assert f"rules digest {record['rules_digest']}: " in message
        assert f"{record['experiment']} (spec {record['spec_hash']})" in message
    assert "give each own variant file a name of its own" in message.lower()
    assert not (tmp_path / "board" / "README.md").exists()


def test_one_own_file_in_two_stores_and_a_copy_of_bundled_rules_make_one_setup_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the files are named from the working folder
    copy_of_standard(tmp_path / "a.toml", "mine")
    first = play(tmp_path, "first", own_file_spec("a.toml"))
    second = play(tmp_path, "second", own_file_spec("a.toml", seed=4))
    assert len({r["rules_digest"] for r in first + second}) == 1
    # a copy of standard.toml that keeps its name and rules plays the bundled games
    same = ('max_rounds = "n + 2"', 'max_rounds = "n + 2"  # as bundled')
    copy_of_standard(tmp_path / "standard-copy.toml", edit=same)
    both = own_file_spec("standard") + '\n[[variants]]\nvariant = "standard-copy.toml"\n'
    bundled = play(tmp_path, "bundled", both + "players = 7\nlabel = 'copy'\n")
    assert not any("rules_digest" in r for r in bundled)
    readme = board(first + second + bundled, tmp_path / "board")
    assert "setups: `mine/7`, `standard/7`;" in readme


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("overrides", "mafia=1", "overrides: 'mafia=1' is not an object"),
        ("rules_digest", 7, "rules_digest: 7 is not"),
    ],
)
def test_a_hand_edited_rule_key_of_another_type_is_refused(
    key: str, value: Any, reason: str
) -> None:
    record = synthetic_records(1, strengths={"a": 0.0, "b": 0.0})[0]
    with pytest.raises(ValueError) as caught:
        parse_game({**record, key: value})
    assert str(caught.value).startswith(reason), caught.value


def recorded_before_digests(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`records` as a tournament wrote them before records kept ``rules_digest``."""
    return [{key: value for key, value in r.items() if key != "rules_digest"} for r in records]


def test_own_file_games_recorded_before_rules_digests_are_noted_alone_and_refused_beside_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records of an own file without a digest (older tournaments) are neither taken for
    the bundled rules nor pooled with other stores' games of the name: one store alone is
    rated with a note on the board, beside games of a digest or of another such store
    they are refused, named as rules not known."""
    monkeypatch.chdir(tmp_path)  # the files are named from the working folder
    copy_of_standard(tmp_path / "a.toml", "mine")
    copy_of_standard(tmp_path / "b.toml", "mine", ('max_rounds = "n + 2"', "max_rounds = 9"))
    first = play(tmp_path, "first", own_file_spec("a.toml"))
    second = play(tmp_path, "second", own_file_spec("b.toml"))
    old_first, old_second = recorded_before_digests(first), recorded_before_digests(second)

    store = tmp_path / "results" / "first" / "games.jsonl"
    store.write_text("".join(json.dumps(r) + "\n" for r in old_first), encoding="utf-8")
    leaderboard_command(store.parent, tmp_path / "alone")
    readme = (tmp_path / "alone" / "README.md").read_text(encoding="utf-8")
    assert "setups: `mine/7`;" in readme
    assert (
        "Rules not recorded: `mine/7` (games of a variant file of the experimenter's own, "
        "recorded before results kept its rules digest): whether all of them were played "
        "by one rule set is not checked" in readme
    ), readme
    assert "Rules not recorded" not in board(first, tmp_path / "new")  # a digest: no note

    with pytest.raises(LeaderboardError) as caught:
        board(old_first + second, tmp_path / "mixed")
    message = str(caught.value)
    assert message.startswith("setup 'mine/7': its games were played by 2 rule sets"), message
    assert (
        "no rules digest (an own variant file's games recorded before rules digests were "
        f"kept: their rules are not known): first (spec {first[0]['spec_hash']})" in message
    )
    assert f"rules digest {second[0]['rules_digest']}: second" in message
    assert "bundled rules" not in message
    assert "play it again (then its records carry the rules digest)" in message

    with pytest.raises(LeaderboardError) as caught:
        board(old_first + old_second, tmp_path / "old")
    message = str(caught.value)
    assert message.startswith(
        "setup 'mine/7': its games of 2 specs were played by rules their records do not say"
    ), message
    assert not (tmp_path / "mixed").exists() and not (tmp_path / "old").exists()
