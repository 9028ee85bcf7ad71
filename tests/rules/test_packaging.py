"""A wheel carries the bundled data files: an installed copy, far from any checkout,
plays every bundled variant and builds an LLM player from the default prompt templates.

The wheel is built once per module from a copy of the sources in a temporary folder (so
the build writes nothing into the checkout) and installed without dependencies into a
fresh virtual environment without the system's site packages. The dependencies
(pydantic, ...) come from this interpreter's site packages, appended after the fresh
environment's own through a `.pth` file, so the only `mafia_arena` importable is the
installed wheel's. The games run from a folder outside the checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.llm.fake_openai import FakeOpenAI, fake_agent_definition
from tests.llm_agent.support import auto_fake_with_fresh_breakers

from mafia_arena.agents.llm_agent import LLMAgent

ROOT = Path(__file__).resolve().parents[2]
PLAY_EVERY_VARIANT = """
import json, sys
from pathlib import Path
import mafia_arena
from mafia_arena.agents import RandomAgent
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.rules.loader import envs_dir
from mafia_arena.runner import play_match_sync

played = {}
for name in available_variants():
    variant = load_variant(name)
    players = max(variant.min_players, 8)
    result = play_match_sync(variant, [RandomAgent() for _ in range(players)], 1)
    played[name] = result.log.result is not None
print(json.dumps({"package": mafia_arena.__file__, "envs": str(envs_dir()), "played": played}))
"""


PLAY_WITH_AN_LLM_AGENT = """
import asyncio, json
import mafia_arena
from mafia_arena.agents import RandomAgent
from mafia_arena.agents.llm_loading import load_llm_agent
from mafia_arena.agents.llm_prompts import default_prompts_dir
from mafia_arena.rules import load_variant
from mafia_arena.runner import play_match

agent = load_llm_agent("agents/probe.toml")
seats = [agent] + [RandomAgent() for _ in range(4)]
# a fixed host key fixes the random seats' seat seeds: with a fresh one, about a third
# of the games kill the LLM seat on the first night, before it is ever asked anything
host_key = bytes([1]) * 32
result = asyncio.run(play_match(load_variant("simple"), seats, 1, host_key=host_key))
print(json.dumps({
    "package": mafia_arena.__file__,
    "prompts": str(default_prompts_dir()),
    "versions": dict(agent.templates.versions),
    "finished": result.log.result is not None,
}))
"""

PROBE_AGENT = """
name = "probe"
backend = "openai"
base_url = "{base_url}"
model = "fake-model"
max_tokens = 32
timeout_s = 30.0
max_retries = 0
"""


@dataclass(frozen=True)
class Installed:
    """The installed wheel: its environment, its interpreter, and a folder outside the
    checkout to run it from."""

    env_dir: Path
    python: Path
    outside: Path

    def run(self, script: str) -> dict[str, Any]:
        """Run ``script`` with the installed interpreter from ``outside``; its last
        output line, read as JSON."""
        run = subprocess.run(
            [str(self.python), "-c", script],
            check=False,
            capture_output=True,
            text=True,
            cwd=self.outside,
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": "", "HOME": str(self.outside)},
        )
        assert run.returncode == 0, run.stderr
        report: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
        return report


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    tmp_path = tmp_path_factory.mktemp("packaging")
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("src", "envs", "agents/prompts"):
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(source)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("mafia_arena-*.whl")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=False, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        cwd=tmp_path,
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    return Installed(env_dir, python, outside)


def test_an_installed_wheel_plays_every_bundled_variant(installed: Installed) -> None:
    report = installed.run(PLAY_EVERY_VARIANT)
    assert Path(report["package"]).is_relative_to(installed.env_dir)
    assert Path(report["envs"]) == Path(report["package"]).parent / "envs"
    expected = sorted(p.stem for p in (ROOT / "envs").glob("*.toml"))
    assert sorted(report["played"]) == expected
    assert all(report["played"].values())


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    yield from auto_fake_with_fresh_breakers()


def test_an_installed_wheel_plays_an_llm_agent_with_the_default_templates(
    installed: Installed, fake: FakeOpenAI
) -> None:
    agents = installed.outside / "agents"
    agents.mkdir(exist_ok=True)
    (agents / "probe.toml").write_text(PROBE_AGENT.format(base_url=fake.base_url))
    report = installed.run(PLAY_WITH_AN_LLM_AGENT)
    package = Path(report["package"]).parent
    assert package.is_relative_to(installed.env_dir)
    assert Path(report["prompts"]) == package / "prompts"
    assert report["finished"] is True
    # the packaged templates are the checkout's, every one of them, byte for byte
    shipped = {p.name: p.read_bytes() for p in (package / "prompts").glob("*.txt")}
    source = {p.name: p.read_bytes() for p in (ROOT / "agents" / "prompts").glob("*.txt")}
    assert shipped == source
    checkout = LLMAgent(fake_agent_definition(fake.base_url)).templates.versions
    assert report["versions"] == dict(checkout)
    assert any(m["role"] == "system" for r in fake.requests for m in r["messages"])
