"""Forum pacing in the Parallel env (`env/forum_pace.py`): every window of a forum game
takes `rules.forum.ticks` steps, so the number of steps a seat sees before the thread,
the phase's outcome and the next window tells it nothing of what others did in private.
(The AEC env's counterpart is in `test_env_contract.py`.)"""

from __future__ import annotations

from typing import Any

from mafia_arena import env as mafia_env
from mafia_arena.engine import PASS

PLAYERS, SEED = 12, 3
OBSERVER, WRITER, READER = 0, 1, 2


def _actions(env: mafia_env.raw_parallel_env, chatty: bool, sent: dict[Any, int]) -> dict[str, int]:
    """Every pending seat passes, except that in the chatty game the writer and the
    reader exchange private messages for the first rounds of every window."""
    session = env.session
    game = session.current
    actions = {}
    for seat in session.pending_seats():
        choice = PASS
        key = (game.state.day, game.state.phase)
        if chatty and seat in (WRITER, READER) and sent.get(key, 0) < 4:
            request = game.request(seat)
            assert request is not None
            other = READER if seat == WRITER else WRITER
            pm = [c for c in request.choices if c.verb == "pm" and c.target == other]
            if pm:
                sent[key] = sent.get(key, 0) + 1
                choice = pm[0]
        actions[f"player_{seat}"] = session.table.id_of(choice)
    return actions


def test_a_parallel_forum_window_takes_its_full_rounds_whatever_others_write() -> None:
    """The same game twice, one with private messages between two other seats: the
    observer's observations, infos and step count agree step for step to the end."""
    envs = [mafia_env.raw_parallel_env("dictator", PLAYERS) for _ in range(2)]
    for env in envs:
        env.reset(seed=SEED)
    sent: dict[Any, int] = {}
    agent = f"player_{OBSERVER}"
    steps = 0
    while envs[0].agents:
        results = [env.step(_actions(env, bool(chatty), sent)) for chatty, env in enumerate(envs)]
        (obs_a, _, done_a, _, info_a), (obs_b, _, done_b, _, info_b) = results
        assert obs_a[agent]["observation"].tolist() == obs_b[agent]["observation"].tolist()
        assert obs_a[agent]["action_mask"].tolist() == obs_b[agent]["action_mask"].tolist()
        assert info_a[agent] == info_b[agent], f"step {steps}"
        assert done_a == done_b
        steps += 1
    assert not envs[1].agents
    assert len(sent) >= 3 and max(sent.values()) > 1, sent
