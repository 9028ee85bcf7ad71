"""Issue 18 items 5, 6, 7, 10 and 11: tournaments, the results store and MLflow at the
edges — a crashing game, resumes across changed code or inputs, MLflow runs that must
not stay RUNNING or merge, unreachable services, and the local cluster's address.

Real Ray, a real MLflow SQLite store in tmp; faults are injected with
``MAFIA_ARENA_FAULT`` or by breaking one MLflow call.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.host_key import with_host_key
from tests.tournament.conftest import REPO, write_spec
from tests.tournament.test_tournament import raw_indices, snapshot

from mafia_arena.experiments import (
    ResultsConflict,
    ServiceError,
    TournamentError,
    load_spec,
    run_tournament,
)
from mafia_arena.experiments.plan import game_seed
from mafia_arena.experiments.provenance import MANIFEST_NAME, code_provenance
from mafia_arena.experiments.summary import Summary

pytestmark = pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's

TWELVE = (
    'base_seed = 3\ngames = 12\npool = ["random"]\n'
    "[concurrency]\nbatch_size = 10\n"
    '[[variants]]\nvariant = "simple"\nplayers = 5\n'
)


def quiet(spec: Path, folder: Path, **kwargs: Any) -> Summary:
    return run_tournament(spec, results_dir=folder, progress=False, **kwargs)


# ----------------------------------------------------------------- item 5: isolation


def test_item5_one_crashing_game_stores_its_batch_and_is_retried_alone(
    ray_cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write_spec(tmp_path, "crash", TWELVE)
    reference = with_host_key(tmp_path / "reference")
    quiet(spec, reference, use_ray=False, track=False)

    results = with_host_key(tmp_path / "r")
    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [4]}))
    with pytest.raises(TournamentError) as caught:
        quiet(spec, results, track=False)
    assert list(caught.value.failed) == [4]
    assert "injected fault in game 4" in caught.value.failed[4]
    assert raw_indices(results) == [i for i in range(12) if i != 4]  # its batch of 10 too
    failed = [json.loads(line) for line in (results / "failed.jsonl").read_text().splitlines()]
    assert [(f["game_index"], f["seed"]) for f in failed] == [(4, game_seed(3, 4))]
    assert "injected fault" in failed[0]["error"]

    monkeypatch.delenv("MAFIA_ARENA_FAULT")  # the bug is fixed
    summary = quiet(spec, results, track=False)
    assert (summary.games_played, summary.games_skipped) == (1, 11) and summary.ok
    assert raw_indices(results) == list(range(12))
    assert snapshot(results) == snapshot(reference)


def test_item5_failed_jsonl_lists_only_games_still_not_stored_after_a_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write_spec(tmp_path, "retry", TWELVE)
    results = tmp_path / "r"
    failed_path = results / "failed.jsonl"

    def listed() -> list[int]:
        return [json.loads(line)["game_index"] for line in failed_path.read_text().splitlines()]

    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [4, 7]}))
    with pytest.raises(TournamentError):
        quiet(spec, results, use_ray=False, track=False)
    assert listed() == [4, 7]

    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [7]}))
    with pytest.raises(TournamentError) as caught:
        quiet(spec, results, use_ray=False, track=False)
    assert list(caught.value.failed) == [7] and listed() == [7]  # 4 was stored by the retry

    monkeypatch.delenv("MAFIA_ARENA_FAULT")
    summary = quiet(spec, results, use_ray=False, track=False)
    assert summary.ok and "0 failed" in str(summary)
    assert not failed_path.exists()  # agrees with the summary
    assert not list(results.glob("failed.jsonl*"))  # no temporary left behind


# ----------------------------------------------------------------- item 6: provenance


def agent_spec(folder: Path) -> tuple[Path, Path]:
    """A spec whose second matchup seats an LLM agent file (its one game crashes by
    fault injection, so no endpoint is needed); returns (spec, agent file)."""
    agents = folder / "agents"
    (agents / "prompts").mkdir(parents=True)
    (agents / "prompts" / "speak.txt").write_text("Say something, $seat.\n")
    agent = agents / "probe.toml"
    agent.write_text(
        'name = "probe"\nbackend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "m"\ntemperature = 0.5\n'
    )
    spec = write_spec(
        folder,
        "provenance",
        'base_seed = 5\ngames = 3\npool = ["random"]\n'
        '[[variants]]\nvariant = "simple"\nplayers = 5\n'
        f'[[variants]]\nvariant = "simple"\nplayers = 6\ngames = 1\npool = ["{agent}"]\n',
    )
    return spec, agent


def test_item6_records_and_manifest_carry_versions_and_input_digests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _agent = agent_spec(tmp_path)
    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [3]}))
    with pytest.raises(TournamentError):
        quiet(spec, tmp_path / "r", use_ray=False, track=False)
    manifest = json.loads((tmp_path / "r" / MANIFEST_NAME).read_text())
    code = code_provenance()
    assert manifest["code"] == code and code["version"] and code["digest"] is not None
    assert len(code["digest"]) == 16
    assert manifest["spec_hash"] == load_spec(spec).spec_hash
    names = set(manifest["inputs"])
    assert any(n.endswith("agents/probe.toml") for n in names)
    assert any(n.endswith("agents/prompts/speak.txt") for n in names)
    assert any(n.endswith("envs/simple.toml") for n in names)
    for record in snapshot(tmp_path / "r")[0]:
        assert record["code"] == code


def test_item6_resume_is_refused_across_a_changed_agent_file_and_prompt_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, agent = agent_spec(tmp_path)
    results = tmp_path / "r"
    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [3]}))
    with pytest.raises(TournamentError):
        quiet(spec, results, use_ray=False, track=False)
    stored = snapshot(results)

    agent.write_text(agent.read_text().replace("temperature = 0.5", "temperature = 0.9"))
    with pytest.raises(ResultsConflict) as caught:
        quiet(spec, results, use_ray=False, track=False)
    message = str(caught.value)
    assert "agents/probe.toml changed" in message and "--no-resume" in message
    assert "speak.txt" not in message
    agent.write_text(agent.read_text().replace("temperature = 0.9", "temperature = 0.5"))

    template = tmp_path / "agents" / "prompts" / "speak.txt"
    template.write_text("Speak briefly, $seat.\n")
    with pytest.raises(ResultsConflict, match=r"agents/prompts/speak\.txt changed"):
        quiet(spec, results, use_ray=False, track=False)
    assert snapshot(results) == stored  # nothing was played into the old store

    with pytest.raises(TournamentError):  # told to start over: old games archived
        quiet(spec, results, use_ray=False, track=False, resume=False)
    assert list(results.glob("games.jsonl.*.old"))
    assert raw_indices(results) == [0, 1, 2]


def test_item6_resume_is_refused_across_swapped_or_renamed_prompt_templates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _agent = agent_spec(tmp_path)
    prompts = tmp_path / "agents" / "prompts"
    speak, decide = prompts / "speak.txt", prompts / "decide.txt"
    decide.write_text("Choose well, $seat.\n")
    results = tmp_path / "r"
    monkeypatch.setenv("MAFIA_ARENA_FAULT", json.dumps({"crash_games": [3]}))
    with pytest.raises(TournamentError):
        quiet(spec, results, use_ray=False, track=False)
    stored = snapshot(results)
    texts = speak.read_text(), decide.read_text()

    decide.write_text(texts[0])  # the same two texts, each answering the other request
    speak.write_text(texts[1])
    with pytest.raises(ResultsConflict) as caught:
        quiet(spec, results, use_ray=False, track=False)
    message = str(caught.value)
    assert "agents/prompts/decide.txt changed" in message
    assert "agents/prompts/speak.txt changed" in message
    speak.write_text(texts[0])
    decide.write_text(texts[1])

    speak.rename(prompts / "speak_plea.txt")  # the same text, now only for pleas
    with pytest.raises(ResultsConflict) as caught:
        quiet(spec, results, use_ray=False, track=False)
    message = str(caught.value)
    assert "agents/prompts/speak.txt is no longer used" in message
    assert "agents/prompts/speak_plea.txt is new" in message
    assert snapshot(results) == stored  # nothing was played into the old store


def test_item6_an_agent_spec_hash_names_its_templates_and_not_where_they_lie(
    tmp_path: Path,
) -> None:
    spec, _agent = agent_spec(tmp_path / "a")
    prompts = tmp_path / "a" / "agents" / "prompts"
    (prompts / "decide.txt").write_text("Choose well, $seat.\n")
    before = load_spec(spec).spec_hash
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    moved = load_spec(tmp_path / "b" / spec.name)
    assert moved.spec_hash == before  # a stable name: relative to its prompts folder
    (prompts / "speak.txt").rename(prompts / "other.txt")
    (prompts / "decide.txt").rename(prompts / "speak.txt")
    (prompts / "other.txt").rename(prompts / "decide.txt")
    assert load_spec(spec).spec_hash != before


def test_item6_resume_is_refused_across_a_code_change_unless_forced(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, "code", TWELVE.replace("games = 12", "games = 2"))
    results = tmp_path / "r"
    quiet(spec, results, use_ray=False, track=False)
    manifest_path = results / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    manifest["code"] = {**manifest["code"], "digest": "0123456789abcdef", "commit": "feed"}
    manifest_path.write_text(json.dumps(manifest))  # as if played by an edited package
    with pytest.raises(ResultsConflict) as caught:
        quiet(spec, results, use_ray=False, track=False)
    message = str(caught.value)
    assert "source digest 0123456789abcdef ->" in message and "--force-resume" in message
    summary = quiet(spec, results, use_ray=False, track=False, force_resume=True)
    assert summary.ok and summary.games_skipped == 2
    assert json.loads(manifest_path.read_text())["code"] == code_provenance()


def test_item6_game_logs_carry_the_code_identity_of_the_records_and_manifest(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path, "logcode", TWELVE.replace("games = 12", "games = 2"))
    results = tmp_path / "r"
    quiet(spec, results, use_ray=False, track=False)
    manifest = json.loads((results / MANIFEST_NAME).read_text())
    records, _logs = snapshot(results)
    for record in records:
        header = json.loads((results / record["log_path"]).read_text().splitlines()[0])
        assert header["meta"]["code"] == record["code"] == manifest["code"]


def test_item6_a_game_played_by_code_changed_mid_run_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker imports the package when it starts, so a checkout edited while a
    tournament runs plays later games with other code than the driver and manifest
    name; the driver stamped them with its own identity and stored them. Injected
    here by giving the logs (stamped where the game is played) another digest."""
    import mafia_arena.runner.log as log_module

    spec = write_spec(tmp_path, "midrun", TWELVE.replace("games = 12", "games = 3"))
    results = tmp_path / "r"
    real = code_provenance()
    edited = {**real, "digest": "0123456789abcdef"}
    monkeypatch.setattr(log_module, "code_identity", lambda: edited)
    with pytest.raises(TournamentError) as caught:
        quiet(spec, results, use_ray=False, track=False)
    summary = caught.value.summary
    assert summary.games_stored == 0 and sorted(summary.failed) == [0, 1, 2]
    reason = summary.failed[0]
    assert "package changed while it ran" in reason and "0123456789abcdef" in reason
    assert not (results / "games.jsonl").exists() or not (results / "games.jsonl").read_text()
    monkeypatch.undo()  # the code is as the manifest says again: the games are played
    summary = quiet(spec, results, use_ray=False, track=False)
    assert summary.ok and summary.games_stored == 3
    records, _logs = snapshot(results)
    assert all(r["code"] == real for r in records)


def test_item6_resuming_a_store_without_a_manifest_warns_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path, "nomanifest", TWELVE.replace("games = 12", "games = 3"))
    results = tmp_path / "r"
    quiet(spec, results, use_ray=False, track=False)
    capsys.readouterr()
    (results / MANIFEST_NAME).unlink()  # as a store from before manifests
    summary = quiet(spec, results, use_ray=False, track=False)
    assert summary.ok and summary.games_skipped == 3
    lines = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(lines) == 1 and MANIFEST_NAME in lines[0] and "3 stored games" in lines[0]
    quiet(spec, results, use_ray=False, track=False)  # the manifest is back: no warning
    assert "warning" not in capsys.readouterr().err


# ----------------------------------------------------------------- item 7: MLflow


def test_item7_two_stores_of_one_spec_get_separate_parent_runs(
    tmp_path: Path, mlflow_uri: str
) -> None:
    spec = write_spec(tmp_path, "twostores", TWELVE.replace("games = 12", "games = 2"))
    first = quiet(spec, tmp_path / "a", use_ray=False, tracking_uri=mlflow_uri)
    second = quiet(spec, tmp_path / "b", use_ray=False, tracking_uri=mlflow_uri)
    again = quiet(spec, tmp_path / "a", use_ray=False, tracking_uri=mlflow_uri)
    assert first.parent_run_id != second.parent_run_id
    assert set(first.child_run_ids.values()).isdisjoint(second.child_run_ids.values())
    assert again.parent_run_id == first.parent_run_id


def test_item6_every_child_run_carries_the_code_identity_tags_of_its_parent(
    tmp_path: Path, mlflow_uri: str
) -> None:
    from mlflow import MlflowClient

    spec = write_spec(tmp_path, "childtags", TWELVE.replace("games = 12", "games = 2"))
    summary = quiet(spec, tmp_path / "r", use_ray=False, tracking_uri=mlflow_uri)
    client = MlflowClient(tracking_uri=mlflow_uri)
    keys = ("mafia_arena.version", "mafia_arena.git_commit", "mafia_arena.source_digest")
    assert summary.parent_run_id is not None
    parent = client.get_run(summary.parent_run_id).data.tags
    identity = {key: parent[key] for key in keys}
    assert all(identity.values())
    assert summary.child_run_ids
    for child_id in summary.child_run_ids.values():
        child = client.get_run(child_id).data.tags
        assert {key: child.get(key) for key in keys} == identity


def test_item7_runs_end_failed_when_the_final_logging_fails(
    tmp_path: Path, mlflow_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlflow import MlflowClient

    from mafia_arena.tracking.plots import PlotTally

    spec = write_spec(tmp_path, "finalfail", TWELVE.replace("games = 12", "games = 2"))

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(PlotTally, "draw", broken)
    with pytest.raises(OSError, match="disk full"):
        quiet(spec, tmp_path / "r", use_ray=False, tracking_uri=mlflow_uri)
    client = MlflowClient(tracking_uri=mlflow_uri)
    experiment = client.get_experiment_by_name("finalfail")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert runs and {r.info.status for r in runs} == {"FAILED"}


def test_item7_ctrl_c_during_the_final_logging_ends_the_runs_killed(
    tmp_path: Path, mlflow_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM) while the aggregates are logged ends the runs as it does
    while the games are played: KILLED, not FAILED (nothing failed)."""
    from mlflow import MlflowClient

    from mafia_arena.tracking.plots import PlotTally

    spec = write_spec(tmp_path, "finalstop", TWELVE.replace("games = 12", "games = 2"))

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(PlotTally, "draw", stopped)
    with pytest.raises(KeyboardInterrupt):
        quiet(spec, tmp_path / "r", use_ray=False, tracking_uri=mlflow_uri)
    client = MlflowClient(tracking_uri=mlflow_uri)
    experiment = client.get_experiment_by_name("finalstop")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert runs and {r.info.status for r in runs} == {"KILLED"}


def test_item7_ctrl_c_while_the_executor_closes_ends_the_runs_killed(
    tmp_path: Path, mlflow_uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the last game, while the executor is closed (a local Ray's shutdown
    takes seconds), ends the runs KILLED: it passed the games' handler, and the runs
    stayed RUNNING for good."""
    from mlflow import MlflowClient

    from mafia_arena.experiments import Interrupted
    from mafia_arena.experiments.executors import InProcessExecutor

    def stopped(self: InProcessExecutor) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(InProcessExecutor, "close", stopped)
    spec = write_spec(tmp_path, "closestop", TWELVE.replace("games = 12", "games = 2"))
    with pytest.raises(Interrupted):
        quiet(spec, tmp_path / "r", use_ray=False, tracking_uri=mlflow_uri)
    client = MlflowClient(tracking_uri=mlflow_uri)
    experiment = client.get_experiment_by_name("closestop")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert runs and {r.info.status for r in runs} == {"KILLED"}


def test_item7_games_done_is_fresh_and_a_copied_folder_writes_into_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlflow import MlflowClient

    original = tmp_path / "original"
    original.mkdir()
    spec = write_spec(original, "copied", TWELVE.replace("games = 12", "games = 4"))
    monkeypatch.chdir(original)
    first = quiet(spec, Path("results"), use_ray=False, tracking_uri="sqlite:///mlflow.db")
    client = MlflowClient(tracking_uri=f"sqlite:///{original / 'mlflow.db'}")
    assert first.parent_run_id is not None
    assert client.get_run(first.parent_run_id).data.metrics["games_done"] == 4
    before = {p: p.stat().st_mtime_ns for p in (original / "mlruns").rglob("*") if p.is_file()}

    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    monkeypatch.chdir(copy)
    again = quiet(
        copy / "copied.toml", Path("results"), use_ray=False, tracking_uri="sqlite:///mlflow.db"
    )  # resumed in the copy: nothing to play, the runs' artifacts logged again
    assert again.parent_run_id == first.parent_run_id and again.games_skipped == 4
    after = {p: p.stat().st_mtime_ns for p in (original / "mlruns").rglob("*") if p.is_file()}
    assert after == before  # the original folder was not written
    copied = copy / "mlruns" / first.parent_run_id / "artifacts"
    assert (copied / "tables" / "estimates.csv").stat().st_mtime_ns > max(before.values())


def test_item7_a_copied_folder_reads_its_artifacts_through_mlflow_after_the_original_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlflow import MlflowClient

    original = tmp_path / "original"
    original.mkdir()
    spec = write_spec(original, "moved", TWELVE.replace("games = 12", "games = 3"))
    monkeypatch.chdir(original)
    first = quiet(spec, Path("results"), use_ray=False, tracking_uri="sqlite:///mlflow.db")
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    shutil.rmtree(original)
    monkeypatch.chdir(copy)
    quiet(copy / "moved.toml", Path("results"), use_ray=False, tracking_uri="sqlite:///mlflow.db")

    client = MlflowClient(tracking_uri=f"sqlite:///{copy / 'mlflow.db'}")
    assert first.parent_run_id is not None
    run = client.get_run(first.parent_run_id)
    assert run.info.artifact_uri.startswith(str(copy / "mlruns"))
    experiment = client.get_experiment(run.info.experiment_id)
    assert experiment.artifact_location.startswith(str(copy / "mlruns"))
    names = {a.path for a in client.list_artifacts(first.parent_run_id, "tables")}
    assert "tables/estimates.csv" in names
    local = client.download_artifacts(first.parent_run_id, "tables/estimates.csv", str(tmp_path))
    assert Path(local).read_text(encoding="utf-8").startswith("name,")


def test_item7_rerooting_rewrites_only_locations_of_the_folder_the_store_moved_from(
    tmp_path: Path,
) -> None:
    from mlflow import MlflowClient

    from mafia_arena.tracking.artifact_roots import reroot_local_store

    original = tmp_path / "original"
    original.mkdir()
    client = MlflowClient(tracking_uri=f"sqlite:///{original / 'mlflow.db'}")
    ours = client.create_experiment("ours", artifact_location=str(original / "mlruns"))
    custom = client.create_experiment("custom", artifact_location=str(tmp_path / "shared"))
    run = client.create_run(ours).info.run_id
    other = client.create_run(custom).info.run_id
    client.log_text(run, "a,b\n", "tables/estimates.csv")
    assert reroot_local_store(original / "mlflow.db") == 0  # not moved: nothing to do

    moved = tmp_path / "moved"
    shutil.move(original, moved)
    db = moved / "mlflow.db"
    assert reroot_local_store(db) > 0
    assert reroot_local_store(db) == 0  # idempotent
    client = MlflowClient(tracking_uri=f"sqlite:///{db}")
    assert client.get_experiment(ours).artifact_location == str(moved / "mlruns")
    assert client.get_run(run).info.artifact_uri == str(moved / "mlruns" / run / "artifacts")
    assert client.get_experiment(custom).artifact_location == str(tmp_path / "shared")
    assert client.get_run(other).info.artifact_uri.startswith(str(tmp_path / "shared"))
    assert [a.path for a in client.list_artifacts(run, "tables")] == ["tables/estimates.csv"]


# ----------------------------------------------------------------- item 10: services


def test_item10_unreachable_services_fail_fast_before_anything_is_written(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path, "services", TWELVE)
    results = tmp_path / "r"
    with socket_closed_port() as port:
        with pytest.raises(ServiceError, match="not reachable"):
            quiet(spec, results, use_ray=False, tracking_uri=f"http://127.0.0.1:{port}")
        assert not results.exists()
        with pytest.raises(ServiceError, match=r"Ray cluster 127\.0\.0\.1:\d+ is not reachable"):
            quiet(spec, results, address=f"127.0.0.1:{port}", track=False)
        assert not results.exists()
    with pytest.raises(ServiceError, match="expected host:port"):
        quiet(spec, results, address="nowhere", track=False)
    with pytest.raises(ServiceError, match="expected host:port"):
        quiet(spec, results, address="localhost:³", track=False)  # a digit int() refuses
    with pytest.raises(ServiceError, match="expected host:port"):
        quiet(spec, results, address="localhost:" + "9" * 5000, track=False)
    assert not results.exists()


@pytest.fixture
def short_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    from mafia_arena.experiments import services

    monkeypatch.setattr(services, "TIMEOUT_S", 2.0)


def test_item10_a_web_server_that_is_not_mlflow_fails_the_check_before_anything_is_written(
    tmp_path: Path, short_timeouts: None
) -> None:
    spec = write_spec(tmp_path, "services", TWELVE)
    results = tmp_path / "r"
    with plain_http_server(tmp_path) as port:
        with pytest.raises(ServiceError, match="is not an MLflow tracking server"):
            quiet(spec, results, use_ray=False, tracking_uri=f"http://127.0.0.1:{port}")
        assert not results.exists()
        done = subprocess.run(
            [
                *(sys.executable, "-m", "mafia_arena.cli", "tournament", str(spec), "--no-ray"),
                *("--results", str(results), "--tracking-uri", f"http://127.0.0.1:{port}"),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            env=cli_env(),
        )
    assert done.returncode == 2, done.stderr
    message = done.stderr.strip()
    assert "is not an MLflow tracking server" in message and "HTTP 404" in message
    assert "Traceback" not in message and len(message.splitlines()) == 1
    assert not results.exists() and not (tmp_path / "mlflow.db").exists()


@pytest.mark.timeout(120)  # a probe without the check's timeout hangs on the silent port
def test_item10_a_tcp_listener_that_is_not_ray_fails_the_check_within_the_timeout(
    tmp_path: Path, short_timeouts: None
) -> None:
    """The probe gives up at the check's own timeout (`short_timeouts`: 2 s), which the
    refusal names, rather than waiting on a port that never answers."""
    import socket

    spec = write_spec(tmp_path, "services", TWELVE)
    results = tmp_path / "r"
    with socket.socket() as listener:  # accepts connections, never speaks gRPC
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
            with pytest.raises(ServiceError) as refused:
                quiet(spec, results, address=address, track=False)
            message = str(refused.value)
            assert "accepts connections but is not a Ray" in message, message
            assert "waited at most 2 s" in message, message
            assert not results.exists()


def test_item10_a_real_ray_gcs_passes_the_check(ray_cluster: str) -> None:
    from mafia_arena.experiments.services import check_ray_address

    check_ray_address(ray_cluster, timeout_s=5)  # raises if the probe misreads a real GCS


class plain_http_server:
    """``python -m http.server`` on a free loopback port, serving an empty folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "www"

    def __enter__(self) -> int:
        import socket
        import time

        self.folder.mkdir()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120  # a hang guard for a start on a loaded machine
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return port
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("http.server did not start")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def cli_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("MLFLOW_TRACKING_URI", None)
    return env


class socket_closed_port:
    """A loopback port nobody listens on (bound, then closed)."""

    def __enter__(self) -> int:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        return None


# ----------------------------------------------------------------- item 11: loopback


def test_item11_the_local_cluster_listens_on_loopback_only(tmp_path: Path) -> None:
    code = (
        "import json, ray\n"
        "from mafia_arena.experiments.executors import RayExecutor\n"
        "executor = RayExecutor(address=None, num_cpus=1, max_retries=0)\n"
        "print(json.dumps({'gcs': ray.get_runtime_context().gcs_address,\n"
        "    'nodes': [n['NodeManagerAddress'] for n in ray.nodes()]}))\n"
        "executor.close()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["gcs"].startswith("127.0.0.1:")
    assert seen["nodes"] == ["127.0.0.1"]


def test_item6_the_files_an_agent_file_names_are_hashed_with_it(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path,
        "policy",
        'pool = ["heuristic", "agents/rl-town-votes.toml"]\n'
        '[[variants]]\nvariant = "standard"\nplayers = 7\ngames = 1\n',
    )
    inputs = load_spec(spec).inputs
    assert any(name.endswith("agents/rl-town-votes.toml") for name in inputs)
    assert any(name.endswith("agents/policies/rl-town-votes.npz") for name in inputs)
    # a policy renders no prompt: editing a template leaves its tournaments as they are
    assert not any("agents/prompts/" in name for name in inputs)
