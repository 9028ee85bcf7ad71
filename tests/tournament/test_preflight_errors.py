"""A tournament given a wrong value fails before it writes anything, in one paragraph that
names where the value came from (the option, the spec key or the environment variable),
with exit code 2 and no traceback.

The real command line runs in a subprocess on a one-game copy of `smoke.toml`, in a
temporary working folder, so "nothing was written" is checked on a real folder.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.tournament.conftest import REPO, SMOKE

from mafia_arena.experiments import SpecError, load_spec

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's


def tiny_smoke(folder: Path, extra: str = "") -> Path:
    """`smoke.toml` with one game per matchup (and `extra` top-level keys) in `folder`."""
    text = SMOKE.read_text(encoding="utf-8").replace("games = 6", "games = 1")
    spec = folder / "smoke.toml"
    spec.write_text(extra + text, encoding="utf-8")
    return spec


def mafia_arena(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed command line, run as a user runs it, in `cwd`."""
    environ = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    environ["PYTHONPATH"] = str(REPO / "src") + os.pathsep + environ.get("PYTHONPATH", "")
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "mafia_arena.cli", *args],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_user_error(done: subprocess.CompletedProcess[str], *parts: str) -> str:
    """Exit code 2, one line on stderr holding every part, no traceback."""
    message = done.stderr.strip()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in message and len(message.splitlines()) == 1, message
    for part in parts:
        assert part in message, (part, message)
    return message


# ------------------------------------------------------------- the MLflow tracking URI

TRACKING_CASES = {
    "option-unknown-scheme": (
        ["--tracking-uri", "foo://bar"],
        {},
        "",
        ("--tracking-uri foo://bar", "scheme foo:"),
    ),
    "option-plain-folder": (
        ["--tracking-uri", "plain-folder"],
        {},
        "",
        ("--tracking-uri plain-folder", "file store"),
    ),
    "spec-key-plain-folder": (
        [],
        {},
        'tracking_uri = "mlruns"\n',
        ("smoke.toml: tracking_uri", '"mlruns"', "file store"),
    ),
    "option-sqlite-folder": (
        ["--tracking-uri", "sqlite:///."],
        {},
        "",
        ("--tracking-uri sqlite:///.", "is a folder, not a database file"),
    ),
    "option-sqlite-other-file": (
        ["--tracking-uri", "sqlite:///smoke.toml"],
        {},
        "",
        ("--tracking-uri sqlite:///smoke.toml", "is not an SQLite database"),
    ),
    "environment-variable": (
        [],
        {"MLFLOW_TRACKING_URI": "foo://x"},
        "",
        ("MLFLOW_TRACKING_URI=foo://x", "environment variable", "scheme foo:"),
    ),
}


@pytest.mark.parametrize("case", list(TRACKING_CASES))
def test_an_unusable_tracking_uri_is_refused_before_anything_is_written(
    tmp_path: Path, case: str
) -> None:
    options, env, extra, parts = TRACKING_CASES[case]
    spec = tiny_smoke(tmp_path, extra)
    done = mafia_arena(["tournament", spec.name, "--no-ray", *options], tmp_path, env)
    assert_user_error(done, *parts, "--no-tracking", "Nothing was written")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["smoke.toml"]  # no results, no store


def test_the_tracking_check_still_accepts_a_sqlite_store(tmp_path: Path) -> None:
    from mafia_arena.experiments.services import check_tracking

    check_tracking(f"sqlite:///{tmp_path / 'mlflow.db'}", origin="--tracking-uri x")
    assert not (tmp_path / "mlflow.db").exists()  # checked, not created


# ------------------------------------------------------------- the results folder


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs Linux's /proc")
def test_a_results_folder_that_cannot_be_created_names_the_option(tmp_path: Path) -> None:
    spec = tiny_smoke(tmp_path)
    args = ["tournament", spec.name, "--no-ray", "--no-tracking", "--results", "/proc/forbidden"]
    message = assert_user_error(mafia_arena(args, tmp_path), "/proc/forbidden: ", "(--results)")
    assert "cannot be made or written" in message
    assert "cannot read" not in message


def test_a_results_folder_whose_name_is_too_long_names_the_option(tmp_path: Path) -> None:
    spec = tiny_smoke(tmp_path)
    name = "r" * 300  # longer than a file name may be
    args = ["tournament", spec.name, "--no-ray", "--no-tracking", "--results", name]
    done = mafia_arena(args, tmp_path)
    assert_user_error(done, f"{name}: ", os.strerror(errno.ENAMETOOLONG), "(--results)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["smoke.toml"]


def test_a_results_folder_under_a_file_names_the_spec_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mafia_arena.experiments import ServiceError, run_tournament

    monkeypatch.chdir(tmp_path)  # `results` is relative to the working folder
    (tmp_path / "taken").write_text("a file, not a folder\n")
    spec = tiny_smoke(tmp_path, 'results = "taken/results"\n')
    with pytest.raises(ServiceError, match=r"^taken/results: .*\(.*smoke\.toml: results\)"):
        run_tournament(spec, use_ray=False, track=False, progress=False)


# ------------------------------------------------------------- the spec itself


@pytest.mark.parametrize(
    ("command", "path", "kind"),
    [
        ("tournament", "envs/standard.toml", "a variant file"),
        ("leaderboard", "agents/rl-town-votes.toml", "an agent file"),
    ],
)
def test_a_variant_or_agent_file_given_as_the_spec_is_named_in_one_line(
    tmp_path: Path, command: str, path: str, kind: str
) -> None:
    done = mafia_arena([command, str(REPO / path), "--no-ray", "--no-tracking"], tmp_path)
    assert_user_error(done, path, f"this is {kind}, not an experiment spec")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("envs/palermo.toml", "a variant file"),
        ("envs/simple.toml", "a variant file"),
        ("agents/local-smollm2.toml", "an agent file"),
        ("experiments/rl-town-votes.toml", "a training spec"),
    ],
)
def test_other_project_files_are_recognised_as_not_a_spec(path: str, kind: str) -> None:
    with pytest.raises(SpecError) as caught:
        load_spec(REPO / path)
    assert caught.value.reason.startswith(f"this is {kind}, not an experiment spec")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("written", ["vars/nope.toml", "nope.toml", "vars/nope"])
def test_a_variant_written_as_a_missing_path_is_no_such_file(tmp_path: Path, written: str) -> None:
    spec = tiny_smoke(tmp_path)
    spec.write_text(spec.read_text().replace('"simple"', f'"{written}"'))
    with pytest.raises(SpecError) as caught:
        load_spec(spec)
    assert caught.value.key == "variants.0.variant"
    assert caught.value.reason.startswith(f"no such file {written!r}")
    assert "unknown variant" not in caught.value.reason


def test_a_variant_name_that_is_not_bundled_is_still_an_unknown_variant(tmp_path: Path) -> None:
    spec = tiny_smoke(tmp_path)
    spec.write_text(spec.read_text().replace('"simple"', '"nope"'))
    with pytest.raises(SpecError, match=r"unknown variant 'nope' \(bundled: "):
        load_spec(spec)
