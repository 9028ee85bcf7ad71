"""The ``history`` observation layout decoded piece by piece and checked against what
the seat knows: a death sets its day and cause, day d's ballots land in day d's slot,
the egocentric rotation moves every row and column (and action id) for every seat, and
seat rows mean the same at every player count; mis-encoding any one piece (left blank,
or every value of the seats' rows flipped) fails the check. Also: the layout is
versioned in the env metadata and the omniscient `state()` holds the true roles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mafia_arena import env as mafia_env
from mafia_arena.engine import Game
from mafia_arena.engine.catalogue import Death, NoDeath, Votes
from mafia_arena.env.actions import SECOND_SEAT, build_action_table
from mafia_arena.rules import load_variant
from mafia_arena.views.encode import PHASES
from mafia_arena.views.encode_history import (
    CAUSES,
    HistoryEncoder,
    HistoryLayout,
    ObservationSpec,
    StateEncoder,
)
from mafia_arena.views.view import SeatTracker, View

CASES = [("standard", 7, 2), ("classic", 10, 5), ("simple", 6, 1), ("club", 12, 3)]


def _ones(block: np.ndarray) -> set[tuple[int, ...]]:
    return {tuple(int(i) for i in index) for index in np.argwhere(block > 0)}


def check_history(layout: HistoryLayout, vector: np.ndarray, view: View) -> None:
    """Assert that every piece of `vector` says what the seat knows (module docstring of
    `views.encode_history`)."""
    d, k, me = layout.decode(vector), view.knowledge, view.seat
    n, today, days = layout.players, k.day, layout.days

    def row(seat: int) -> int:
        return layout.position(seat, me)

    def slot(day: int) -> int:
        return min(today - day, days)

    assert d["players"][0] == pytest.approx(n / layout.seats)
    phase = 3 if k.over else PHASES.index(k.phase) if k.phase in PHASES else 0
    assert _ones(d["phase"]) == {(phase,)}
    assert d["day"][0] == pytest.approx(min(1.0, today / layout.max_rounds))
    free = view.request is not None and view.request.free_text
    assert d["free_text"].tolist() == [float(free)]
    assert _ones(d["role"]) == (
        {(layout.role_index[k.role],)} if k.role in layout.role_index else set()
    )
    assert _ones(d["faction"]) == (
        {(layout.faction_index[k.faction],)} if k.faction in layout.faction_index else set()
    )
    assert d["living"][0] == pytest.approx(sum(k.alive[:n]) / n)
    picked = [int(c.split(":")[1]) for c in k.latest_picks.values() if c.split(":")[-1].isdigit()]
    shares = {(row(t), 0): picked.count(t) / len(picked) for t in set(picked)}
    team = d["rows.team_pick"]
    assert {(int(r), int(c)): float(team[r, c]) for r, c in np.argwhere(team > 0)} == (
        pytest.approx(shares)
    )
    assert _ones(d["rows.present"]) == {(r, 0) for r in range(n)}
    assert _ones(d["rows.me"]) == {(row(me), 0)}
    if layout.spec.egocentric:
        assert d["rows.me"][0, 0] == 1.0
    assert _ones(d["rows.alive"]) == {(row(s), 0) for s, a in enumerate(k.alive) if a}
    died = {
        (row(seat), CAUSES.index(cause) if cause in CAUSES else 3) for _, seat, cause in k.deaths
    }
    assert _ones(d["rows.death_cause"]) == died
    for day, seat, _ in k.deaths:
        assert d["rows.death_day"][row(seat), 0] == pytest.approx(min(1.0, day / layout.max_rounds))
    for piece, roles in (("rows.revealed", k.revealed), ("rows.ally", k.allies)):
        assert _ones(d[piece]) == {(row(s), layout.role_index[r]) for s, r in roles.items()}
    assert _ones(d["rows.check"]) == {(row(t), layout.result_index[r]) for t, r in k.checks.items()}
    assert _ones(d["rows.silenced"]) == {(row(s), 0) for s in k.silenced}
    assert _ones(d["rows.nominee"]) == {(row(s), 0) for s in k.nominees.get(today, ())}
    assert _ones(d["quiet_nights"]) == {(slot(day),) for day in k.quiet_nights}
    ballots = {
        (row(v), slot(day), row(t))
        for day, votes in k.ballots
        for v, t in votes.votes.items()
        if t is not None
    }
    assert _ones(d["rows.ballot"]) == ballots
    nominations = {(row(s), slot(day), row(t)) for day, _, s, t in k.nominations}
    assert _ones(d["rows.nomination"]) == nominations
    said: dict[str, set[tuple[int, ...]]] = {
        "accuse": set(),
        "vouch": set(),
        "claim_mafia": set(),
        "claim_innocent": set(),
    }
    roles_claimed = set()
    for s in k.said:
        c = s.claim
        if c.kind == "claim_role" and (c.value or "").lower() in layout.role_lower:
            assert c.value is not None
            roles_claimed.add((row(s.seat), layout.role_lower[c.value.lower()]))
        elif c.kind in ("accuse", "vouch") and c.target is not None:
            said[c.kind].add((row(s.seat), slot(s.day), row(c.target)))
        elif c.kind == "claim_result" and c.target is not None:
            piece = "claim_mafia" if c.value == "mafia" else "claim_innocent"
            said[piece].add((row(s.seat), slot(s.day), row(c.target)))
    assert _ones(d["rows.role_claim"]) == roles_claimed
    for piece, cells in said.items():
        assert _ones(d[f"rows.{piece}"]) == cells, piece
    kind = "none" if view.request is None else view.request.kind
    assert _ones(d["request"]) == {(layout.kind_index.get(kind, len(layout.kinds) - 1),)}
    padding = layout.rows(vector)[n:]
    assert not padding.any()  # rows beyond the player count stay empty
    assert ((vector >= 0) & (vector <= 1)).all()


def play(variant: str, players: int, seed: int, spec: ObservationSpec, visit) -> None:
    """A random game; `visit(layout, vector, view, new_events)` at every decision."""
    rules = load_variant(variant)
    game = Game(rules, players, seed)
    encoder = HistoryEncoder(rules, players, spec)
    trackers = [SeatTracker(s) for s in range(players)]
    seen = [0] * players
    rng = random.Random(seed)
    while not game.over:
        for seat, request in sorted(game.pending().items()):
            view = trackers[seat].view(game)
            new = view.knowledge.events[seen[seat] :]
            seen[seat] = len(view.knowledge.events)
            visit(encoder.layout, encoder.encode(view), view, new)
            game.submit(seat, rng.choice(request.choices))


@pytest.mark.parametrize(("variant", "players", "seed"), CASES)
@pytest.mark.parametrize("egocentric", [False, True])
def test_every_piece_says_what_the_seat_knows(variant, players, seed, egocentric) -> None:
    spec = ObservationSpec("history", history_days=2, egocentric=egocentric, max_players=26)
    events = {"death": 0, "ballot": 0, "quiet": 0}

    def visit(layout, vector, view, new) -> None:
        check_history(layout, vector, view)
        d, me, today = layout.decode(vector), view.seat, view.knowledge.day
        for entry in new:  # the named consequences of this step's events
            fact = entry.fact
            if isinstance(fact, Death):
                r = layout.position(fact.seat, me)
                assert d["rows.alive"][r, 0] == 0.0
                assert d["rows.death_day"][r, 0] == pytest.approx(entry.day / layout.max_rounds)
                cause = CAUSES.index(fact.cause) if fact.cause in CAUSES else 3
                assert d["rows.death_cause"][r, cause] == 1.0
                events["death"] += 1
            elif isinstance(fact, Votes):
                s = min(today - entry.day, layout.days)
                for voter, target in fact.votes.items():
                    if target is not None:
                        rows = layout.position(voter, me), layout.position(target, me)
                        assert d["rows.ballot"][rows[0], s, rows[1]] == 1.0
                        events["ballot"] += 1
            elif isinstance(fact, NoDeath):
                assert d["quiet_nights"][min(today - entry.day, layout.days)] == 1.0
                events["quiet"] += 1

    for offset in range(3):
        play(variant, players, seed + offset, spec, visit)
    assert events["death"] and events["ballot"]


def test_ballots_of_day_d_sit_in_day_d_slot_as_the_days_pass() -> None:
    """A ballot cast on day d is in slot today - d on every later day, then in the
    merged older slot once it leaves the window."""
    spec = ObservationSpec("history", history_days=2)
    placed: dict[int, set[int]] = {}

    def visit(layout, vector, view, new) -> None:
        d = layout.decode(vector)
        for day, votes in view.knowledge.ballots:
            voter, target = next((v, t) for v, t in votes.votes.items() if t is not None)
            s = min(view.knowledge.day - day, layout.days)
            assert d["rows.ballot"][voter, s, target] == 1.0
            placed.setdefault(day, set()).add(s)

    for seed in range(6):
        play("standard", 7, seed, spec, visit)
    assert any({1, 2} <= slots for slots in placed.values())  # seen yesterday, then older


@pytest.mark.parametrize(("variant", "players", "seed"), CASES[:3])
def test_egocentric_rotation_is_right_for_every_seat(variant, players, seed) -> None:
    rules = load_variant(variant)
    plain = HistoryEncoder(rules, players, ObservationSpec("history", 2))
    ego = HistoryEncoder(rules, players, ObservationSpec("history", 2, egocentric=True))
    slots = ("ballot", "nomination", "accuse", "vouch", "claim_mafia", "claim_innocent")
    compared: set[int] = set()

    def visit(layout, vector, view, new) -> None:
        me = view.seat
        p, e = plain.layout.decode(plain.encode(view)), ego.layout.decode(ego.encode(view))
        order = [(me + r) % players for r in range(players)]  # ego row r = seat order[r]
        for name, block in p.items():
            if not name.startswith("rows."):
                assert (e[name] == block).all(), name
            elif name.removeprefix("rows.") in slots:
                assert (e[name] == block[order][:, :, order]).all(), name
            else:
                assert (e[name] == block[order]).all(), name
        compared.add(me)

    for offset in range(4):
        play(variant, players, seed + offset, ObservationSpec("history", 2), visit)
    assert compared == set(range(players))


def test_egocentric_action_ids_are_relative_to_the_deciding_seat() -> None:
    par = mafia_env.raw_parallel_env("standard", 7, observation="history", egocentric=True)
    table = par.session.table
    for seat in range(7):
        rotation = table.rotation(seat)
        assert sorted(rotation.tolist()) == list(range(table.size))  # a permutation
        for ego_id, key in enumerate(table.keys):
            choice = table.choice_of(ego_id)
            absolute = table.choice_of(int(rotation[ego_id]))
            assert absolute.verb == choice.verb and absolute.value == choice.value, key
            if choice.target is not None:
                assert absolute.target == (choice.target + seat) % 7
    observations, infos = par.reset(seed=5)
    rng = np.random.default_rng(0)
    voted = 0
    while par.agents:
        actions = {}
        for agent, obs in observations.items():
            seat = int(agent.rsplit("_", 1)[1])
            request = infos[agent]["request"]
            legal = set(np.flatnonzero(obs["action_mask"]).tolist())
            if request is not None:
                assert {c["action"] for c in request["choices"]} == legal
                if request["kind"] == "vote":  # "target:t" is the seat t places after me
                    for c in request["choices"]:
                        if c["key"].startswith("target:"):
                            relative = (int(c["key"].split(":")[1]) - seat) % 7
                            assert table.keys[c["action"]] == f"target:{relative}"
                            voted += 1
            actions[agent] = int(rng.choice(sorted(legal)))
        observations, *_, infos = par.step(actions)
    assert voted


def test_seat_rows_mean_the_same_at_every_player_count() -> None:
    """With max_players = N the vector has one size for 7 and 10 players and every piece
    keeps its offset; the checker above, which reads only piece names, holds for both."""
    rules = load_variant("standard")
    spec = ObservationSpec("history", 2, egocentric=True, max_players=12)
    layouts = [HistoryLayout(rules, n, spec) for n in (5, 7, 10)]
    assert len({lay.size for lay in layouts}) == 1
    assert len({lay.row_size for lay in layouts}) == 1
    for name in layouts[0].pieces:
        assert len({lay.pieces[name].offset for lay in layouts}) == 1
    for name in layouts[0].globals:
        assert len({lay.globals[name].offset for lay in layouts}) == 1
    for players in (5, 7, 10):
        play(
            "standard", players, players, spec, lambda lay, v, view, _: check_history(lay, v, view)
        )


def test_layout_name_and_version_are_in_the_env_metadata() -> None:
    aec = mafia_env.env("standard", 7, observation="history", history_days=4, egocentric=True)
    meta = aec.unwrapped.metadata["observation"]
    assert meta == {
        "layout": "history",
        "version": 1,
        "history_days": 4,
        "egocentric": True,
        "max_players": None,
        "size": aec.unwrapped.session.encoder.size,
    }
    assert mafia_env.env("standard", 7).unwrapped.metadata["observation"]["layout"] == "v0"
    with pytest.raises(ValueError, match="known layouts"):
        mafia_env.raw_env("standard", 7, observation="pixels")
    with pytest.raises(ValueError, match="need observation='history'"):
        mafia_env.raw_env("standard", 7, egocentric=True)


def test_state_is_the_omniscient_encoding_and_no_observation_holds_it() -> None:
    rules = load_variant("standard")
    par = mafia_env.raw_parallel_env(rules, 7, observation="history")
    observations, _ = par.reset(seed=11)
    game = par.session.game
    assert game is not None
    state = par.state()
    encoder = StateEncoder(rules, 7, par.session.observation)
    assert par.state_space.shape == state.shape == (encoder.size,)
    layout = encoder.layout
    truth = state[layout.size :].reshape(layout.seats, encoder.truth_width)
    for seat in game.state.seats:
        assert truth[seat.seat, layout.role_index[seat.role]] == 1.0
    # a villager's observation does not show the mafia; the state does
    villager = next(s.seat for s in game.state.seats if s.role == "villager")
    mafia = [s.seat for s in game.state.seats if s.faction == "mafia"]
    d = par.session.encoder.layout.decode(observations[f"player_{villager}"]["observation"])
    assert not d["rows.ally"].any()
    host = layout.decode(state[: layout.size])
    assert {r for r, _ in _ones(host["rows.ally"])} >= set(mafia)
    assert not host["rows.me"].any()


BREAKAGES = ("blank", "flipped")


def _piece_names() -> list[str]:
    layout = HistoryLayout(load_variant("standard"), 7, ObservationSpec("history"))
    return [*layout.globals, *(f"rows.{name}" for name in layout.pieces)]


@pytest.mark.parametrize("breakage", BREAKAGES)
@pytest.mark.parametrize("piece", _piece_names())
def test_mis_encoding_any_history_piece_fails_the_meaning_check(piece, breakage, monkeypatch):
    """Each piece of the layout, in turn, is encoded wrongly after the encoder wrote it:
    left all zero (a rule that writes nothing) or with every value of the seats' rows
    replaced by 1 - value (one-hots pointing everywhere else, fractions mirrored). The
    meaning check must catch each, over the same games as the meaning test."""
    original = HistoryEncoder.encode_knowledge

    def broken(self, k, request, observer, out=None):
        vector = original(self, k, request, observer, out)
        block = self.layout.decode(vector)[piece]
        if not np.shares_memory(block, vector):  # not an AssertionError: never "caught"
            raise TypeError(f"{piece} decodes to a copy: breaking it would change nothing")
        if piece.startswith("rows."):
            block = block[: self.layout.players]  # padding rows stay as they are
        if breakage == "blank":
            block[...] = 0.0
        else:
            block[...] = 1.0 - block
        return vector

    monkeypatch.setattr(HistoryEncoder, "encode_knowledge", broken)
    spec = ObservationSpec("history", history_days=2, egocentric=True, max_players=26)
    with pytest.raises(AssertionError):
        for variant, players, seed in CASES:
            for offset in range(3):
                play(
                    variant,
                    players,
                    seed + offset,
                    spec,
                    lambda lay, vec, view, new: check_history(lay, vec, view),
                )


@pytest.mark.parametrize(("variant", "players"), [("dictator", 12), ("palermo", 12)])
def test_egocentric_ids_turn_choices_that_name_two_seats(variant, players) -> None:
    """A matchmaker's pair, Palermo's assassination (target, assassin) and the Corrupt
    Cop's transfer name two seats: both are relative, so the layout can be built at all
    (it refused these variants at reset) and every request's mask holds what it offers."""
    table = build_action_table(load_variant(variant), players)
    seat = 5
    rotation = table.rotation(seat)
    assert sorted(rotation.tolist()) == list(range(table.size))
    for ego_id, choice in enumerate(table.choices):
        if choice.verb in SECOND_SEAT and choice.value is not None:  # dictator's transfer: one
            assert choice.target is not None
            absolute = table.choice_of(int(rotation[ego_id]))
            assert absolute.target is not None and absolute.value is not None
            pair = {(choice.target + seat) % players, (int(choice.value) + seat) % players}
            if choice.verb == "compare":
                assert {absolute.target, int(absolute.value)} == pair
            else:
                assert absolute.target == (choice.target + seat) % players
                assert int(absolute.value) == (int(choice.value) + seat) % players
    par = mafia_env.raw_parallel_env(variant, players, observation="history", egocentric=True)
    observations, infos = par.reset(seed=3)
    rng = np.random.default_rng(0)
    while par.agents:
        actions = {}
        for agent, obs in observations.items():
            legal = np.flatnonzero(obs["action_mask"])
            request = infos[agent]["request"]
            if request is not None:
                assert {c["action"] for c in request["choices"]} == set(legal.tolist())
            actions[agent] = int(rng.choice(legal))
        observations, _r, _t, _u, infos = par.step(actions)
