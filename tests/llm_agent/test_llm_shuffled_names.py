"""Names and option order shuffled per game for LLM players (the experiment's
`shuffle_names` / `shuffle_options` switches): a presentation layer over the prompts,
drawn from the game seed with the host's key, recorded in the log, undone on what the
model writes."""

from __future__ import annotations

import re
from pathlib import Path

from tests.llm.fake_openai import FakeOpenAI, reply
from tests.llm_agent.support import (
    SHORT,
    TEST_HOST_KEY,
    assert_replays,
    enum_of,
    first_view,
    last_user,
    play,
    set_answer,
    system_of,
)

from mafia_arena.agents import make_agent
from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.choices import Speech
from mafia_arena.llm import AgentDefinition
from mafia_arena.rules import load_variant
from mafia_arena.runner.match import play_match_sync
from mafia_arena.views.shown_names import Presentation


def names_of(seed: int, key: bytes = TEST_HOST_KEY) -> tuple[int, ...] | None:
    return Presentation.for_game(seed, 7, key=key, shuffle_names=True, shuffle_options=False).names


def test_the_names_are_a_permutation_fixed_by_the_game_seed_and_the_host_key() -> None:
    a = names_of(11)
    assert a == names_of(11)
    assert a is not None and sorted(a) == list(range(7))
    assert len({names_of(s) for s in range(20)}) > 10  # per game, not one fixed relabelling
    assert (
        Presentation.for_game(
            11, 7, key=TEST_HOST_KEY, shuffle_names=False, shuffle_options=True
        ).names
        is None
    )


def test_the_names_do_not_give_the_game_seed_away_without_the_key() -> None:
    """An agent is handed the permutation. Drawn from the seed alone, trying the seeds
    would find the game's (and so the deal); with the host's key, a search over seeds
    under any key the agent can guess finds nothing better than chance."""
    seeds = range(2000)
    game_seed = 1234
    shown = names_of(game_seed)
    # what a cheating agent can compute: the permutation of each candidate seed under a
    # guessed key (none, or an empty one)
    for guess in (b"", b"0" * 32):
        matches = [s for s in seeds if names_of(s, guess) == shown]
        assert game_seed not in matches or len(matches) > 1  # no unique identification
    # and the same seed under another host's key gives another permutation, mostly
    others = {names_of(game_seed, bytes([k]) * 32) for k in range(8)}
    assert len(others) > 4


def test_the_rewrite_is_a_bijection_on_seat_tokens_only() -> None:
    p = Presentation(names=(3, 0, 1, 2, 9, 5, 6, 7, 8, 4))  # P1 shown as P4, P5 as P10, ...
    text = "P1 accuses P10; P5's card? HTTP2, P11 and P0 stay. P2:P3"
    shown = p.shown(text)
    assert shown == "P4 accuses P5; P10's card? HTTP2, P11 and P0 stay. P1:P2"
    assert p.real(shown) == text
    long = "P" + "1" * 5000  # no seat label, and more digits than int() reads
    assert p.real(f"{long} P1") == f"{long} P2" and p.shown(long) == long
    assert Presentation.from_json(p.to_json()) == p
    assert p.to_json()["names"]["P1"] == "P4"


def test_the_names_do_not_depend_on_the_deal() -> None:
    """Same seed, different decks and variants: the same names (no role enters them)."""
    records = []
    for variant in ("simple", "standard"):
        agents = [make_agent("random") for _ in range(7)]
        result = play_match_sync(
            load_variant(variant), agents, 5, host_key=TEST_HOST_KEY, shuffle_names=True
        )
        records.append(result.log.meta["presentation"])
    assert records[0] == records[1] and records[0]["shuffle_names"] is True


async def test_a_prompt_shows_the_shuffled_names_and_the_answer_maps_back(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = first_view("night:mafia_kill")
    request = view.request
    assert request is not None
    p = Presentation.for_game(3, 7, key=TEST_HOST_KEY, shuffle_names=True, shuffle_options=False)
    target = request.choices[2]
    assert target.target is not None
    shown = p.shown(request.labels[2])  # "kill P4" as the model reads it
    assert shown == f"kill {p.label(target.target)}" and shown != request.labels[2]
    fake.script(reply(f'{{"choice": "{shown}", "reason": "quiet"}}'))
    agent = LLMAgent(fake_definition)
    agent.reset(view.seat, 7)
    agent.set_presentation(p)
    try:
        assert await agent.act(view) == target  # the shown name chose the right seat
    finally:
        await aclose_shared_clients()
    body = fake.requests[0]
    assert f"You are {p.label(view.seat)}." in system_of(body)
    options = enum_of(body)
    assert options is not None
    targets = [c.target for c in request.choices if c.target is not None]
    assert len(targets) == len(request.choices)
    assert [o.split()[1] for o in options] == [p.label(t) for t in targets]
    # the transcript names seats only as shown: the real labels' text is gone
    assert p.shown(p.real(last_user(body))) == last_user(body)


async def test_speech_written_under_shown_names_is_published_under_real_ones(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    view = first_view("speak")
    p = Presentation(names=(6, 5, 4, 3, 2, 1, 0))  # P1 shown as P7, ...
    fake.script(reply(f"{p.label(view.seat)}: I suspect P7, and P2 defends them."))
    agent = LLMAgent(fake_definition)
    agent.reset(view.seat, 7)
    agent.set_presentation(p)
    try:
        said = await agent.act(view)
    finally:
        await aclose_shared_clients()
    assert said == Speech("I suspect P1, and P6 defends them.")  # own prefix cleaned too


async def test_a_game_with_shuffled_names_and_options_completes_and_is_recorded(
    fake: FakeOpenAI, fake_definition: AgentDefinition, tmp_path: Path
) -> None:
    agents = [LLMAgent(fake_definition) for _ in range(7)]
    result = await play(agents, seed=4, shuffle_names=True, shuffle_options=True)
    assert result.winner is not None
    log = assert_replays(result.log, tmp_path)
    record = log.meta["presentation"]
    assert record["shuffle_names"] is True and record["shuffle_options"] is True
    p = Presentation.from_json(record)
    assert p == Presentation.for_game(
        4, 7, key=TEST_HOST_KEY, shuffle_names=True, shuffle_options=True
    )
    assert p.names != tuple(range(7))
    # every prompt names its seat by a shown label
    labels = {p.label(s) for s in range(7)}
    for body in fake.requests:
        match = re.search(r"You are (P\d+)\.", system_of(body))
        assert match is not None and match.group(1) in labels
    # the auto answer says "I suspect P2": the log has the seat shown as P2, in real names
    real = p.real("P2")
    speeches = [d["text"] for d in log.decisions if "text" in d]
    assert speeches and all(
        t == f"I suspect {real} is mafia, they were too quiet." for t in speeches
    )
    # options were shuffled: the trace shows the order, which is not always the table's
    orders = [t["options"] for t in log.traces if t.get("options")]
    seats = [[_seat(p.real(o)) for o in order if _seat(o)] for order in orders]
    assert seats and any(s != sorted(s) for s in seats)  # the table's order is seat order


def _seat(option: str) -> int:
    """The seat number an option names (0: none)."""
    found = re.search(r"P(\d+)", option)
    return int(found.group(1)) if found else 0


async def test_without_the_switches_nothing_is_recorded(
    fake: FakeOpenAI, fake_definition: AgentDefinition
) -> None:
    set_answer(fake, lambda body: None)
    agents = [LLMAgent(fake_definition)] + [make_agent("heuristic") for _ in range(6)]
    result = await play(agents, seed=4, overrides=SHORT)
    assert "presentation" not in result.log.meta
    assert any("You are P1." in system_of(b) for b in fake.requests)
