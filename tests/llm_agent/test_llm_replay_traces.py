"""`mafia-arena replay --traces` shows every LLM decision's trace after its decision:
question, raw answers, reasoning, reason, choice or speech, tokens, latency, retries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.host_key import FIXED_HOST_KEY
from tests.llm.fake_openai import FakeOpenAI, thinking
from tests.llm_agent.support import enum_of, play, set_answer

from mafia_arena.agents import make_agent
from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.cli import main
from mafia_arena.llm import AgentDefinition
from mafia_arena.runner.log import GameLog

REASONING = "the quiet seat is my pick"


def run_replay(args: list[str], capsys: pytest.CaptureFixture[str]) -> list[str]:
    try:
        main(["replay", *args])
    except SystemExit as done:
        assert done.code in (0, None)
    return capsys.readouterr().out.splitlines()


def block_end(out: list[str], start: int) -> int:
    """The index of the first line after the trace block starting at `start`."""
    end = start + 1
    while end < len(out) and out[end].startswith("      "):
        end += 1
    return end


def next_event_line(out: list[str], start: int) -> str:
    """The first line after `start` that is no trace (the traces of one prompt's
    other seats come together, before what their decisions made happen)."""
    return next(line for line in out[start + 1 :] if not line.startswith("    "))


async def test_replay_traces_prints_each_llm_decision_after_it(
    fake: FakeOpenAI,
    fake_definition: AgentDefinition,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def answer(body: dict) -> object:
        options = enum_of(body)
        if options is None:
            return None
        return thinking(REASONING, json.dumps({"reason": "why not", "choice": options[-1]}))

    set_answer(fake, answer)  # type: ignore[arg-type]
    agents: list[Agent] = [LLMAgent(fake_definition), LLMAgent(fake_definition)] + [
        make_agent("heuristic") for _ in range(5)
    ]
    result = await play(agents, seed=4)
    path = result.log.save(tmp_path / "game.jsonl")
    traces = GameLog.load(path).traces
    assert {t["kind"] for t in traces} >= {"speak", "vote"}

    out = run_replay([str(path), "--traces"], capsys)
    assert out[-1] == "replay matches the stored log"
    headers = [i for i, line in enumerate(out) if line.startswith("    [trace] ")]
    assert len(headers) == len(traces)
    for at, trace in zip(headers, traces, strict=True):  # in the log's order
        block = "\n".join(out[at : block_end(out, at)])
        label = f"P{trace['seat'] + 1} (fake-llm) {trace['kind']}"
        assert out[at].startswith(f"    [trace] {label}: ")
        assert trace["question"].splitlines()[0] in block
        for raw in trace["answers"]:
            assert raw in block
        assert f"tokens {trace['tokens_in']} in / {trace['tokens_out']} out" in block
        assert f"retries {trace['retries']}" in block and "latency " in block
        if trace["kind"] == "speak":  # the speech it decided is the next line shown
            assert out[block_end(out, at)].endswith(json.dumps(trace["speech"]))
        else:
            assert f"chose {trace['choice']!r}" in out[at]
            assert f"reasoning: {REASONING}" in block and "reason: why not" in block
        if trace["kind"] == "vote":  # ... and the ballot it cast comes next
            assert "Votes" in next_event_line(out, at)

    plain = run_replay([str(path)], capsys)
    assert plain == [line for line in out if not line.startswith("    ")]
    own = run_replay([str(path), "--seat", "2", "--traces"], capsys)
    shown = [line for line in own if line.startswith("    [trace] ")]
    assert shown and all(line.startswith("    [trace] P2 ") for line in shown)
    assert len(shown) == sum(t["seat"] == 1 for t in traces)


def test_replay_traces_of_a_log_without_any_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    agents: list[Agent] = [make_agent("heuristic") for _ in range(5)]
    log = play_match_sync(load_variant("simple"), agents, 3, host_key=FIXED_HOST_KEY).log
    path = log.save(tmp_path / "g.jsonl")
    out = run_replay([str(path), "--traces"], capsys)
    assert not any("[trace]" in line for line in out)
    assert any(line.startswith("no decision traces beside this log") for line in out)


def test_a_trace_with_unicode_line_separators_saves_and_loads_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trace sidecar keeps non-ASCII text as it is, so a text field may hold U+2028,
    U+2029 or NEL (a model's answer, an agent's name, an endpoint's error text). Read
    back with `str.splitlines`, such a record was split in two and the log could no
    longer be loaded, by `GameLog.load`, `mafia-arena replay` or the web replay."""
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.log_file import read_log
    from mafia_arena.runner.match import play_match_sync

    result = play_match_sync(
        load_variant("simple"), [RandomAgent() for _ in range(5)], 11, host_key=FIXED_HOST_KEY
    )
    odd = "first\u2028second\u2029third\x85fourth\x1cfifth"
    result.log.traces = [{"seat": 0, "answers": [odd], "reason": odd}]
    path = result.log.save(tmp_path / "game.jsonl")
    assert GameLog.load(path).traces == result.log.traces
    assert read_log(path).traces == result.log.traces
    assert any("replay matches" in line for line in run_replay(["--traces", str(path)], capsys))
