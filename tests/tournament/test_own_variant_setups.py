"""A tournament never counts two rule sets as one variant.

Records name a game's variant by its file's ``name``, and the leaderboard pools the
games of one name and player count as one setup (``standard/7``). So a spec entry whose
file bears the name of other rules (a changed copy of ``standard.toml`` that keeps
``name = "standard"``, or two files of one new name) is refused before a game is played,
in one line naming the spec, the key and what to do; a file whose rules are the same
(only a comment more) is the same variant and is taken.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.tournament.test_preflight_errors import assert_user_error, mafia_arena

from mafia_arena.experiments import SpecError, load_spec
from mafia_arena.rules.loader import envs_dir

LONGER = ('max_rounds = "n + 2"', 'max_rounds = "n + 20"')


def copy_of_standard(path: Path, name: str = "standard", edit: tuple[str, str] = LONGER) -> Path:
    """``standard.toml`` named `name`, with one (old, new) edit, at `path`."""
    text = (envs_dir() / "standard.toml").read_text()
    assert edit[0] in text and 'name = "standard"' in text
    path.write_text(text.replace(*edit).replace('name = "standard"', f'name = "{name}"'))
    return path


def spec(folder: Path, *variants: str) -> Path:
    """A one-game spec of `variants` (names or paths) at 7 players, in `folder`; the
    matchups are labelled by their entry (``entry-0`` ...)."""
    entries = "".join(
        f'\n[[variants]]\nvariant = "{v}"\nplayers = 7\nlabel = "entry-{i}"\n'
        for i, v in enumerate(variants)
    )
    path = folder / "spec.toml"
    path.write_text('name = "own"\ngames = 1\npool = ["random"]\nresults = "results"\n' + entries)
    return path


def test_a_changed_copy_keeping_the_bundled_name_is_refused_before_a_game(
    tmp_path: Path,
) -> None:
    copy_of_standard(tmp_path / "standard-copy.toml")
    spec(tmp_path, "standard", "standard-copy.toml")
    done = mafia_arena(["tournament", "spec.toml", "--no-ray", "--no-tracking"], tmp_path)
    assert_user_error(
        done,
        "spec.toml: variants.1.variant: standard-copy.toml is named 'standard', as the "
        "bundled envs/standard.toml is, but their rules differ",
        "(standard/7 on a leaderboard)",
        "give the file a name of its own",
        "a label names only the matchup",
    )
    assert not (tmp_path / "results").exists()


def test_the_copy_alone_is_refused_and_a_copy_of_the_same_rules_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the files are named from the working folder
    copy_of_standard(tmp_path / "standard-copy.toml")
    with pytest.raises(SpecError) as caught:
        load_spec(spec(tmp_path, "standard-copy.toml"))
    assert caught.value.key == "variants.0.variant"
    assert "as the bundled envs/standard.toml is" in caught.value.reason
    note = ('max_rounds = "n + 2"', 'max_rounds = "n + 2"  # as bundled')
    copy_of_standard(tmp_path / "standard-copy.toml", edit=note)
    experiment = load_spec(spec(tmp_path, "standard", "standard-copy.toml"))
    assert [m.variant for m in experiment.matchups] == ["standard", "standard"]


def test_two_files_of_one_new_name_and_other_rules_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the files are named from the working folder
    copy_of_standard(tmp_path / "a.toml", "longer")
    copy_of_standard(tmp_path / "b.toml", "longer", ('max_rounds = "n + 2"', "max_rounds = 9"))
    with pytest.raises(SpecError) as caught:
        load_spec(spec(tmp_path, "a.toml", "b.toml"))
    assert caught.value.key == "variants.1.variant"
    assert caught.value.reason.startswith(
        "b.toml is named 'longer', as variants.0.variant (a.toml) is, but their rules differ"
    ), caught.value.reason
    (tmp_path / "b.toml").write_text((tmp_path / "a.toml").read_text() + "# the same rules\n")
    assert len(load_spec(spec(tmp_path, "a.toml", "b.toml")).matchups) == 2
