"""Skill ratings from team outcomes: batch Bradley–Terry and canonical-order OpenSkill.

Two complementary ratings are produced, each at three *levels*:

* ``"agent"``: one rating per agent name;
* ``"side"``:  one rating per (agent, side), e.g. how good ``heuristic`` is *as mafia*;
* ``"role"``:  one rating per (agent, role), e.g. ``heuristic`` as ``doctor``.

**Bradley–Terry (primary).** Each decisive game is one comparison between teams: the
winners (seats with ``won`` true) against the losing faction(s) (losing seats grouped by
``faction``; every ``solo`` seat is a team of its own). A team's strength is the *mean*
over its seats of ``theta[entity] + bias[setup, side]``, and the winning team is chosen
with Luce probability ``exp(S_W) / sum_teams exp(S_T)``; with the usual two teams (town
vs mafia) that is exactly Bradley–Terry, ``P(W beats L) = sigmoid(S_W - S_L)``. Keeping
losing factions apart matters: lumping an always-losing solo seat in with the losing
mafia would let its side term "explain" every game and drown the agents' signal.
The side-advantage term ``bias`` (per rule setup, `GameResult.setup`, and side) soaks up
the fact that e.g. town wins more often in some variants, so an agent is not rewarded for
having been dealt the easier side. All parameters are fitted **at once** by penalised
maximum likelihood (Newton's method; Gaussian priors, sd ``prior_sd`` logits on
strengths and ``bias_sd`` on side terms, which keep the fit finite when an agent never
loses). The likelihood is a sum over games, so the result does not depend on game order;
games are additionally fed in canonical order so that even floating-point rounding is
identical. Strengths are centred to mean 0 over rated entities and reported on the Elo
scale: ``1500 + 400/ln(10) * theta``, so +100 Elo ~ 64 % expected win probability.

Draws (``winner`` null, or no seat won) carry no winner/loser contrast and are skipped
by both rating methods; they still count as games (not wins) in the win-rate columns.

**OpenSkill (secondary).** Weng–Lin Plackett–Luce from the ``openskill`` package. It is
an *online* Bayesian filter: each ``rate`` call updates from the previous state, so the
result depends on the order games are fed. We fix that order to the canonical one
(``spec_hash, game_index, seed``), which is a property of the games themselves, not of
when they were written to the store, so the ratings are a function of the *set* of games.
Settings: ``tau = 0`` (skills assumed static over a leaderboard; no drift noise added per
game) and prior ``mu = 0`` internally. OpenSkill adds member mus to get a team mu; Mafia
teams have unequal size (e.g. 5 town vs 2 mafia), and with the usual ``mu = 25`` prior
the bigger team would be a heavy favourite before any game is played. With a zero prior,
an average agent adds nothing to its team. Reported ``os_mu`` is shifted by +25 to the
familiar OpenSkill scale, and ``os_ordinal = os_mu - 3 * os_sigma``. Teams are the same
as for Bradley–Terry (winners rank 1, each losing faction rank 2), and every seat is a
team member: an entity holding several seats of a game, on one team or on several (random
seating often puts an agent on both), enters once per seat as a copy of its current
rating, and its update is the sum of its copies' updates (the changes of the mean add up,
and so does the information ``1/sigma^2`` gained). Self-play games, with one entity in
every seat, carry nothing to compare and are skipped.

**Intervals.** Whole games are resampled with replacement (over the canonical list,
with a seeded ``numpy.random.Generator``) and the Bradley–Terry model is refitted on each
resample; entities absent from a resample are left out of that resample's percentiles.
The reported interval spans that percentile interval and the entity's Laplace interval
(the posterior under the Gaussian priors, approximated by a normal with the Hessian at
the optimum as precision, the other parameters held at their estimates): the bootstrap
alone collapses for an entity with few games, whose refits the prior holds in place (see
`_laplace_half_widths`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from .intervals import percentile_interval, resample_rows, z_value
from .records import GameResult, SeatResult, prepare_games

__all__ = [
    "DEFAULT_BIAS_SD",
    "DEFAULT_N_BOOT",
    "DEFAULT_PRIOR_SD",
    "ELO_BASE",
    "ELO_SCALE",
    "LEVELS",
    "LEVEL_COLUMNS",
    "OPENSKILL_OFFSET",
    "BradleyTerryFit",
    "Level",
    "OpenSkillRating",
    "bootstrap_bradley_terry",
    "compute_ratings",
    "entity_key",
    "fit_bradley_terry",
    "fit_openskill",
]

Level = Literal["agent", "side", "role"]
LEVELS: tuple[Level, ...] = ("agent", "side", "role")
#: Column names of the entity key at each level.
LEVEL_COLUMNS: dict[str, tuple[str, ...]] = {
    "agent": ("agent",),
    "side": ("agent", "side"),
    "role": ("agent", "role"),
}

ELO_BASE = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)
DEFAULT_N_BOOT = 100
DEFAULT_PRIOR_SD = 3.0
DEFAULT_BIAS_SD = 10.0
OPENSKILL_OFFSET = 25.0
OPENSKILL_Z = 3.0

Entity = tuple[str, ...]


def ratable_games(records: Iterable[Mapping[str, Any] | GameResult]) -> list[GameResult]:
    """The games ratings are fitted on, in canonical order: every game but the void ones
    (decided by infrastructure failures). They are dropped before the bootstrap draws its
    resamples, so a store holding void games rates exactly like one without them."""
    return [g for g in prepare_games(records) if not g.void]


def entity_key(seat: SeatResult, level: Level) -> Entity:
    """The rated entity a seat belongs to at ``level``."""
    if level == "agent":
        return (seat.agent,)
    if level == "side":
        return (seat.agent, seat.side)
    if level == "role":
        return (seat.agent, seat.role)
    raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")


# --------------------------------------------------------------------------- Bradley–Terry


@dataclass(frozen=True)
class _Design:
    """Team-choice design over the canonical game list (draws included, unused).

    Each decisive game has up to ``K`` teams: team 0 is the winners, teams 1.. the losing
    factions; ``teams[u, k]`` is team k's mean seat-incidence vector over the parameters
    (entities, then side terms) of distinct game pattern ``u``; ``present`` masks padding.
    """

    entities: tuple[Entity, ...]
    bias_keys: tuple[tuple[str, str], ...]
    teams: np.ndarray  # (U, K, E + S)
    present: np.ndarray  # (U, K) bool
    row_of_game: np.ndarray  # (G,) index into the U patterns; -1 for non-decisive games
    incidence: np.ndarray  # (G, E) bool: entity appears in decisive game g

    @property
    def n_entities(self) -> int:
        return len(self.entities)


def _build_design(games: Sequence[GameResult], level: Level) -> _Design:
    decisive = [g for g in games if g.decisive]
    entities = sorted({entity_key(s, level) for g in decisive for s in g.seats})
    bias_keys = sorted({(g.setup, s.side) for g in decisive for s in g.seats})
    e_index = {e: i for i, e in enumerate(entities)}
    b_index = {b: len(entities) + i for i, b in enumerate(bias_keys)}
    n_games = len(games)
    width = len(entities) + len(bias_keys)
    k_max = max((1 + len(g.losing_teams) for g in decisive), default=2)
    incidence = np.zeros((n_games, len(entities)), dtype=bool)
    # Each decisive game's row (team shares, then which teams exist) is built on its own
    # and only the distinct rows are kept: the patterns of a large tournament are few,
    # so its design stays small. They are then sorted as `np.unique(axis=0)` sorts rows.
    pattern_of: dict[tuple[float, ...], int] = {}
    found = np.full(n_games, -1, dtype=np.int64)
    for g_i, game in enumerate(games):
        if not game.decisive:
            continue
        full = np.zeros((k_max, width))
        present = np.zeros(k_max, dtype=bool)
        for k, team in enumerate((game.winners, *game.losing_teams)):
            present[k] = True
            share = 1.0 / len(team)
            for seat in team:
                e = e_index[entity_key(seat, level)]
                full[k, e] += share
                full[k, b_index[(game.setup, seat.side)]] += share
                incidence[g_i, e] = True
        key = tuple(np.concatenate([full.reshape(-1), present]).tolist())
        found[g_i] = pattern_of.setdefault(key, len(pattern_of))
    ordered = sorted(pattern_of)
    rank = np.empty(len(ordered), dtype=np.int64)
    for position, key in enumerate(ordered):
        rank[pattern_of[key]] = position
    row_of_game = np.full(n_games, -1, dtype=np.int64)
    row_of_game[found >= 0] = rank[found[found >= 0]]
    patterns = np.array(ordered, dtype=float).reshape(len(ordered), k_max * width + k_max)
    teams = patterns[:, : k_max * width].reshape(len(ordered), k_max, width)
    present_u = patterns[:, k_max * width :].astype(bool)
    return _Design(tuple(entities), tuple(bias_keys), teams, present_u, row_of_game, incidence)


def _shifted_exp(
    teams: np.ndarray, present: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each team's score relative to the winner's, exponentiated with a max-shift (absent
    teams 0), and the shift."""
    rel = teams @ b
    rel = rel - rel[:, :1]
    top = np.max(np.where(present, rel, -np.inf), axis=1, keepdims=True)
    return np.where(present, np.exp(rel - top), 0.0), top[:, 0]


def _derivatives(
    teams: np.ndarray, present: np.ndarray, w: np.ndarray, prec: np.ndarray, beta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian at `beta` of the penalised negative log-likelihood that
    `_newton` minimises (the Hessian is also the posterior precision of the Laplace
    interval, `_laplace_half_widths`)."""
    e, _ = _shifted_exp(teams, present, beta)
    p = e / e.sum(axis=1, keepdims=True)
    a_bar = np.einsum("uk,ukp->up", p, teams)
    grad = prec * beta + (w[:, None] * (a_bar - teams[:, 0, :])).sum(axis=0)
    rows, k_max, width = teams.shape
    b_mat = (np.sqrt(w[:, None] * p)[:, :, None] * teams).reshape(rows * k_max, width)
    c_mat = np.sqrt(w)[:, None] * a_bar
    return grad, b_mat.T @ b_mat - c_mat.T @ c_mat + np.diag(prec)


def _newton(
    teams: np.ndarray,
    present: np.ndarray,
    w: np.ndarray,
    prec: np.ndarray,
    beta0: np.ndarray,
    max_iter: int = 100,
) -> np.ndarray:
    """Penalised ML of the team-choice model by damped Newton.

    Minimises ``sum_u w_u [logsumexp_k S_uk - S_u0] + 0.5 * sum_j prec_j beta_j^2`` with
    ``S_uk = teams[u, k] @ beta`` over present teams (team 0 won). With two teams this is
    logistic Bradley–Terry. Strictly convex (``prec > 0``): a unique optimum.
    """
    beta = beta0.copy()

    def objective(b: np.ndarray) -> float:
        e, top = _shifted_exp(teams, present, b)
        nll = np.log(e.sum(axis=1)) + top  # logsumexp_k S_k - S_0
        return float(w @ nll + 0.5 * prec @ (b * b))

    f = objective(beta)
    for _ in range(max_iter):
        grad, hess = _derivatives(teams, present, w, prec, beta)
        if float(np.max(np.abs(grad), initial=0.0)) < 1e-10:
            break
        step = np.linalg.solve(hess, grad)
        decrease = float(grad @ step)
        t = 1.0
        for _ in range(60):
            cand = beta - t * step
            f_cand = objective(cand)
            if f_cand <= f - 1e-4 * t * decrease:
                break
            t *= 0.5
        else:
            break
        beta, f = cand, f_cand
        if float(np.max(np.abs(t * step), initial=0.0)) < 1e-12:
            break
    return beta


def _weighted_rows(
    design: _Design, game_weights: np.ndarray, prior_sd: float, bias_sd: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(teams, present, weight) of the distinct game patterns with weight, and the prior
    precision of every parameter: what `_newton` and the Laplace interval take."""
    n_e = design.n_entities
    width = design.teams.shape[2]
    prec = np.concatenate([np.full(n_e, prior_sd**-2), np.full(width - n_e, bias_sd**-2)])
    valid = design.row_of_game >= 0
    row_w = np.bincount(
        design.row_of_game[valid],
        weights=game_weights[valid],
        minlength=design.teams.shape[0],
    )
    keep = row_w > 0
    return design.teams[keep], design.present[keep], row_w[keep], prec


def _laplace_half_widths(
    design: _Design, beta: np.ndarray, prior_sd: float, bias_sd: float, confidence: float
) -> np.ndarray:
    """Half-width (Elo) of each entity's Laplace interval: the fit read as a posterior
    (the Gaussian priors), approximated by a normal at the optimum with the Hessian as
    precision, for the entity's strength with every other parameter held at its estimate:
    what the entity's own games can say. The rating is centred on the mean of the `m`
    rated entities, so with the others held it moves by ``1 - 1/m`` per unit of strength:
    ``sd = (1 - 1/m) / sqrt(H_ii)``.

    Why beside the bootstrap: with few games an entity's refits barely move under the
    prior (an agent that lost its 4 games as one of five villagers is pulled to the same
    value in every resample), so the percentile interval collapses although the games say
    almost nothing; the curvature says how little. Conditional rather than marginal: the
    marginal variance of a rating centred on the pool mean would hand a newcomer's
    uncertainty to every well-observed entity through the mean."""
    n_e = design.n_entities
    weights = np.ones(len(design.incidence))
    teams, present, row_w, prec = _weighted_rows(design, weights, prior_sd, bias_sd)
    _, hess = _derivatives(teams, present, row_w, prec, beta)
    precision = np.diagonal(hess)[:n_e]
    rated = max(1, int(design.incidence.any(axis=0).sum()))
    return z_value(confidence) * ELO_SCALE * (1.0 - 1.0 / rated) / np.sqrt(precision)


def _fit_weighted(
    design: _Design,
    game_weights: np.ndarray,
    prior_sd: float,
    bias_sd: float,
    beta0: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fit with per-game weights; returns (centred Elo per entity or NaN, bias, beta)."""
    n_e = design.n_entities
    teams, present, row_w, prec = _weighted_rows(design, game_weights, prior_sd, bias_sd)
    start = np.zeros(teams.shape[2]) if beta0 is None else beta0
    beta = _newton(teams, present, row_w, prec, start)
    observed = (design.incidence & (game_weights > 0)[:, None]).any(axis=0)
    theta = beta[:n_e]
    elo = np.full(n_e, np.nan)
    if observed.any():
        centred = theta - theta[observed].mean()
        elo[observed] = ELO_BASE + ELO_SCALE * centred[observed]
    return elo, ELO_SCALE * beta[n_e:], beta


@dataclass(frozen=True)
class BradleyTerryFit:
    """Point estimates of a batch Bradley–Terry fit.

    ``ratings``: Elo-scale rating per entity (only entities seen in a decisive game).
    ``side_advantage``: Elo-scale side term per ``(setup, side)``; only differences between
    sides of one setup are meaningful. ``n_games``: decisive games used.
    """

    level: Level
    ratings: dict[Entity, float]
    side_advantage: dict[tuple[str, str], float]
    n_games: int


def fit_bradley_terry(
    records: Iterable[Mapping[str, Any] | GameResult],
    level: Level = "agent",
    *,
    prior_sd: float = DEFAULT_PRIOR_SD,
    bias_sd: float = DEFAULT_BIAS_SD,
) -> BradleyTerryFit:
    """Batch penalised-ML Bradley–Terry fit over all decisive games (see module doc)."""
    games = ratable_games(records)
    design = _build_design(games, level)
    elo, bias, _ = _fit_weighted(design, np.ones(len(games)), prior_sd, bias_sd)
    ratings = {e: float(v) for e, v in zip(design.entities, elo, strict=True) if np.isfinite(v)}
    side = {b: float(v) for b, v in zip(design.bias_keys, bias, strict=True)}
    return BradleyTerryFit(level, ratings, side, int((design.row_of_game >= 0).sum()))


def _bootstrap_elo(
    design: _Design,
    resamples: Iterable[np.ndarray],
    n_boot: int,
    prior_sd: float,
    bias_sd: float,
    beta0: np.ndarray,
) -> np.ndarray:
    """Elo of every entity refitted on each of the `n_boot` resamples (rows of game
    indices, an array or drawn one at a time: `intervals.resample_rows`)."""
    n_games = design.row_of_game.shape[0]
    out = np.full((n_boot, design.n_entities), np.nan)
    for b, idx in enumerate(resamples):
        counts = np.bincount(idx, minlength=n_games).astype(float)
        out[b], _, _ = _fit_weighted(design, counts, prior_sd, bias_sd, beta0)
    return out


def bootstrap_bradley_terry(
    records: Iterable[Mapping[str, Any] | GameResult],
    level: Level = "agent",
    *,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    prior_sd: float = DEFAULT_PRIOR_SD,
    bias_sd: float = DEFAULT_BIAS_SD,
) -> dict[Entity, tuple[float, float]]:
    """Percentile-bootstrap interval of each entity's Elo rating (games resampled, refit)."""
    games = ratable_games(records)
    design = _build_design(games, level)
    _, _, beta = _fit_weighted(design, np.ones(len(games)), prior_sd, bias_sd)
    rows = resample_rows(len(games), n_boot, seed)
    samples = _bootstrap_elo(design, rows, n_boot, prior_sd, bias_sd, beta)
    if not n_boot:
        return {e: (math.nan, math.nan) for e in design.entities}
    lo, hi = percentile_interval(samples, confidence)
    return {e: (float(lo[i]), float(hi[i])) for i, e in enumerate(design.entities)}


# --------------------------------------------------------------------------- OpenSkill


@dataclass(frozen=True)
class OpenSkillRating:
    """OpenSkill rating on the reported scale (``mu`` includes the +25 display offset)."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """Conservative skill estimate ``mu - 3 sigma``: under the normal posterior the
        true skill lies above it with probability Φ(3) ≈ 99.87 % (one-sided; 99.7 % is
        the two-sided ``mu ± 3 sigma``)."""
        return self.mu - OPENSKILL_Z * self.sigma


def fit_openskill(
    records: Iterable[Mapping[str, Any] | GameResult], level: Level = "agent"
) -> dict[Entity, OpenSkillRating]:
    """OpenSkill Plackett–Luce team ratings, fed in canonical game order (see module doc)."""
    from openskill.models import PlackettLuce

    # tau must be set on the model: ``rate(tau=0.0)`` would fall back to the model's tau
    # (openskill 6 does ``tau if tau else self.tau``).
    model = PlackettLuce(mu=0.0, tau=0.0)
    prior = model.rating()
    state: dict[Entity, tuple[float, float]] = {}
    for game in ratable_games(records):
        if not game.decisive:
            continue
        teams = [
            sorted(entity_key(seat, level) for seat in team)
            for team in (game.winners, *game.losing_teams)
        ]
        if len({e for team in teams for e in team}) < 2:
            continue
        for team in teams:
            for e in team:
                state.setdefault(e, (prior.mu, prior.sigma))
        # A fresh rating object per seat: openskill updates copies of its inputs and would
        # merge two seats holding the same object.
        new = model.rate(
            [[model.rating(*state[e]) for e in team] for team in teams],
            ranks=[1.0] + [2.0] * (len(teams) - 1),
        )
        moved: dict[Entity, list[float]] = {}
        for team, new_team in zip(teams, new, strict=True):
            for e, rating in zip(team, new_team, strict=True):
                mu, sigma = state[e]
                delta = moved.setdefault(e, [0.0, 0.0])
                delta[0] += float(rating.mu) - mu
                delta[1] += float(rating.sigma) ** -2 - sigma**-2
        for e, (d_mu, d_info) in sorted(moved.items()):
            mu, sigma = state[e]
            state[e] = (mu + d_mu, (sigma**-2 + d_info) ** -0.5)
    return {
        e: OpenSkillRating(mu + OPENSKILL_OFFSET, sigma) for e, (mu, sigma) in sorted(state.items())
    }


# --------------------------------------------------------------------------- combined


def compute_ratings(
    records: Iterable[Mapping[str, Any] | GameResult],
    *,
    levels: Sequence[Level] = LEVELS,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
    prior_sd: float = DEFAULT_PRIOR_SD,
    bias_sd: float = DEFAULT_BIAS_SD,
) -> dict[str, pd.DataFrame]:
    """All ratings, one DataFrame per level.

    Columns: the level's key columns (``agent`` [, ``side`` | ``role``]), ``rated_games``
    (decisive games the entity took part in), ``bt_rating``, ``bt_low``, ``bt_high``
    (Elo scale; the interval at ``confidence`` spans the percentile bootstrap's and the
    Laplace posterior interval's, `_laplace_half_widths`; NaN when ``n_boot == 0``),
    ``os_mu``, ``os_sigma``, ``os_ordinal``. Rows sorted by ``bt_rating`` desc, then key.
    The same resamples (same ``seed``) are used at every level: each level draws them
    again from a generator of that seed, one at a time.
    """
    games = ratable_games(records)
    out: dict[str, pd.DataFrame] = {}
    for level in levels:
        design = _build_design(games, level)
        elo, _, beta = _fit_weighted(design, np.ones(len(games)), prior_sd, bias_sd)
        if n_boot > 0 and design.n_entities:
            lo, hi = percentile_interval(
                _bootstrap_elo(
                    design,
                    resample_rows(len(games), n_boot, seed),
                    n_boot,
                    prior_sd,
                    bias_sd,
                    beta,
                ),
                confidence,
            )
            half = _laplace_half_widths(design, beta, prior_sd, bias_sd, confidence)
            lo, hi = np.fmin(lo, elo - half), np.fmax(hi, elo + half)
        else:
            lo = hi = np.full(design.n_entities, np.nan)
        os_ratings = fit_openskill(games, level)
        rated_games = design.incidence.sum(axis=0)
        cols = LEVEL_COLUMNS[level]
        rows = []
        for i, e in enumerate(design.entities):
            os_r = os_ratings.get(e)
            rows.append(
                {
                    **dict(zip(cols, e, strict=True)),
                    "rated_games": int(rated_games[i]),
                    "bt_rating": float(elo[i]),
                    "bt_low": float(lo[i]),
                    "bt_high": float(hi[i]),
                    "os_mu": os_r.mu if os_r else math.nan,
                    "os_sigma": os_r.sigma if os_r else math.nan,
                    "os_ordinal": os_r.ordinal if os_r else math.nan,
                }
            )
        frame = pd.DataFrame(
            rows,
            columns=[
                *cols,
                "rated_games",
                "bt_rating",
                "bt_low",
                "bt_high",
                "os_mu",
                "os_sigma",
                "os_ordinal",
            ],
        )
        frame = frame.sort_values(
            ["bt_rating", *cols], ascending=[False] + [True] * len(cols), na_position="last"
        ).reset_index(drop=True)
        out[level] = frame
    return out
