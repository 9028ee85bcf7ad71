"""Experiment specs: clear errors naming file, key and reason; what the hash covers."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from tests.tournament.conftest import REPO, write_spec

from mafia_arena.experiments import SpecError, load_spec
from mafia_arena.experiments.plan import game_seed
from mafia_arena.experiments.spec import is_training_spec, read_spec

BASE = """
base_seed = 1
pool = ["random"]
[[variants]]
variant = "simple"
players = 5
"""


@pytest.mark.parametrize(
    ("body", "key", "reason"),
    [
        ("gmaes = 3\n" + BASE, "gmaes", "unknown key"),
        (BASE + "gmaes = 3\n", "variants.0.gmaes", "unknown key"),
        (
            BASE.replace('variant = "simple"', 'variant = "nope"'),
            "variants.0.variant",
            "unknown variant 'nope' (bundled: ",
        ),
        (BASE + "set = { mafai = 2 }\n", "variants.0.set.mafai", "unknown switch"),
        (BASE.replace("players = 5", "players = 99"), "variants.0.players", "outside"),
        (BASE.replace('["random"]', '["random", "randon"]'), "pool.1", "unknown agent"),
        (BASE.replace('["random"]', '["agents/none.toml"]'), "pool.0", "unknown agent"),
        (BASE.replace('["random"]', '["random", "random"]'), "pool", "listed twice"),
        (BASE + "seats = { random = 9 }\n", "variants.0.seats", "cannot fill"),
        (BASE + "seats = { heuristic = 1 }\n", "variants.0.seats.heuristic", "not an agent"),
        (BASE + 'seating = "fair"\n', "variants.0.seating", "random"),
        (BASE.replace("players = 5", "players = []"), "variants.0.players", "at least one"),
        (BASE + BASE.split("\n", 3)[3], "variants.1.label", "appears twice"),
        (BASE + "[concurrency]\nworkers = 0\n", "concurrency.workers", "greater than"),
        (BASE + "[concurrency]\nworkers = 9223372036854775807\n", "concurrency.workers", "1024"),
        (BASE + "[concurrency]\nmax_retries = 10000\n", "concurrency.max_retries", "100"),
        ("void_threshold = 1.5\n" + BASE, "void_threshold", "less than or equal to 1"),
        ("void_threshold = -0.1\n" + BASE, "void_threshold", "greater than or equal to 0"),
        ("void_threshold = true\n" + BASE, "void_threshold", "got true"),
        ('void_threshold = "20%"\n' + BASE, "void_threshold", 'got "20%"'),
        (
            BASE.replace("base_seed = 1", f"base_seed = {10**30}"),
            "base_seed",
            "less than or equal to 9007199254740992",
        ),
        (
            BASE.replace("base_seed = 1", "base_seed = -1"),
            "base_seed",
            "greater than or equal to 0",
        ),
    ],
)
def test_errors_name_file_key_and_reason(tmp_path: Path, body: str, key: str, reason: str) -> None:
    path = write_spec(tmp_path, "bad", body)
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert caught.value.source == str(path)
    assert caught.value.key == key
    assert reason in str(caught.value)


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text("name = \n")
    with pytest.raises(SpecError, match="not valid TOML"):
        load_spec(path)
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "missing.toml")


def test_matchups_get_consecutive_game_indices(tmp_path: Path) -> None:
    spec = load_spec(
        write_spec(
            tmp_path,
            "m",
            BASE.replace("players = 5", "players = [5, 6]")
            + 'games = 4\n[[variants]]\nvariant = "standard"\n'
            "players = 7\ngames = 2\n",
        )
    )
    assert [(m.label, m.first_index, m.games) for m in spec.matchups] == [
        ("simple-5p", 0, 4),
        ("simple-6p", 4, 4),
        ("standard-7p", 8, 2),
    ]
    assert spec.games_total == 10
    assert spec.matchup_of(9).label == "standard-7p"
    labels = [spec.matchup_of(i).label for i in range(10)]
    assert labels == ["simple-5p"] * 4 + ["simple-6p"] * 4 + ["standard-7p"] * 2
    for outside in (-1, 10):
        with pytest.raises(KeyError):
            spec.matchup_of(outside)


def test_hash_ignores_how_and_where_but_not_what(tmp_path: Path) -> None:
    base = load_spec(write_spec(tmp_path, "h", BASE)).spec_hash
    (tmp_path / "elsewhere").mkdir()
    moved = write_spec(
        tmp_path / "elsewhere",
        "h",
        'results = "r"\ntracking_uri = "sqlite:///x.db"\n'
        + BASE
        + "[concurrency]\nworkers = 7\nbatch_size = 1\n",
    )
    assert load_spec(moved).spec_hash == base
    assert load_spec(write_spec(tmp_path, "h", BASE + "games = 3\n")).spec_hash != base
    assert load_spec(write_spec(tmp_path, "h", BASE.replace("= 1", "= 2"))).spec_hash != base
    assert load_spec(write_spec(tmp_path, "h", BASE + "set = {mafia = 2}\n")).spec_hash != base


def test_void_threshold_is_hashed_unless_it_is_the_default(tmp_path: Path) -> None:
    base = load_spec(write_spec(tmp_path, "h", BASE))
    assert base.void_threshold == 0.2
    same = load_spec(write_spec(tmp_path, "h", "void_threshold = 0.2\n" + BASE))
    assert same.spec_hash == base.spec_hash
    strict = load_spec(write_spec(tmp_path, "h", "void_threshold = 0\n" + BASE))
    assert strict.void_threshold == 0.0 and strict.spec_hash != base.spec_hash
    lax = load_spec(write_spec(tmp_path, "h", "void_threshold = 0.5\n" + BASE))
    assert lax.spec_hash not in {base.spec_hash, strict.spec_hash}


def test_seeds_depend_on_base_seed_and_index_only() -> None:
    assert game_seed(1, 5) == game_seed(1, 5)
    assert len({game_seed(1, i) for i in range(1000)}) == 1000
    assert game_seed(1, 1) != game_seed(2, 0)


@pytest.mark.parametrize(
    "path", sorted((REPO / "experiments").glob("*.toml")), ids=lambda p: p.name
)
def test_reference_specs_are_valid_files(path: Path) -> None:
    if is_training_spec(tomllib.loads(path.read_text(encoding="utf-8"))):
        from mafia_arena.rl.spec import load_train_spec

        assert load_train_spec(path).name == path.stem
        return
    spec, _ = read_spec(path)
    assert spec.name == path.stem


@pytest.mark.parametrize("name", ["smoke", "quickstart", "scripted-baseline"])
def test_reference_specs_resolve(name: str) -> None:
    spec = load_spec(REPO / "experiments" / f"{name}.toml")
    assert spec.games_total == sum(m.games for m in spec.matchups) > 0
    assert spec.results_dir.as_posix() == f"results/{name}"


def test_quickstart_is_small_with_two_llm_seats() -> None:
    spec = load_spec(REPO / "experiments" / "quickstart.toml")
    llm = [m for m in spec.matchups if any(a.is_file for a in m.pool)]
    assert [(m.variant, m.players, m.games) for m in llm] == [("standard", 7, 2)]
    assert sum(llm[0].quotas.values()) == 2
    assert spec.games_total <= 16
