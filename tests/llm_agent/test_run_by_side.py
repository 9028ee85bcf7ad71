"""`mafia-arena run` with a scripted side and an LLM side (agent file): it used to
take the side-by-side seat for a synchronous agent and call `decide` on the LLM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.llm.fake_openai import FakeOpenAI
from typer.testing import CliRunner

from mafia_arena.cli import app

REPO = Path(__file__).resolve().parents[2]


def _run(agents: str, *extra: str) -> dict:
    result = CliRunner().invoke(
        app,
        ["run", "--variant", "simple", "--players", "5", "--agents", agents, "--json", *extra],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_run_mixes_a_scripted_side_and_an_llm_file(fake: FakeOpenAI, tmp_path: Path) -> None:
    agent_file = tmp_path / "fake-llm.toml"
    agent_file.write_text(
        f'name = "fake-llm"\nbackend = "openai"\nbase_url = "{fake.base_url}"\n'
        'model = "fake-model"\nmax_tokens = 32\ntimeout_s = 30.0\nmax_retries = 1\n'
        "retry_backoff_s = 0.01\nretry_backoff_max_s = 0.02\nmax_concurrency = 2\n",
        encoding="utf-8",
    )
    summary = _run(f"town=heuristic,mafia={agent_file}", "--games", "2")
    assert sum(row["wins"] for row in summary["win_rates"].values()) == 2
    assert fake.requests, "the mafia seat was played by the LLM agent"


@pytest.mark.llm
def test_run_with_the_bundled_local_model_on_the_mafia_side(local_server: object) -> None:
    """The exact command of the report, one game with the bundled SmolLM2."""
    summary = _run("town=heuristic,mafia=agents/local-smollm2.toml", "--games", "1")
    assert sum(row["wins"] for row in summary["win_rates"].values()) == 1
