"""The prompts an LLM player sends, played in two worlds a seat cannot tell apart.

`differential` compares what a seat observes through the envs; an LLM player observes
the game through its prompts instead, rendered from its `View` and its own state (the
rules text, its role and teammates, the option labels, the transcript, the templates,
the presentation's names and option order). `run_prompts` plays both worlds of a case
like `differential.run_parallel`, and at each of the observer's decisions has one
`LLMAgent` per world act on its view, exactly as the match runner asks it, with the
state beliefs asked too (so every template is rendered: speech, decision, forum form
and content, beliefs, a belief per seat, the intended vote). The agents' chat model is
an in-process recorder (`Recorder`, a LangChain chat model handed to the real
`ChatClient`): everything above it is the production code, which appends the answer
instruction and its options (the JSON schema an OpenAI endpoint would get is built
from the same options); the recorder keeps every message list it receives and answers
legally without a network. The agents' answers are discarded: both worlds play
the decisions `differential.pair` makes.

The two worlds' message lists must be equal wherever the seat's event streams are
(`compare_prompts`); once the streams part for a reason `differential.legit` names, the
case stops, as the stream comparison does, and `run_refined` deals world B again.

`run_prompts` hands the player its view as the match runner builds it (a tracker of the
seat over the whole game); `run_prompts_aec` plays the worlds through the AEC env
(`differential.run_aec`) and hands it the view the env itself gives an agent
(`raw_env.view`, a night shown slot by slot): the two routes by which a seat's view
reaches an LLM player.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field
from tests.properties.differential import (
    Leak,
    Parted,
    Worlds,
    _engine_pending,
    cards_shown,
    compare,
    first_difference,
    legit,
    observed,
    pair,
    run_aec,
    start_parallel_pair,
)

from mafia_arena.agents.llm_agent import LLMAgent
from mafia_arena.llm import AgentDefinition
from mafia_arena.llm.client import ChatClient
from mafia_arena.rules import load_variant
from mafia_arena.seat_seeds import seat_seeds
from mafia_arena.views.shown_names import Presentation
from mafia_arena.views.view import SeatTracker, View

HOST_KEY = b"prompt-differential-host-key-32b"
"""The host key of every case: the seat seed and the presentation's names derive from
it and the game seed, the same in both worlds."""

UNREACHABLE = "http://127.0.0.1:9/v1"
"""The agents' endpoint: never contacted (the recorder answers in its place)."""

SPEECH = "I have nothing to add yet; let us hear the others."
"""The recorder's free-text answer (no belief in it parses, so each seat is asked
apart on the belief scale, and that template is rendered too)."""

_INSTRUCTION = "is exactly one of "

Messages = tuple[tuple[str, str], ...]
"""One request's chat messages as (role, content) pairs."""


class Recorder(BaseChatModel):
    """A chat model that records every message list it is sent and answers legally: a
    choice drawn among the options of the answer instruction (seeded by the call's
    number, so both worlds' recorders draw alike while they are asked alike), else
    `SPEECH`."""

    sent: list[Messages] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "prompt-recorder"

    def _answer(self, messages: Sequence[BaseMessage]) -> ChatResult:
        sent = tuple((m.type, str(m.content)) for m in messages)
        self.sent.append(sent)
        last = sent[-1][1] if sent else ""
        text = SPEECH
        if _INSTRUCTION in last:
            options = json.loads(last.rsplit(_INSTRUCTION, 1)[1].rstrip("."))
            choice = random.Random(f"recorder:{len(self.sent)}").choice(options)
            text = json.dumps({"reason": "recorded", "choice": choice})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._answer(messages)


def definition(seed: int) -> AgentDefinition:
    """The agent file of the case of game `seed`: beliefs stated (every template
    rendered), options shuffled for odd seeds, a short prompt budget for every third
    seed (the transcript is fitted)."""
    return AgentDefinition(
        name="prompt-recorder",
        base_url=UNREACHABLE,
        model="recorder",
        state_beliefs=True,
        shuffle_options=seed % 2 == 1,
        max_prompt_chars=2_000 if seed % 3 == 2 else 14_000,
        max_reasks=0,
        max_retries=0,
    )


def make_player(worlds: Worlds) -> tuple[LLMAgent, Recorder]:
    """The observer's LLM player for one world, set up as the match runner sets it up
    (`runner.match._prepare`): its seat seed, the exact variant, the game's presentation
    (names shuffled for odd game seeds), all drawn from the game seed and the host key."""
    recorder = Recorder()
    settings = definition(worlds.seed)
    agent = LLMAgent(settings, client=ChatClient(settings, chat_model=recorder))
    seed = seat_seeds(HOST_KEY, worlds.seed, worlds.players)[worlds.observer]
    agent.reset(worlds.observer, seed)
    agent.set_variant(load_variant(worlds.variant, worlds.overrides))
    shuffled = worlds.seed % 2 == 1
    agent.set_presentation(
        Presentation.for_game(
            worlds.seed,
            worlds.players,
            key=HOST_KEY,
            shuffle_names=shuffled,
            shuffle_options=shuffled,
        )
    )
    return agent, recorder


def run_prompts(worlds: Worlds, policy_seed: int, seen: Counter[str] | None = None) -> int:
    """Both worlds through the Parallel env in lockstep, as `differential.run_parallel`
    plays them, with the observer's LLM player asked at each of its decisions in both
    (`compare_prompts`); returns the chat requests compared. `seen` counts the
    templates world A's player rendered (`rendered`)."""
    envs, rng = start_parallel_pair(worlds, policy_seed)
    players = [make_player(worlds) for _ in envs]
    trackers = [SeatTracker(worlds.observer) for _ in envs]
    seat, compared, steps = worlds.observer, 0, 0
    with asyncio.Runner() as loop:
        try:
            while True:
                a, b = (observed(e.session, seat) for e in envs)
                compare(a, b, f"prompt step {steps}", worlds)
                if not envs[0].agents or not envs[1].agents:
                    break
                pending = [_engine_pending(e.session) for e in envs]
                if seat in pending[0] or seat in pending[1]:
                    views = [t.view(e.session.current) for t, e in zip(trackers, envs, strict=True)]
                    asked = [asked_of(loop, p, v) for p, v in zip(players, views, strict=True)]
                    compare_prompts(worlds, views, asked, f"prompt step {steps}")
                    compared += len(asked[0])
                chosen = pair(worlds, pending[0], pending[1], rng)
                for env, choices in zip(envs, chosen, strict=True):
                    actions = {f"player_{s}": 0 for s in range(worlds.players)}
                    table = env.session.table
                    actions.update({f"player_{s}": table.id_of(c) for s, c in choices.items()})
                    env.step(actions)
                steps += 1
        except Parted as parted:
            worlds.keep = parted.keep
    if seen is not None:
        seen.update(rendered(players[0][0]))
    return compared


def run_prompts_aec(worlds: Worlds, policy_seed: int, seen: Counter[str] | None = None) -> int:
    """Both worlds through the AEC env in lockstep, as `differential.run_aec` plays
    them, with the observer's LLM player asked on the view the env itself hands an
    agent (`raw_env.view`: a night shown slot by slot, a forum round by round) at every
    turn on which it is the selected agent and has a decision, in both worlds
    (`compare_prompts`); returns the chat requests compared. `seen` as in
    `run_prompts`."""
    players = [make_player(worlds) for _ in range(2)]
    seat, agent = worlds.observer, f"player_{worlds.observer}"
    compared = 0
    with asyncio.Runner() as loop:

        def turn(envs: list[Any], steps: int) -> None:
            nonlocal compared
            if envs[0].agent_selection != agent:
                return
            if not any(env.session.asks(seat) for env in envs):
                return
            views = [env.view(agent) for env in envs]
            asked = [asked_of(loop, p, v) for p, v in zip(players, views, strict=True)]
            compare_prompts(worlds, views, asked, f"aec prompt step {steps}")
            compared += len(asked[0])

        run_aec(worlds, policy_seed, on_turn=turn)
    if seen is not None:
        seen.update(rendered(players[0][0]))
    return compared


def rendered(agent: LLMAgent) -> Counter[str]:
    """The templates the player rendered in its game: each traced decision's, and the
    belief questions' (`beliefs`, counted per day they were asked)."""
    out = Counter(str(trace["template"]) for trace in agent.traces)
    beliefs = int(agent.stats.extra.get("belief_calls", 0))
    if beliefs:
        out["beliefs"] += beliefs
    return out


def asked_of(loop: asyncio.Runner, player: tuple[LLMAgent, Recorder], view: View) -> list[Messages]:
    """Every chat request the player sends for `view`'s decision (none where the
    decision is forced), the player acting as the match runner asks it. A fallback
    means a prompt failed to render, which would hide what the comparison is for."""
    agent, recorder = player
    before = len(recorder.sent)
    loop.run(agent.act(view))
    reason = agent.take_fallback()
    assert reason is None, f"P{view.seat + 1}'s player fell back ({reason})"
    return recorder.sent[before:]


def compare_prompts(
    worlds: Worlds, views: Sequence[View], asked: Sequence[list[Messages]], where: str
) -> None:
    """Raise `Parted` where the views' streams part for a legit reason, `Leak` where they
    part otherwise or where equal streams were rendered into different prompts."""
    sa, sb = (list(v.knowledge.events) for v in views)
    at = first_difference(sa, sb)
    if at is not None:
        if legit(worlds, sa, sb, at) is not None:
            raise Parted(where, cards_shown(worlds, sa, sb, at))
        raise Leak(f"{where}: the player's stream differs at position {at}")
    if asked[0] != asked[1]:
        raise Leak(f"{where}: {prompt_difference(asked[0], asked[1])}")


def prompt_difference(pa: Sequence[Messages], pb: Sequence[Messages]) -> str:
    """The first request, message and line at which two players' requests differ."""
    if len(pa) != len(pb):
        return f"{len(pa)} chat requests in world A, {len(pb)} in world B"
    for number, (ra, rb) in enumerate(zip(pa, pb, strict=True)):
        if len(ra) != len(rb):
            return f"request {number}: {len(ra)} messages vs {len(rb)}"
        for (role, ca), (_, cb) in zip(ra, rb, strict=True):
            if ca != cb:
                return f"request {number}, {role} message, {_line_difference(ca, cb)}"
    return "the requests differ"


def _line_difference(ca: str, cb: str) -> str:
    """The first line at which two messages differ, both worlds' versions."""
    la, lb = ca.splitlines(), cb.splitlines()
    common = min(len(la), len(lb))
    line = next((i for i in range(common) if la[i] != lb[i]), common)
    shown = [lines[line] if line < len(lines) else "<end>" for lines in (la, lb)]
    return f"line {line}: {shown[0]!r} vs {shown[1]!r}"
