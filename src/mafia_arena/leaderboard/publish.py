"""Publish a leaderboard directory: README.md, CSV tables and PNG figures.

``write_leaderboard`` is a pure function of (records, title, provenance, settings): no
clock, hostname or random state is read, games are put in canonical order first, and
every artefact is rendered deterministically, so publishing the same games twice, in any
order, yields byte-identical files (which keeps leaderboard diffs in git meaningful).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mafia_arena.output_folders import made_folder, naming
from mafia_arena.sigterm import interrupts_deferred

from .plots import plot_ratings, plot_win_rate_by_role
from .ratings import DEFAULT_N_BOOT, ELO_SCALE, compute_ratings, fit_bradley_terry
from .records import GameResult, View, filter_records, load_records, prepare_games
from .render import markdown_leaderboard, markdown_model_cards, markdown_roles, table_to_csv
from .table import leaderboard_table, model_cards, roles_table

__all__ = [
    "OUTPUT_FILES",
    "BoardInterrupted",
    "load_records",
    "render_readme",
    "write_leaderboard",
]

#: Files written by :func:`write_leaderboard`, in the order their paths are returned.
OUTPUT_FILES: tuple[str, ...] = (
    "README.md",
    "leaderboard.csv",
    "roles.csv",
    "ratings.png",
    "win_rate_by_role.png",
)

#: Provenance keys shown first, in this order, with these labels; others follow sorted.
_PROVENANCE_LABELS: tuple[tuple[str, str], ...] = (
    ("spec", "Experiment spec"),
    ("spec_hash", "Spec hash"),
    ("seed", "Seed"),
    ("package_version", "mafia-arena version"),
    ("code", "Code that played the games"),
    ("host_key", "Host key fingerprint"),
    ("version", "Version"),
    ("command", "Command"),
)


class BoardInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM made one) stopped the publishing of a board: `published` says
    whether the new board's files had all replaced the ones in `folder` by then; its
    message is the one line the command prints.

    Why a `KeyboardInterrupt`: every caller that stops on Ctrl-C still does; the
    command line tells the user which of the two boards the folder now holds, the one
    thing they need to know before publishing (or committing) it."""

    def __init__(self, folder: Path, published: bool) -> None:
        self.folder = folder
        self.published = published
        super().__init__(
            f"interrupted after the board was written to {folder}"
            if published
            else f"interrupted before the board was written: no file in {folder} was replaced"
        )


def _provenance_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def _provenance_lines(provenance: Mapping[str, Any]) -> list[str]:
    known = dict(_PROVENANCE_LABELS)
    keys = [k for k, _ in _PROVENANCE_LABELS if k in provenance]
    keys += sorted(str(k) for k in provenance if k not in known)
    lines = []
    for key in keys:
        label = known.get(key, key)
        text = _provenance_value(provenance[key])
        if key == "command" or "\n" in text:
            lines.append(
                f"- **{label}**:\n\n  ```\n  {text.replace(chr(10), chr(10) + '  ')}\n  ```"
            )
        else:
            lines.append(f"- **{label}**: `{text}`")
    return lines


def render_readme(
    *,
    title: str,
    provenance: Mapping[str, Any],
    games: list[GameResult],
    agent_md: str,
    roles_md: str,
    side_advantage: Mapping[tuple[str, str], float],
    n_boot: int,
    seed: int,
    confidence: float,
    view: str,
    cards_md: str = "",
) -> str:
    """README text for a leaderboard directory (see :func:`write_leaderboard`).

    Void games (decided by infrastructure failures) are named in the count line and left
    out of every result; ``cards_md`` (the model cards) gets its own section when set.
    The agents table is shown whenever it has rows, also when every game was void: its
    rows are then the agents' fallback rates and void games, the one thing a board of a
    run against a dead endpoint has to say (the roles table has no row then)."""
    n_void = sum(1 for g in games if g.void)
    games = [g for g in games if not g.void]
    n_games = len(games)
    n_draws = sum(1 for g in games if g.is_draw)
    experiments = sorted({g.experiment for g in games if g.experiment})
    setups = sorted({g.setup for g in games})
    pct = round(confidence * 100)
    parts = [
        f"# {title}",
        "",
        f"{n_games} games ({n_games - n_draws} decisive, {n_draws} drawn)"
        + (f" from {', '.join(f'`{e}`' for e in experiments)}" if experiments else "")
        + (f"; setups: {', '.join(f'`{s}`' for s in setups)}" if setups else "")
        + f"; view: `{view}`."
        + (
            f" {n_void} void games (decided by infrastructure failures) not counted."
            if n_void
            else ""
        ),
        "",
        *_unknown_rules_note(games),
        "![Ratings](ratings.png)",
        "",
        "## Agents",
        "",
        agent_md.rstrip("\n") if n_games or n_void else "_No games._",
        "",
        "Full precision and all columns: [leaderboard.csv](leaderboard.csv).",
        "",
    ]
    if side_advantage:
        adv_lines = []
        for setup in sorted({s for s, _ in side_advantage}):
            sides = {side: v for (st, side), v in side_advantage.items() if st == setup}
            if "town" in sides and "mafia" in sides:
                diff = sides["town"] - sides["mafia"]
                adv_lines.append(
                    f"- `{setup}`: town {'+' if diff >= 0 else ''}{diff:.0f} Elo vs mafia"
                )
        if adv_lines:
            parts += [
                "Fitted side advantage (already removed from agent ratings):",
                "",
                *adv_lines,
                "",
            ]
    if cards_md:
        parts += ["## Model cards", "", cards_md.rstrip("\n"), ""]
    parts += [
        "## By role",
        "",
        "![Win rate by role](win_rate_by_role.png)",
        "",
        roles_md.rstrip("\n") if n_games else "_No games._",
        "",
        "Per-role ratings are comparable within a role. Full table: [roles.csv](roles.csv).",
        "",
        "## How this was produced",
        "",
        *_provenance_lines(provenance),
        "",
        "Method: win rates with Wilson score intervals at the effective number of seats "
        "(the seats of one game are one cluster: they share its outcome), means over seats "
        "with Student intervals clustered by game the same way (t with games − 1 degrees of "
        "freedom); Bradley–Terry "
        "ratings fitted by penalised maximum likelihood over all decisive games at once "
        "(winners vs losers, team strength = mean over seats, per-setup side advantage), "
        f"reported as `1500 + {ELO_SCALE:.2f} × logit strength`, with {pct}% intervals "
        f"spanning the percentile bootstrap ({n_boot} resamples of whole games, seed {seed}) "
        "and the Laplace approximation of the fit's posterior; OpenSkill "
        "Plackett–Luce ratings fitted in canonical game order "
        "(`spec_hash`, `game_index`, `seed`), ordinal = mu − 3·sigma. Draws count as games "
        "but not wins and are not used for ratings. Column definitions and formulas: "
        "`docs/leaderboard.md` in the mafia-arena repository.",
        "",
    ]
    return "\n".join(parts)


def _unknown_rules_note(games: list[GameResult]) -> list[str]:
    """The README's note on setups whose games' records do not say their rules
    (:attr:`GameResult.rules_known`: an own variant file's games recorded before rules
    digests were kept), as a paragraph and a blank line; [] when there are none.

    Why on the board: such games are rated as one setup (`records.check_rule_sets`
    takes them from one spec alone), and a reader must not take the setup for a
    checked rule set; the games' logs still name the file that played them."""
    unknown = sorted({g.setup for g in games if not g.rules_known})
    if not unknown:
        return []
    return [
        f"Rules not recorded: {', '.join(f'`{s}`' for s in unknown)} "
        "(games of a variant file of the experimenter's own, recorded before results kept "
        "its rules digest): whether all of them were played by one rule set is not "
        "checked; each game's log names the file that played it.",
        "",
    ]


def write_leaderboard(
    records: Iterable[Mapping[str, Any] | GameResult],
    out_dir: str | Path,
    *,
    title: str,
    provenance: Mapping[str, Any],
    view: View = "all",
    n_boot: int = DEFAULT_N_BOOT,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[Path]:
    """Write a leaderboard directory and return the paths written (see ``OUTPUT_FILES``).

    ``records`` are finished-game dicts (or parsed games); ``view`` selects games by agent
    kind (see :func:`~mafia_arena.leaderboard.records.filter_records`). ``provenance`` is
    rendered verbatim in the README: pass what is needed to reproduce the run (``spec``,
    ``seed``, ``package_version``, ``command``, ...). ``n_boot``/``seed`` configure the
    bootstrap. Output bytes depend only on the arguments (no timestamps). Every file is
    written in full before any published one is replaced (`_staging`), so an
    interrupted call leaves a previous board in `out_dir` as it was; Ctrl-C or SIGTERM
    arriving while the files are renamed waits until all of them are. Ctrl-C while
    the files are written or renamed, or the staged ones removed, raises
    `BoardInterrupted`, which says whether the new board had replaced the old one. A
    folder made here (`out_dir`, or its parents) that is still empty when a failure or
    Ctrl-C stops the call is removed again (`output_folders.made_folder`).
    """
    games = prepare_games(filter_records(list(records), view))  # a bad record raises here
    out = Path(out_dir)
    with made_folder(out):  # stopped before the board is out: no empty folder of ours
        ratings = compute_ratings(games, n_boot=n_boot, seed=seed, confidence=confidence)
        agents = leaderboard_table(games, ratings=ratings, confidence=confidence)
        roles = roles_table(games, ratings=ratings, confidence=confidence)
        side_adv = fit_bradley_terry(games).side_advantage if games else {}

        readme = render_readme(
            title=title,
            provenance=provenance,
            games=games,
            agent_md=markdown_leaderboard(agents, confidence),
            roles_md=markdown_roles(roles, confidence),
            side_advantage=side_adv,
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
            view=view,
            cards_md=markdown_model_cards(model_cards(games)),
        )
        paths = [out / name for name in OUTPUT_FILES]
        staged = [_staging(path) for path in paths]
        published = False
        try:
            try:
                readme_p, agents_p, roles_p, ratings_p, heat_p = staged
                readme_p.write_text(readme, encoding="utf-8", newline="\n")
                agents_p.write_text(table_to_csv(agents), encoding="utf-8", newline="\n")
                roles_p.write_text(table_to_csv(roles), encoding="utf-8", newline="\n")
                plot_ratings(agents, ratings_p, title=f"{title}: ratings", confidence=confidence)
                plot_win_rate_by_role(
                    roles,
                    heat_p,
                    title=f"{title}: win rate by role",
                    agent_order=list(agents["agent"]),
                )
                with interrupts_deferred():  # all renamed, or none: never a board of two sets
                    for temporary, path in zip(staged, paths, strict=True):
                        os.replace(temporary, path)
                    published = True
            finally:  # after a failure or Ctrl-C: no half-written file is left beside it
                _remove_staged(staged)
        except KeyboardInterrupt:  # which board the folder holds: said by the command
            raise BoardInterrupted(out, published) from None
        except OSError as exc:  # a full disk: say where (a write names no file)
            raise naming(exc, out) from exc
    return paths


def _remove_staged(staged: list[Path]) -> None:
    """Remove the staged files left (none once the board is published: all were
    renamed), with Ctrl-C and SIGTERM held back until every one is gone.

    Why held back: stopped half-way, the rest would be left beside the board. Why the
    caller removes them inside the block that says which board the folder holds
    (`BoardInterrupted`): an interrupt arriving here once the files are renamed would
    otherwise leave as a plain `KeyboardInterrupt`, said as a board not written."""
    with interrupts_deferred():
        for temporary in staged:
            temporary.unlink(missing_ok=True)


def _staging(path: Path) -> Path:
    """Where `path` is written before it replaces the published file.

    Why: a board is a folder of files that describe one set of games, often committed
    to git. Writing them in place, an interruption (Ctrl-C, a full disk, a plot that
    fails) left a truncated table or a README of the new games beside tables of the old
    ones. Every file is written in full under this name first, and only then are all of
    them renamed over the published ones, so an interrupted publish leaves the previous
    board as it was."""
    return path.with_name(f".{path.name}.tmp")
