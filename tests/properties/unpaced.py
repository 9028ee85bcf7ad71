"""The learners' envs without the night clock, played in two worlds a seat cannot tell apart.

`differential` compares what a seat observes through the AEC and Parallel envs, whose
nights run on the night clock. Two envs run without it and hand a seat its view only
when the engine asks it, the seat's whole stream so far: the batched env
(`MafiaVectorEnv`) and the team env (`rl.TeamEnv`, over `GameSession` with
``fixed_nights=False``). Their observations are built by another path (no cut, the
seat's fold pulled as it goes), their rows and steps follow the engine's prompts, and
they hand out more than the observation. Here both are played in the worlds of
`differential` and compared as a seat sees them:

- the batched env (`run_vector`): a learner that keeps one trajectory per seat files
  each row under the seat it shows (`infos["seat"]`). The seat sees, each time the row
  shows it, its observation, mask and text and the reward of its last decision; how
  many times it is shown; at the end its final reward (`infos["final_rewards"]`) and,
  where its own decision ended the game, its final observation; and the first showing
  of the next game the row deals itself (`AutoresetMode.SAME_STEP`), whose seed comes
  from the row's own generator, never from the game that ended: where both worlds were
  played to their end, that showing must be the same whatever the games that ended
  held, even where they parted for a reason `legit` allows.
- the team env (`run_team`): the learner plays every decision of the observer's side
  (``kinds=("*",)``), with the co-player's advice in the observation (``advice=True``),
  and the other side replays the same decisions. At each of the observer's steps it
  sees the observation (the advice included), the mask and the advice itself; at the
  end the outcome (``info["won"]``, ``info["winner"]``).

`play_vector` plays the worlds on two one-row vector envs, one engine prompt at a time:
the prompt's seats are answered in the order the row shows them, with the decisions
`differential.pair` makes for both worlds. A night step that asks a seat in one world
only (a role alive there, dead unrevealed in the other: played prompt by prompt, that
world has one prompt more) is answered there alone, and the decisions have parted from
then on (`Worlds.diverged`), as `pair` notes for a card asked in one world only. Every
time the row shows the observer, what it shows is compared with the same showing in the
other world (`differential.compare`: the first difference must be one `legit` allows,
which parts the worlds and names the cards shown for `run_refined`); a showing in one
world only is compared with the other world's end. The decisions it made in each world
are the script `run_team` replays, seat by seat: the team env plays the same games.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from tests.properties.differential import (
    Leak,
    Parted,
    Worlds,
    _part,
    compare,
    fallback,
    pair,
    stream,
)

from mafia_arena.agents import registry
from mafia_arena.agents.base import SyncAgent
from mafia_arena.engine import Choice, Game, Request
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv, TeamSetup
from mafia_arena.rules import load_variant
from mafia_arena.views.view import View

LAYOUTS: tuple[dict[str, Any], ...] = (
    {},
    {"observation": "history", "history_days": 2},
    {"observation": "history", "history_days": 2, "egocentric": True},
)
"""The observation layouts the cases take in turn (`layout`): the v0 vector, the history
encoding, and the history encoding with egocentric ids (the mask and the actions
relative to the seat)."""


def layout(worlds: Worlds) -> dict[str, Any]:
    """The observation layout a case plays in, by its seed (both worlds alike)."""
    return LAYOUTS[worlds.seed % len(LAYOUTS)]


# --------------------------------------------------------------------------- the batched env
class DealtVectorEnv(MafiaVectorEnv):
    """A one-row vector env whose first game is dealt `options` (``deal``, ``hands``,
    as the AEC env's `reset` takes them); the games it deals itself afterwards
    (autoreset) come from the row's generator, as in the env proper."""

    def __init__(self, worlds: Worlds, options: dict[str, Any]) -> None:
        super().__init__(
            worlds.variant, worlds.players, 1, worlds.overrides, text=True, **layout(worlds)
        )
        self.dealt: dict[str, Any] | None = dict(options)

    def _new_game(self, row: int, seed: int) -> Game:
        game = super()._new_game(row, seed)
        if self.dealt is None:
            return game
        game = Game(self.variant, self.players, seed, **self.dealt)
        self.dealt = None
        for tracker in self._trackers[row]:
            tracker.advance(game)  # rebinds the seat to the dealt game
        return game


class Row:
    """One world's row, what its observer was shown (in order), and the decisions it
    was given (in order: the script of `run_team`)."""

    def __init__(self, worlds: Worlds, options: dict[str, Any]) -> None:
        self.env = DealtVectorEnv(worlds, options)
        self.observer = worlds.observer
        obs, infos = self.env.reset(seed=worlds.seed)
        self.game = self.env.games[0]
        self.shown: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None
        self.next: tuple[int, bytes, bytes] | None = None
        """The row's first showing of the next game it dealt itself (once `end` is set)."""
        self.order: list[tuple[int, Choice]] = []
        self._record(obs, infos, 0.0)

    def _record(self, obs: dict[str, np.ndarray], infos: dict[str, Any], reward: float) -> None:
        """What the observer sees when the row shows it: its stream (for `compare`),
        the row's observation, mask and text, and the reward of its last decision."""
        if int(infos["seat"][0]) != self.observer:
            return
        self.shown.append(
            {
                "stream": stream(self.game, self.observer),
                "observation": obs["observation"][0].tobytes(),
                "mask": obs["action_mask"][0].tobytes(),
                "text": infos["text"][0],
                "reward": reward,
            }
        )

    def answer(self, seat: int, choice: Choice) -> None:
        """Step the row with `choice` for `seat`, which it must be showing."""
        assert int(self.env.seats[0]) == seat, f"the row shows P{self.env.seats[0] + 1}"
        self.order.append((seat, choice))
        action = self.env.table.id_of(choice)
        rotations = self.env._rotations
        if rotations is not None:  # egocentric: the seat's relative id
            action = int(np.flatnonzero(rotations[seat] == action)[0])
        obs, rewards, terminations, _, infos = self.env.step(np.array([action]))
        mine = float(rewards[0]) if seat == self.observer else 0.0
        if not terminations[0]:
            self._record(obs, infos, mine)
            return
        final = infos["final_obs"][0]
        self.end = {
            "stream": stream(self.game, self.observer),
            "final_reward": float(infos["final_rewards"][0][self.observer]),
            "reward": mine,
            "final_obs": (
                None
                if seat != self.observer
                else final["observation"].tobytes() + final["action_mask"].tobytes()
            ),
        }
        # the row's next game, dealt from the row's own generator
        self.next = (
            int(infos["seat"][0]),
            obs["observation"][0].tobytes(),
            obs["action_mask"][0].tobytes(),
        )


@dataclass
class Script:
    """One world's decisions, each seat's in the order it made them, and where the
    decisions of the two worlds parted (`Worlds.diverged` was set): how many decisions
    each seat had made before (None: they never parted). Per seat, since the team env
    asks the learner's seats of a prompt before the others, the vector row in seat
    order; each seat's own order is the same in both."""

    queues: dict[int, list[Choice]]
    parted_at: dict[int, int] | None = None
    made: dict[int, int] = field(default_factory=dict)
    off: bool = False
    """Whether a replay has left the script (it ran out, or it had no such decision)."""


def play_vector(worlds: Worlds, policy_seed: int) -> tuple[int, tuple[Script, Script]]:
    """Both worlds through one-row vector envs (see the module); returns the prompts
    compared and each world's script. Raises `Leak`; sets `Worlds.keep` where the
    worlds parted on a card shown (`Parted`)."""
    rows = [Row(worlds, worlds.options_a), Row(worlds, worlds.options_b)]
    rng = random.Random(policy_seed)
    worlds.diverged, worlds.asked_once, worlds.keep = "", None, frozenset()
    worlds.games = (rows[0].game, rows[1].game)
    seat = worlds.observer
    prompts = compared = 0
    parted_at: tuple[int, int] | None = None
    try:
        while True:
            for i in range(compared, min(len(rows[0].shown), len(rows[1].shown))):
                compare(rows[0].shown[i], rows[1].shown[i], f"vector decision {i}", worlds)
            compared = min(len(rows[0].shown), len(rows[1].shown))
            before = (len(rows[0].order), len(rows[1].order))
            marks = [len(row.game.step_marks) for row in rows]
            behind = marks.index(min(marks))
            if marks[0] != marks[1] and not rows[behind].game.over:
                # a night step (or the dawn) one world has reached and the other not: a
                # step the first skipped (its role dead there), played here alone
                for s, request in sorted(rows[behind].game.pending().items()):
                    _part(worlds, s, request, "AB"[behind])
                    rows[behind].answer(s, fallback(request))
            elif rows[0].end is not None or rows[1].end is not None:
                if rows[0].end is not None and rows[1].end is not None:
                    _compare_nexts(rows[0], rows[1])
                ends = [row.end or {"stream": stream(row.game, seat)} for row in rows]
                for i in range(compared, max(len(rows[0].shown), len(rows[1].shown))):
                    # a showing in one world only: against the other world's end
                    a, b = (
                        r.shown[i] if i < len(r.shown) else e
                        for r, e in zip(rows, ends, strict=True)
                    )
                    compare(a, b, f"vector decision {i}", worlds)
                compare(ends[0], ends[1], f"vector end after prompt {prompts}", worlds)
                break
            else:
                pending = [row.game.pending() for row in rows]
                chosen = pair(worlds, pending[0], pending[1], rng)
                for row, picks in zip(rows, chosen, strict=True):
                    for s, choice in sorted(picks.items()):
                        row.answer(s, choice)
                prompts += 1
            if worlds.diverged and parted_at is None:
                parted_at = before
    except Parted as parted:
        worlds.keep = parted.keep
    first, second = (
        Script(_queues(r.order), _counts(r.order, parted_at, w)) for w, r in enumerate(rows)
    )
    return prompts, (first, second)


def _compare_nexts(a: Row, b: Row) -> None:
    """The next games the rows dealt themselves must start alike, whatever the games
    that ended were (their cards, their decisions, their length): `Leak` otherwise."""
    if a.next != b.next:
        raise Leak("the row's next game (autoreset) starts otherwise in A than in B")


def _queues(order: list[tuple[int, Choice]]) -> dict[int, list[Choice]]:
    """Each seat's decisions of `order`, in order."""
    queues: dict[int, list[Choice]] = {}
    for seat, choice in order:
        queues.setdefault(seat, []).append(choice)
    return queues


def _counts(
    order: list[tuple[int, Choice]], parted_at: tuple[int, int] | None, world: int
) -> dict[int, int] | None:
    """How many decisions each seat made in `world` before the decisions parted."""
    if parted_at is None:
        return None
    return dict(Counter(seat for seat, _ in order[: parted_at[world]]))


def run_vector(worlds: Worlds, policy_seed: int, seen: Any = None) -> int:
    """`play_vector` as a `differential.Runner` (for `run_refined`): the prompts
    compared. `seen` is not counted here."""
    return play_vector(worlds, policy_seed)[0]


# --------------------------------------------------------------------------- the team env
REPLAY = "replay-script"
"""The player name the other side's seats are given in `run_team` (`replaying`)."""


class ScriptedSeat(SyncAgent):
    """A seat that plays its world's script (`Script`): the next decision if it is this
    seat's and legal now, else (off the script) a pass or the first choice, and from then
    on the worlds are no longer played alike (`Worlds.diverged`)."""

    name = REPLAY

    def __init__(self, script: Script, worlds: Worlds) -> None:
        super().__init__()
        self.script, self.worlds, self.seat = script, worlds, -1

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.seat = seat

    def decide(self, view: View) -> Choice:
        assert view.request is not None
        return next_decision(self.script, self.worlds, self.seat, view.request)


def next_decision(script: Script, worlds: Worlds, seat: int, request: Request) -> Choice:
    """The script's next decision for `seat` (see `ScriptedSeat`)."""
    made = script.made.get(seat, 0)
    if script.parted_at is not None and made >= script.parted_at.get(seat, 0):
        worlds.diverged = worlds.diverged or "the scripted decisions parted"
    queue = script.queues.get(seat, [])
    if not script.off and made < len(queue) and queue[made] in request.choices:
        script.made[seat] = made + 1
        return queue[made]
    script.off = True
    worlds.diverged = worlds.diverged or f"P{seat + 1} left the script"
    return fallback(request)


@contextmanager
def replaying(current: list[Script], worlds: Worlds) -> Iterator[None]:
    """`REPLAY` names a `ScriptedSeat` of the script `current[0]` while the block runs
    (the team env builds its players by name when it deals a game)."""
    factories = registry._SCRIPTED
    before = factories.get(REPLAY)
    factories[REPLAY] = lambda: ScriptedSeat(current[0], worlds)
    try:
        yield
    finally:
        if before is None:
            del factories[REPLAY]
        else:
            factories[REPLAY] = before


def team_side(worlds: Worlds) -> str:
    """The side of the observer's card (the team env's learner plays that side)."""
    variant = load_variant(worlds.variant, worlds.overrides)
    faction = variant.roles[worlds.deal_a[worlds.observer]].faction
    return variant.factions[faction].side


class Team:
    """One world's team env, dealt the world's cards and replaying the world's script."""

    def __init__(self, worlds: Worlds, options: dict[str, Any], script: Script) -> None:
        setup = TeamSetup(
            worlds.variant,
            worlds.players,
            worlds.overrides,
            side=team_side(worlds),
            kinds=("*",),
            co_player="heuristic",
            opponents=(REPLAY,),
            advice=True,
            **layout(worlds),
        )
        self.env = TeamEnv(setup, seed=worlds.seed)
        session = self.env.session
        session.new_game = partial(session.new_game, **options)  # type: ignore[method-assign]
        self.script, self.worlds, self.observer = script, worlds, worlds.observer
        self.end: dict[str, Any] | None = None
        self.obs, self.info = self.env.reset(
            seed=worlds.seed, options={"game_seed": worlds.seed, "opponent": REPLAY}
        )
        self.game = session.current

    def advance(self) -> dict[str, Any]:
        """Step the learner's other seats until the observer decides or the game ends;
        what the observer sees then: at its decision the observation (the advice in
        it), the mask and the advice, at the end the outcome; with its stream (for
        `compare`)."""
        while self.end is None and int(self.info["seat"]) != self.observer:
            self.step(int(self.info["seat"]))
        if self.end is not None:
            return self.end
        return {
            "stream": stream(self.game, self.observer),
            "observation": self.obs.tobytes(),
            "mask": self.info["action_mask"].tobytes(),
            "advice": self.env.teacher_action(),
        }

    def step(self, seat: int) -> None:
        """The learner's decision for `seat` (the one `info` names), from the script."""
        request = self.game.request(seat)
        assert request is not None
        choice = next_decision(self.script, self.worlds, seat, request)
        table = self.env.session.table
        action = table.id_of(choice)
        if self.env.setup.egocentric:  # the seat's relative id
            action = int(np.flatnonzero(table.rotation(seat) == action)[0])
        self.obs, _, done, _, self.info = self.env.step(action)
        if done:
            self.end = {
                "stream": stream(self.game, self.observer),
                "won": self.info.get("won"),
                "winner": self.info.get("winner"),
            }


def run_team(worlds: Worlds, policy_seed: int, seen: Counter[str] | None = None) -> int:
    """Both worlds through the batched env (`play_vector`, compared first), then through
    the team env replaying the script it made (see the module); returns the observer's
    decisions compared in the team env. `seen` counts both: ``vector`` the prompts
    compared in the batched env, ``team`` those decisions."""
    prompts, scripts = play_vector(worlds, policy_seed)
    worlds.diverged, worlds.asked_once, worlds.keep = "", None, frozenset()
    current = [scripts[0]]
    with replaying(current, worlds):
        teams = []
        for script, options in zip(scripts, (worlds.options_a, worlds.options_b), strict=True):
            current[0] = script
            teams.append(Team(worlds, options, script))
    worlds.games = (teams[0].game, teams[1].game)
    decisions = 0
    try:
        while True:
            a, b = (team.advance() for team in teams)
            compare(a, b, f"team decision {decisions}", worlds)
            if teams[0].end is not None or teams[1].end is not None:
                break
            for team in teams:
                team.step(team.observer)
            decisions += 1
    except Parted as parted:
        worlds.keep = parted.keep
    if seen is not None:
        seen.update({"vector": prompts, "team": decisions})
    return decisions
