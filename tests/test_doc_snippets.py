"""The Python snippets of README.md and docs/ do what they say, so a reader who copies one
gets a working line.

Every ```python block is listed in `HOW_CHECKED` under its document and the heading it
stands under; a new block fails `test_every_python_snippet_has_a_check` until it is given
one, so no snippet drifts unchecked. A block is checked in one of four ways:

* run as written (`RUN`); one that reads a results store runs in a scratch working folder
  that holds the smoke tournament's store, played in-process first (`smoke_store`);
* run with one value changed (`RUN_CHANGED`): the leaderboard example's scratch output
  folder moves into the test's folder, and the batched env's example takes 100 of its
  1,000 steps;
* compared with the code it declares (`DECLARES`): the agent protocol's members, the
  keys of an env's `infos` sample against the infos a real env gives at a vote, and
  `run_tournament`'s signature (its example plays the quickstart: minutes with the local
  model);
* run elsewhere (`ELSEWHERE`): the RL snippets, by the tests under tests/rl/ that need the
  `rl` extra.

Program output is checked against the program too: the loader's sample errors in
docs/variants.md (its block of lines, the command line's error under a switch and the
samples written inline) and the local model server's command in docs/llm.md.
"""

from __future__ import annotations

import ast
import inspect
import re
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))

RUN = "run as written"
RUN_CHANGED = "run with one value changed"
DECLARES = "compared with the code"
ELSEWHERE = "run by another test"

HOW_CHECKED: dict[tuple[str, str], str] = {
    ("docs/agents.md", "## The protocol"): DECLARES,
    ("docs/env.md", "# The PettingZoo environments"): RUN,
    ("docs/env.md", "## Infos and language agents"): DECLARES,
    ("docs/env.md", "## Example loops"): RUN,
    ("docs/env.md", "## Batched env for RL"): RUN_CHANGED,
    ("docs/env.md", "### Gymnasium's vector wrappers"): RUN,
    ("docs/leaderboard.md", "# Leaderboards"): RUN_CHANGED,
    ("docs/metrics.md", "# Metrics"): RUN,
    ("docs/rl.md", "## The team env"): ELSEWHERE,  # tests/rl/test_team_env.py
    ("docs/rl.md", "### Gymnasium's wrappers on the team env"): ELSEWHERE,  # test_team_env_wrappers
    ("docs/rl.md", "## Masked training with Stable-Baselines3"): ELSEWHERE,  # test_sb3_route
    ("docs/tournaments.md", "# Tournaments"): DECLARES,
}
"""(document, heading above the block) -> how the block is checked."""

LEADERBOARD_SCRATCH = "/tmp/scripted-baseline-board"
"""The scratch folder docs/leaderboard.md's example writes its board to."""


@dataclass(frozen=True)
class Snippet:
    """One ```python block: its document (relative to the checkout), the heading it stands
    under, its first line's number and its code."""

    doc: str
    heading: str
    line: int
    code: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.doc, self.heading)

    def compiled(self, code: str | None = None) -> Any:
        """The code compiled under its document's name, so a traceback points at the doc."""
        return compile(code if code is not None else self.code, f"{self.doc}:{self.line}", "exec")


def snippets() -> Iterator[Snippet]:
    """Every ```python block of the documents, in document order."""
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        heading = ""
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith("#") and not line.startswith("#!"):
                heading = line.strip()
            if line.startswith("```"):
                end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
                if line.strip() == "```python":
                    code = "\n".join(lines[i + 1 : end]) + "\n"
                    yield Snippet(str(path.relative_to(ROOT)), heading, i + 2, code)
                i = end
            i += 1


def snippet(doc: str, heading: str) -> Snippet:
    """The one block under `heading` in `doc`."""
    found = [s for s in snippets() if s.key == (doc, heading)]
    assert len(found) == 1, f"{doc}, {heading}: {len(found)} python blocks"
    return found[0]


def test_every_python_snippet_has_a_check() -> None:
    """A block added to the docs must be given a way to be checked here, and a block that
    moved or went is taken out of the table, so the table and the docs agree."""
    found = [s.key for s in snippets()]
    assert len(found) == len(set(found)), "two python blocks under one heading"
    assert set(found) == set(HOW_CHECKED)


@pytest.mark.parametrize(
    "heading",
    ["# The PettingZoo environments", "## Example loops", "### Gymnasium's vector wrappers"],
)
def test_the_env_snippets_run_as_written(heading: str) -> None:
    namespace: dict[str, Any] = {}
    exec(snippet("docs/env.md", heading).compiled(), namespace)


def test_the_batched_env_snippet_runs() -> None:
    """The batched env's example, for 100 of its 1,000 steps (the rest take seconds more
    and step the same code)."""
    found = snippet("docs/env.md", "## Batched env for RL")
    assert "range(1000)" in found.code
    namespace: dict[str, Any] = {}
    exec(found.compiled(found.code.replace("range(1000)", "range(100)")), namespace)
    assert namespace["obs"]["action_mask"].shape[0] == 64


@pytest.fixture
def smoke_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding `results/smoke/`, as `mafia-arena tournament
    experiments/smoke.toml` leaves it (played in-process and untracked, which stores the
    same records and logs)."""
    from mafia_arena.experiments import run_tournament

    monkeypatch.chdir(tmp_path)
    run_tournament(ROOT / "experiments" / "smoke.toml", use_ray=False, track=False, progress=False)
    return tmp_path / "results" / "smoke"


def test_the_metrics_snippet_reads_a_smoke_tournament_log(smoke_store: Path) -> None:
    namespace: dict[str, Any] = {}
    exec(snippet("docs/metrics.md", "# Metrics").compiled(), namespace)
    assert set(namespace["metrics"]) == {"game", "per_seat"}
    assert "3" in namespace["metrics"]["per_seat"]


def test_the_leaderboard_snippet_publishes_a_board(smoke_store: Path, tmp_path: Path) -> None:
    """The example reads `results/scripted-baseline`, which the smoke store stands in for
    (4,500 games would take minutes), and writes its board into this test's folder."""
    smoke_store.rename(smoke_store.parent / "scripted-baseline")
    found = snippet("docs/leaderboard.md", "# Leaderboards")
    assert LEADERBOARD_SCRATCH in found.code
    board = tmp_path / "board"
    namespace: dict[str, Any] = {}
    exec(found.compiled(found.code.replace(LEADERBOARD_SCRATCH, str(board))), namespace)
    named = re.search(r"# -> (.*)", found.code)
    assert named, "the example names the files it writes"
    assert sorted(p.name for p in namespace["paths"]) == sorted(named.group(1).split(", "))
    assert sorted(p.name for p in board.iterdir()) == sorted(named.group(1).split(", "))


def declared_members(code: str) -> set[str]:
    """The attribute and method names a class body in `code` declares."""
    (cls,) = [node for node in ast.parse(code).body if isinstance(node, ast.ClassDef)]
    names = set()
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
    return names


def test_the_documented_agent_protocol_is_the_code_s() -> None:
    from mafia_arena.agents.base import Agent

    code = snippet("docs/agents.md", "## The protocol").code
    members = {name for name in vars(Agent) if not name.startswith("_")}
    members |= set(Agent.__annotations__)
    assert declared_members(code) == members


def test_the_infos_sample_has_the_keys_of_a_real_vote() -> None:
    """docs/env.md's `infos[agent]` sample (a vote, with the end's `result`) holds the
    keys a real env's infos hold, in the request and in each choice too."""
    from mafia_arena import env as mafia_env

    sample = ast.literal_eval(snippet("docs/env.md", "## Infos and language agents").code)
    env = mafia_env.env("standard", players=7)
    env.reset(seed=1)
    vote: Mapping[str, Any] | None = None
    for _ in env.agent_iter():
        obs, _, termination, truncation, info = env.last()
        if termination or truncation:
            end = info
            break
        if vote is None and info["request"] and info["request"]["kind"] == "vote":
            vote = info
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert vote is not None
    assert set(sample) - {"result"} == set(vote)
    assert set(sample["request"]) == set(vote["request"])
    assert set(sample["request"]["choices"][0]) == set(vote["request"]["choices"][0])
    assert set(sample["result"]) == set(end["result"])


def test_the_documented_run_tournament_signature_is_the_code_s() -> None:
    """docs/tournaments.md shows `run_tournament`'s signature under its example (the
    example itself plays the quickstart, minutes with the local model): the same
    parameters, kinds, defaults and return type as the code."""
    from mafia_arena.experiments import run_tournament

    text = (ROOT / "docs" / "tournaments.md").read_text(encoding="utf-8")
    shown = re.search(r"```\n(run_tournament\(.*?\) -> \w+)\n```", text, re.S)
    assert shown, "the signature block follows the example"
    (written,) = ast.parse(f"def {shown.group(1)}: pass").body
    assert isinstance(written, ast.FunctionDef)
    args = written.args
    documented = [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in args.args] + [
        (a.arg, inspect.Parameter.KEYWORD_ONLY) for a in args.kwonlyargs
    ]
    defaults = {
        a.arg: ast.literal_eval(d)
        for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        if d
    }
    signature = inspect.signature(run_tournament)
    assert documented == [(p.name, p.kind) for p in signature.parameters.values()]
    assert defaults == {
        p.name: p.default for p in signature.parameters.values() if p.default is not p.empty
    }
    assert ast.unparse(written.returns or ast.Constant(None)) == signature.return_annotation


LOADER_ERRORS: dict[str, tuple[str, dict[str, Any]]] = {
    "day.2.params.tie": ("standard", {"day.2.params.tie": "coin"}),
    "night.0.params.descrbe": ("classic", {"night.0.params.descrbe": "x"}),
    "roles.sergeant.traits.succeeds": ("club", {"roles.sergeant.traits.succeeds": "comissar"}),
    "composition.formula.mafioso": ("simple", {"mafia": "n/0"}),
    "day.9": ("simple", {"day.9.type": "vote"}),
}
"""The key of each sample line of docs/variants.md's first block -> the variant and the
switches that make the loader say it."""


def test_the_variant_errors_shown_are_the_loader_s_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/variants.md opens with sample `FILE: KEY: REASON` lines; each is exactly what
    the loader says for such a mistake (a list of known keys included), the file given
    by its path from the checkout's root as the text says."""
    from mafia_arena.rules import VariantError, load_variant

    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(envs/.*?)```", text, re.S)
    assert block, "the sample errors come first"
    shown = block.group(1).strip().split("\n")
    assert [line.split(": ")[1] for line in shown] == list(LOADER_ERRORS)
    for line in shown:
        name, overrides = LOADER_ERRORS[line.split(": ")[1]]
        with pytest.raises(VariantError) as error:
            load_variant(f"envs/{name}.toml", overrides)
        assert str(error.value) == line


def test_the_command_line_variant_error_shown_is_the_one_printed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/variants.md shows a command and the error it prints: run from the checkout's
    root, the command prints exactly that (the path as given, not a full one)."""
    from tests.cli.support import run_cli

    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    shown = re.search(r"```\nmafia-arena (.*?)\n(error: .*?)\n```", text, re.S)
    assert shown, "docs/variants.md shows a command and its error"
    code, err = run_cli(shown.group(1).split(), capsys)
    assert code == 2
    assert err == shown.group(2) + "\n"


def test_the_inline_variant_errors_shown_are_the_loader_s_words(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The loader errors docs/variants.md quotes in its text (`` `envs/...: KEY: ...` ``)
    are what the loader says for the mistake each stands for: a value of the wrong type,
    a file that is not UTF-8 (a stray byte at the offset shown), a count that turns
    negative when a table is dealt."""
    from mafia_arena.rules import VariantError, load_variant
    from mafia_arena.rules.composition import deck_counts

    text = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    quoted = re.findall(r"`(envs/[a-z]+\.toml: [^`]*)`", text)
    assert [line.split(": ")[1] for line in quoted] == list(INLINE_LOADER_ERRORS)
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "x.toml").write_bytes(b"#" * 31 + b"\xe4\n")  # offset 31
    shutil.copy(ROOT / "envs" / "standard.toml", tmp_path / "envs" / "standard.toml")
    monkeypatch.chdir(tmp_path)
    for line in quoted:
        name, overrides, players = INLINE_LOADER_ERRORS[line.split(": ")[1]]
        with pytest.raises(VariantError) as error:
            variant = load_variant(f"envs/{name}.toml", overrides)
            if players is not None:
                deck_counts(variant, players)
        assert str(error.value) == line


INLINE_LOADER_ERRORS: dict[str, tuple[str, dict[str, Any], int | None]] = {
    "night.0.display": ("standard", {"night.0.display": 3}, None),
    "-": ("x", {}, None),
    "composition.formula.villager": ("standard", {"mafia": 6}, 7),
}
"""The key of each loader error docs/variants.md quotes inline -> the variant file, the
switches and the player count (a deal) that make the loader say it."""


def test_the_local_server_command_shown_is_the_one_started() -> None:
    """docs/llm.md shows the command that starts the bundled model's server; the server
    `get_local_server` makes (`LocalServer()`) runs exactly that, its placeholders aside."""
    from mafia_arena.llm.local_server import LocalServer

    text = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")
    shown = re.search(r"```\n(python -m mafia_arena\.llm\.llama_server_entry .*?)\n```", text, re.S)
    assert shown, "docs/llm.md shows the server's command"
    server = LocalServer("<gguf>")
    port = 8123
    placeholders = {
        sys.executable: "python",
        str(port): "<free port>",
        str(server.n_threads): "<threads>",
    }
    started = " ".join(placeholders.get(word, word) for word in server._command(port))
    assert " ".join(shown.group(1).replace("\\\n", " ").split()) == started
