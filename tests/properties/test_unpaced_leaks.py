"""Differential leak tests of the learners' envs that run without the night clock: the
batched env (`MafiaVectorEnv`) and the team env (`rl.TeamEnv`).

See `tests/properties/unpaced.py` for what a seat observes there and how the two worlds
are played, and `tests/properties/differential.py` for the worlds. The default run plays
`CASES` cases of every setting of `SETTINGS` (every variant, several switch settings)
in the three observation layouts in turn, refined around the cards shown like the
other comparisons (`run_refined`), and a few Palermo cases whose intrigue cards move
too. The mutation checks show that the comparison catches an observation, an advice
and a next game that follow from a hidden card.
"""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

import pytest
from tests.properties.differential import (
    SETTINGS,
    Leak,
    Worlds,
    card_case,
    describe,
    random_case,
    run_refined,
)
from tests.properties.unpaced import LAYOUTS, layout, run_team, run_vector

from mafia_arena.engine import Game
from mafia_arena.env.vector import MafiaVectorEnv
from mafia_arena.rl.team_env import TeamEnv

CASES = 2
"""Cases per setting: a second or two a case, both envs and every refined attempt
(Palermo's and the dictator's longer games a few seconds)."""


def _both(worlds: Worlds, policy_seed: int, label: str) -> Counter[str]:
    """The case through both envs (`run_team` plays the batched env first), refined;
    what each compared (``vector``: prompts of the batched env, ``team``: the
    observer's decisions in the team env)."""
    compared: Counter[str] = Counter()
    try:
        run_refined(run_team, worlds, policy_seed, compared)
    except Leak as leak:
        raise AssertionError(f"{label} ({describe(worlds)}, {layout(worlds)}): {leak}") from None
    return compared


@pytest.mark.parametrize("setting", range(len(SETTINGS)), ids=[f"{v}{o}" for v, o in SETTINGS])
def test_a_seat_of_the_batched_and_team_envs_observes_the_same_in_worlds_it_cannot_tell_apart(
    setting: int,
) -> None:
    compared: Counter[str] = Counter()
    for index in range(setting, CASES * len(SETTINGS), len(SETTINGS)):
        worlds, policy_seed = random_case(index)
        compared += _both(worlds, policy_seed, f"case {index}")
    assert compared["vector"] > 0 and compared["team"] > 0, compared


CARD_CASES = 2


def test_a_seat_of_the_learners_envs_cannot_tell_who_holds_the_other_intrigue_cards() -> None:
    """Palermo: world B moves every intrigue card but the observer's to other holders
    (within their camps) as well (`card_case`)."""
    played, index = 0, 0
    while played < CARD_CASES:
        case = card_case(index)
        index += 1
        if case is None:
            continue
        worlds, policy_seed = case
        compared = _both(worlds, policy_seed, f"cards case {index - 1}")
        assert compared["vector"] > 0, compared
        played += 1


def test_the_cases_take_every_observation_layout() -> None:
    """The batch plays the v0, history and egocentric history layouts alike."""
    taken = {str(layout(random_case(i)[0])) for i in range(CASES * len(SETTINGS))}
    assert taken == {str(each) for each in LAYOUTS}


def _marked(game: Game) -> float:
    """A number that follows from the whole deal (a checksum of the cards)."""
    cards = ",".join(seat.card for seat in game.state.seats)
    return float(zlib.crc32(cards.encode()) % 251)


def test_the_row_comparison_catches_an_observation_that_marks_a_hidden_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mutation check: a row whose observation carries a number read from the deal (the
    first entry overwritten) is caught at the observer's first showing."""
    shown = MafiaVectorEnv._show

    def leaky(self: MafiaVectorEnv, row: int, game: Game) -> None:
        shown(self, row, game)
        self._obs[row, 0] = _marked(game)

    worlds, policy_seed = random_case(SETTINGS.index(("standard", {})))
    assert run_vector(worlds, policy_seed) > 0
    monkeypatch.setattr(MafiaVectorEnv, "_show", leaky)
    with pytest.raises(Leak, match="vector decision 0"):
        run_vector(worlds, policy_seed)


def test_the_team_comparison_catches_advice_that_reads_a_hidden_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mutation check: a co-player's advice that follows from the deal (in the learner's
    observation, and as `teacher_action`) is caught, while the batched env, which shows
    no advice, plays the same case through."""

    def peeking(self: TeamEnv) -> int:
        return int(_marked(self.session.current)) % self.actions

    worlds, policy_seed = random_case(SETTINGS.index(("standard", {})))
    assert run_team(worlds, policy_seed) > 0
    monkeypatch.setattr(TeamEnv, "teacher_action", peeking)
    with pytest.raises(Leak, match="team decision 0"):
        run_team(worlds, policy_seed)


def test_the_row_comparison_catches_a_next_game_that_follows_from_the_game_that_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mutation check: the row's next game (autoreset) must start alike whatever the game
    that ended held; a next seed drawn from the ended game's deal is caught once both
    worlds reach their end."""
    drawn = MafiaVectorEnv._new_game

    def dealt_on(self: MafiaVectorEnv, row: int, seed: int) -> Any:
        if self.games:  # an autoreset: the row's game that ended is still there
            seed = (seed + int(_marked(self.games[row]))) % 2**31
        return drawn(self, row, seed)

    worlds, policy_seed = random_case(CASE_TO_THE_END)
    assert run_refined(run_vector, worlds, policy_seed) > 0
    monkeypatch.setattr(MafiaVectorEnv, "_new_game", dealt_on)
    with pytest.raises(Leak, match="next game"):
        run_refined(run_vector, worlds, policy_seed)


CASE_TO_THE_END = 16
"""A case whose worlds are played alike to their end (standard, 9 players)."""
