"""Helpers for the LLM player tests: an auto-answering fake endpoint, games, views."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.llm.fake_openai import Action, FakeOpenAI, reply

from mafia_arena.agents.base import Agent
from mafia_arena.agents.llm_shared import aclose_shared_clients
from mafia_arena.engine.game import Game
from mafia_arena.llm.breaker import reset_breakers
from mafia_arena.rules import load_variant
from mafia_arena.runner.log import GameLog, replay
from mafia_arena.runner.match import MatchResult, play_match
from mafia_arena.views.view import View, view_of

Answer = Callable[[dict[str, Any]], Action | None]


def system_of(body: dict[str, Any]) -> str:
    return next((m["content"] for m in body["messages"] if m["role"] == "system"), "")


def last_user(body: dict[str, Any]) -> str:
    return next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")


def enum_of(body: dict[str, Any]) -> list[str] | None:
    """The legal options of a `choose` request (its JSON schema's enum), else None."""
    fmt = body.get("response_format") or {}
    schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
    if not schema:
        return None
    return list(schema["properties"]["choice"]["enum"])


def auto_answer(body: dict[str, Any]) -> Action:
    """A legal answer: the first option of a choice, beliefs, or a short speech."""
    options = enum_of(body)
    if options is not None:
        return reply(f'{{"choice": "{options[0]}", "reason": "auto"}}')
    question = last_user(body)
    if "probability" in question:
        return reply("P1: 0.2\nP2: 0.8\nP3: 0.4\nP4: 0.6\nP5: 0.1\nP6: 0.9\nP7: 30%")
    return reply("I suspect P2 is mafia, they were too quiet.")


class _AutoActions(deque[Action]):
    """Scripted actions first; then `answer(request)` (or `auto_answer`) for each request."""

    def __init__(self, fake: FakeOpenAI) -> None:
        super().__init__()
        self.fake = fake
        self.answer: Answer | None = None

    def __bool__(self) -> bool:
        return True

    def popleft(self) -> Action:
        if len(self):
            return super().popleft()
        body = self.fake.requests[-1]  # appended under the fake's lock just before
        special = self.answer(body) if self.answer is not None else None
        return special if special is not None else auto_answer(body)


def set_answer(fake: FakeOpenAI, answer: Answer) -> None:
    """Answer requests with `answer(body)` (None: the automatic answer)."""
    assert isinstance(fake.actions, _AutoActions)
    fake.actions.answer = answer


def install_auto(fake: FakeOpenAI) -> FakeOpenAI:
    fake.actions = _AutoActions(fake)
    return fake


def auto_fake_with_fresh_breakers() -> Iterator[FakeOpenAI]:
    """A fixture body for tests outside `tests/llm_agent` (whose conftest resets the
    process-wide endpoint breakers itself): an automatically answering fake server,
    every breaker closed before and after, the server closed at the end."""
    server = install_auto(FakeOpenAI())
    reset_breakers()
    try:
        yield server
    finally:
        server.close()
        reset_breakers()


SHORT = {"discussion_rounds": 1}
TEST_HOST_KEY = b"llm-agent-tests-host-key-32bytes"


async def play(
    agents: Sequence[Agent], seed: int = 1, overrides: dict[str, Any] | None = None, **kwargs: Any
) -> MatchResult:
    """A 7-player standard game (one discussion round unless told); closes the shared
    clients' connections of this event loop afterwards. The host key is fixed, so the
    same seed gives every seat the same seat seed in every call (replays compare)."""
    overrides = SHORT if overrides is None else overrides
    kwargs.setdefault("host_key", TEST_HOST_KEY)
    try:
        return await play_match(
            load_variant("standard", overrides), agents, seed, overrides, **kwargs
        )
    finally:
        await aclose_shared_clients()


def assert_replays(log: GameLog, folder: Path) -> GameLog:
    """The log survives a save/load round trip and alone rebuilds the same game."""
    loaded = GameLog.load(log.save(folder / "game.jsonl"))
    assert [e.to_json() for e in loaded.events] == [e.to_json() for e in log.events]
    again = replay(loaded)
    assert again.over
    assert [e.to_json() for e in again.events] == [e.to_json() for e in loaded.events]
    return loaded


def first_view(
    kind: str, seat_filter: Callable[[Game, int], bool] | None = None, seed: int = 1
) -> View:
    """A view with a pending request of `kind`, reached by answering everything else with
    the first choice."""
    game = Game(load_variant("standard", SHORT), 7, seed)
    while not game.over:
        pending = game.pending()
        for seat, request in sorted(pending.items()):
            if request.kind == kind and (seat_filter is None or seat_filter(game, seat)):
                return view_of(game, seat)
        for seat, request in sorted(pending.items()):
            game.submit(seat, request.choices[0])
    raise AssertionError(f"no {kind} request")
