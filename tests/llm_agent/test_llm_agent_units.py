"""LLM player pieces that need no endpoint: speech cleaning, beliefs parsing, the
transcript fit, templates, fallback defaults and the agent-file loader."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mafia_arena.agents import make_agent
from mafia_arena.agents.files import resolve_agent_file
from mafia_arena.agents.llm_agent import LLMAgent, default_decision
from mafia_arena.agents.llm_prompts import (
    CleanedSpeech,
    TemplateError,
    TranscriptLine,
    clean_speech,
    cleaned_speech,
    fit_transcript,
    load_templates,
    parse_beliefs,
)
from mafia_arena.agents.llm_shared import shared_client
from mafia_arena.engine.choices import PASS, Choice, Request
from mafia_arena.llm import load_agent_definition

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "agents" / "local-smollm2.toml"


@pytest.mark.parametrize(
    ("raw", "seat", "expected"),
    [
        ("I suspect P5 is mafia.", 2, "I suspect P5 is mafia."),
        ("P3: I suspect P5 is mafia.\nP4: no, you are!", 2, "I suspect P5 is mafia."),
        ('**P3 (discussion):** "I trust P2."', 2, "I trust P2."),
        ("Assistant: I trust P2. P4: I don't.", 2, "I trust P2."),
        ("[D1] P3: I trust P2.", 2, "I trust P2."),
        ("I was quiet last night. D1: P4 was killed", 2, "I was quiet last night."),
        ("--- Day 2 ---\nP3: Vote P6.", 2, "Vote P6."),
        ("I trust P2.\n\nNOW: vote", 2, "I trust P2."),
        ("   \n", 2, ""),
        ("P3:", 2, ""),
        ("D1: What a pleasure to be here.", 2, "What a pleasure to be here."),
        ("Day 2 was quiet. I trust P2.", 2, "Day 2 was quiet. I trust P2."),
        (
            "I trust P2. P5 lied about the night. Your turn:",
            2,
            "I trust P2. P5 lied about the night.",
        ),
        (
            "I trust P2. P5 lied about the night and I am glad to",
            2,
            "I trust P2. P5 lied about the night and I am glad to",
        ),
        (
            "P5 lied about the night, and I think that the mafia. I am glad to",
            2,
            "P5 lied about the night, and I think that the mafia.",
        ),
    ],
)
def test_clean_speech(raw: str, seat: int, expected: str) -> None:
    assert clean_speech(raw, seat, 1000) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("My speech: I suspect P5.", "I suspect P5."),
        ("**My answer:** P5 is mafia.", "P5 is mafia."),
        ("Final answer: P5 is mafia.", "P5 is mafia."),
        ('My speech (day 2): "I trust P2."', "I trust P2."),
        ("\n\n- My response: I trust P2.", "I trust P2."),
    ],
)
def test_a_label_opening_the_reply_is_cut(raw: str, expected: str) -> None:
    """A model that labels its reply ("My speech:") speaks the words after the label;
    the label is no one else's tag, so the speech is not counted as impersonation."""
    cleaned = cleaned_speech(raw, 2, 1000)
    assert cleaned == CleanedSpeech(expected, impersonation=False)


def test_a_word_and_a_colon_that_is_no_label_is_kept() -> None:
    """A label is cut only where it opens the reply: once the speech has begun, a line
    opened by "You:" or "Answer:" is the speaker's own sentence, and so is a word and a
    colon inside a line, or "You (P3):", which addresses a player."""
    kept = [
        "Listen: P3 lied about the night.",
        "Note: P3 never claimed a role.",
        "I say this to everyone. Vote: P3, today.",
        "Speech matters: P3 said nothing.",
        "Answers: none of you gave one.",
        "You (P3): explain your vote.",
    ]
    for raw in kept:
        assert clean_speech(raw, 2, 1000) == raw
    assert clean_speech("I trust P2.\nYou: are lying, P3.", 2, 1000) == (
        "I trust P2. You: are lying, P3."
    )
    assert clean_speech("I trust P2.\nAnswer: P3 lied.", 2, 1000) == "I trust P2. Answer: P3 lied."
    assert clean_speech("Speech: Listen: P3 lied.", 2, 1000) == "Listen: P3 lied."


def test_clean_speech_caps_at_a_word_boundary() -> None:
    speech = clean_speech("suspicious " * 50, 0, 60)
    assert len(speech) <= 60 and speech.endswith("suspicious")


def test_parse_beliefs_reads_what_it_can_and_guesses_nothing() -> None:
    text = 'P2: 0.8\nP3 - 30%\n{"P4": .1}\nP5: 7\nP6: likely\nP9: 0.5\nP2: 0.1'
    assert parse_beliefs(text, [1, 2, 3, 4, 5]) == {1: 0.8, 2: 0.3, 3: 0.1}
    assert parse_beliefs("P2: 1", [1]) == {1: 1.0}
    assert parse_beliefs("no idea", [1, 2]) == {}


def test_transcript_fit_drops_old_public_speech_first_and_keeps_private_lines() -> None:
    head = [
        TranscriptLine("Game of standard with 7 players.", 0),
        TranscriptLine("You are P1; your role is detective (town).", 0),
    ]
    body: list[TranscriptLine] = []
    for day in range(1, 15):
        body.append(TranscriptLine(f"--- Day {day} ---", 0))
        body += [
            TranscriptLine(f'[D{day}] P{s}: "speech {day}.{s} ' + "x" * 60 + '"', 1)
            for s in range(2, 8)
        ]
        body.append(TranscriptLine(f"[D{day}] P3 votes against P4.", 2))
        body.append(TranscriptLine(f"[N{day}] Result of your check on P{day % 7 + 1}: town.", 0))
    lines = head + body
    window = fit_transcript(lines, 4000)
    kept = window.split("\n")
    assert kept[:2] == [line.text for line in head]
    private = [line.text for line in lines if "Result of your check" in line.text]
    assert all(text in kept for text in private)  # every own result survives the cut
    assert kept[-1] == lines[-1].text and "older public lines omitted" in window
    assert len(window) <= 4000
    # one more line: the cut does not move (the window only grows at its end)
    longer = fit_transcript([*lines, TranscriptLine('[D15] P2: "more"', 1)], 4000)
    assert longer.startswith(window)
    short = [TranscriptLine("short", 1)]
    assert fit_transcript(short, 4000) == "short"


def test_templates_fail_fast_on_unknown_placeholders(tmp_path: Path) -> None:
    prompts = REPO / "agents" / "prompts"
    templates = load_templates(prompts)
    assert "$" not in templates.render("decide", {"prompt": "x", "options": "- P2"})
    bad = tmp_path / "bad.txt"
    bad.write_text("Hello $sea", encoding="utf-8")
    with pytest.raises(TemplateError, match=r"bad\.txt: -: unknown placeholder \$sea"):
        load_templates(prompts, bad)
    with pytest.raises(TemplateError, match=r"missing\.txt: -: No such file or directory$"):
        load_templates(prompts, tmp_path / "missing.txt")


def test_a_template_that_is_not_utf8_names_its_file_and_byte(tmp_path: Path) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Hello \xe4 $rules".encode("latin-1"))
    message = r"latin1\.txt: -: cannot read the template: not UTF-8 text \(byte 0xe4 at offset 6\)"
    with pytest.raises(TemplateError, match=message):
        load_templates(REPO / "agents" / "prompts", bad)


def test_a_folder_prompt_template_overrides_by_name(tmp_path: Path) -> None:
    (tmp_path / "prompts" / "mine").mkdir(parents=True)
    (tmp_path / "prompts" / "mine" / "speak.txt").write_text("Talk, $seat.", encoding="utf-8")
    definition = load_agent_definition(AGENT).model_copy(
        update={"prompt_template": "mine", "name": "folder-template"}
    )
    agent = LLMAgent(definition, agents_dir=tmp_path)
    assert agent.templates.render("speak", {"seat": "P4"}) == "Talk, P4."
    assert "Mafia" in agent.templates.render("system", {})  # the rest are the defaults
    # an agent folder's own prompts/ override by name too, without prompt_template
    (tmp_path / "prompts" / "decide.txt").write_text("Choose, $seat.", encoding="utf-8")
    plain = LLMAgent(definition.model_copy(update={"prompt_template": None}), agents_dir=tmp_path)
    assert plain.templates.render("decide", {"seat": "P2"}) == "Choose, P2."
    assert plain.templates.render("speak", {"seat": "P2"}).startswith("NOW:")


def test_fallback_default_is_pass_or_a_seeded_random_choice() -> None:
    choices = (Choice("target", 1), Choice("target", 2), Choice("target", 3))
    labels = ("P2", "P3", "P4")
    vote = Request(0, "vote", "vote", choices, labels, default="pass")
    assert default_decision(vote, random.Random(1)) == PASS
    with_pass = Request(
        0, "last_dead", "pick", (*choices, PASS), (*labels, "pass"), default="random"
    )
    assert default_decision(with_pass, random.Random(1)) == PASS
    forced = Request(0, "last_dead", "pick", choices, labels, default="random")
    picks = [default_decision(forced, random.Random("llm:5:0")) for _ in range(3)]
    assert picks[0] in choices and len(set(picks)) == 1


def test_agent_files_resolve_by_path_or_bare_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # the repository's agents/ is found without the cwd
    assert resolve_agent_file("agents/local-smollm2.toml") == AGENT
    assert resolve_agent_file("local-smollm2") == AGENT
    assert resolve_agent_file(str(AGENT)) == AGENT
    assert resolve_agent_file("heuristic") is None
    with pytest.raises(ValueError, match=r"^agents/nope.toml: no such agent file"):
        resolve_agent_file("agents/nope.toml")


def test_make_agent_builds_llm_players_sharing_one_client() -> None:
    first = make_agent("agents/local-smollm2.toml")
    second = make_agent("local-smollm2")
    assert isinstance(first, LLMAgent) and isinstance(second, LLMAgent)
    assert first.kind == "llm" and first.name == "local-smollm2"
    assert first is not second and first.client is second.client
    assert first.client is shared_client(load_agent_definition(AGENT))
    assert make_agent("random").kind == "scripted"
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("no-such-agent")


def test_the_system_message_follows_a_role_change() -> None:
    import dataclasses

    from tests.llm_agent.support import first_view

    view = first_view("vote")
    agent = LLMAgent(load_agent_definition(AGENT))
    agent.reset(view.seat, 1)
    before = agent._system_message(view)
    assert before == agent._system_message(view)  # stable while nothing changes
    new_role = "detective" if view.knowledge.role != "detective" else "doctor"
    changed = dataclasses.replace(view.knowledge, role=new_role, faction="town")
    after = agent._system_message(dataclasses.replace(view, knowledge=changed))
    assert f"Your secret role: {new_role} (team town)" in after
    assert f"Your secret role: {view.knowledge.role} " in before and after != before
