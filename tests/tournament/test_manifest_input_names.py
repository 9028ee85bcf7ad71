"""A results folder's manifest names its input files by names that travel.

The bundled variants are ``envs/<file>`` wherever the package lies, a file of the
project by its path from the working folder or the spec's repository, and a file
outside both by its file name after ``...``: no name of the manifest is a path of the
machine that played, nor changes with the folder the spec happens to lie in. A results
folder whose older manifest named its inputs otherwise (absolute paths, names from
another folder) resumes as before, and a refused resume reports a changed file as
changed, not as one gone and one new. The tournaments here are real (in-process).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import REPO, write_spec

from mafia_arena.experiments import ResultsConflict, run_tournament
from mafia_arena.experiments.provenance import MANIFEST_NAME, file_digest, input_differences
from mafia_arena.experiments.spec import load_spec

OPTIONS: dict[str, Any] = {"use_ray": False, "track": False, "progress": False}


def own_variant(path: Path, name: str) -> Path:
    """The bundled simple rules under a `name` of their own, at `path`."""
    text = (REPO / "envs" / "simple.toml").read_text(encoding="utf-8")
    assert text.count('name = "simple"') == 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace('name = "simple"', f'name = "{name}"'), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``project/specs/`` for the spec (the project is the spec's repository), the
    project's own variant ``project/my/mine.toml``, one outside it
    (``shared/theirs.toml``), and a working folder that is neither."""
    own_variant(tmp_path / "project" / "my" / "mine.toml", "mine")
    own_variant(tmp_path / "shared" / "theirs.toml", "theirs")
    (tmp_path / "project" / "specs").mkdir()
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path / "project"


def spec_of(project: Path, games: int = 1) -> Path:
    outside = project.parent / "shared" / "theirs.toml"
    body = f'base_seed = 3\npool = ["random", "heuristic"]\ngames = {games}\n'
    for variant in ("simple", "my/mine.toml", str(outside)):
        body += f'[[variants]]\nvariant = "{variant}"\nplayers = 5\n'
    return write_spec(project / "specs", "names", body)


def test_the_manifest_names_no_path_of_the_machine(project: Path) -> None:
    results = with_host_key(project.parent / "results")
    run_tournament(spec_of(project), results_dir=results, **OPTIONS)
    text = (results / MANIFEST_NAME).read_text(encoding="utf-8")
    assert json.loads(text)["inputs"] == {
        "envs/simple.toml": file_digest(REPO / "envs" / "simple.toml"),
        "my/mine.toml": file_digest(project / "my" / "mine.toml"),
        ".../theirs.toml": file_digest(project.parent / "shared" / "theirs.toml"),
    }
    assert str(project.parent) not in text and str(REPO) not in text


def test_an_older_manifests_names_resume_and_a_change_is_named_once(project: Path) -> None:
    """The folder came from another machine, whose manifest named the inputs by its
    paths: it resumes and is named as this version names files from then on; once the
    project's variant file is edited, the refusal names that file as changed."""
    spec, results = spec_of(project, games=2), with_host_key(project.parent / "results")
    run_tournament(spec, results_dir=results, **OPTIONS)
    path = results / MANIFEST_NAME
    names = json.loads(path.read_text(encoding="utf-8"))["inputs"]
    elsewhere = "/home/someone/project/"  # each file named from a folder of that machine
    old_names = {name: elsewhere + name.removeprefix(".../") for name in names}

    def played_elsewhere() -> None:
        """The last game not yet played, the manifest as the other machine wrote it."""
        lines = (results / "games.jsonl").read_text(encoding="utf-8").splitlines(True)
        (results / "games.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
        sorted((results / "logs").glob("game-*.jsonl"))[-1].unlink()
        data = json.loads(path.read_text(encoding="utf-8"))
        data["inputs"] = {old_names[name]: digest for name, digest in names.items()}
        path.write_text(json.dumps(data), encoding="utf-8")

    played_elsewhere()
    summary = run_tournament(spec, results_dir=results, **OPTIONS)
    assert summary.ok
    assert json.loads(path.read_text(encoding="utf-8"))["inputs"] == names

    played_elsewhere()
    mine = project / "my" / "mine.toml"
    mine.write_text(mine.read_text(encoding="utf-8") + "# a note\n", encoding="utf-8")
    with pytest.raises(ResultsConflict) as refused:
        run_tournament(spec, results_dir=results, **OPTIONS)
    message = str(refused.value)
    assert (
        f": my/mine.toml changed (content {names['my/mine.toml']} -> {file_digest(mine)}). "
        in message
    ), message
    assert "no longer used" not in message and " is new" not in message, message


def test_a_projects_template_of_a_bundled_name_is_named_as_the_projects(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's own ``agents/prompts/speak.txt`` (beside its LLM agent file) has
    the bundled template's name: the bundled one keeps it and the project's is named by
    its path from the project, marked ``./``, not numbered as some second file."""
    monkeypatch.chdir(project)
    (project / "agents" / "prompts").mkdir(parents=True)
    (project / "agents" / "mine.toml").write_text(
        'name = "mine"\nbackend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n',
        encoding="utf-8",
    )
    own = project / "agents" / "prompts" / "speak.txt"
    own.write_text("Speak now, {name}.\n", encoding="utf-8")
    spec = write_spec(
        project / "specs",
        "own-template",
        'pool = ["agents/mine.toml", "random"]\ngames = 1\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n',
    )
    inputs = load_spec(spec).inputs
    speak = {name: digest for name, digest in inputs.items() if name.endswith("/speak.txt")}
    assert speak == {
        "agents/prompts/speak.txt": file_digest(REPO / "agents" / "prompts" / "speak.txt"),
        "./agents/prompts/speak.txt": file_digest(own),
    }
    assert not [name for name in inputs if name.endswith(")")], inputs


def test_names_of_one_file_are_paired_and_other_files_are_not() -> None:
    old = {"inputs": {"/home/a/envs/simple.toml": "1", "x/agents/p.toml": "2", "q.toml": "3"}}
    new = {"inputs": {"envs/simple.toml": "1", "agents/p.toml": "4", "r.toml": "3"}}
    assert input_differences(old, new) == [
        "agents/p.toml changed (content 2 -> 4)",
        "q.toml is no longer used",
        "r.toml is new",
    ]
