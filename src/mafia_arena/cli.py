"""The `mafia-arena` command: play, run, replay, tournament, leaderboard, serve."""

from __future__ import annotations

import asyncio
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from tqdm import tqdm

from mafia_arena.rules import available_variants, load_variant
from mafia_arena.rules.loader import coerce

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Mafia Arena: play, evaluate and rank Mafia players.",
)

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a variant switch or count, e.g. --set mafia=3"),
]


def parse_overrides(items: list[str] | None) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for item in items or []:
        if "=" not in item:
            raise typer.BadParameter(f"--set needs KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        overrides[key.strip()] = coerce(value.strip())
    return overrides


@app.command()
def variants() -> None:
    """List the bundled variants."""
    for name in available_variants():
        variant = load_variant(name)
        typer.echo(
            f"{name:10} {variant.min_players}-{variant.max_players} players  {variant.title}"
        )


@app.command()
def play(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players")] = 7,
    agents: Annotated[str, typer.Option(help="agents, e.g. heuristic or a,b,c")] = "heuristic",
    seed: Annotated[int, typer.Option(help="game seed")] = 0,
    seat: Annotated[int | None, typer.Option(help="show this seat's view (1-based)")] = None,
    human: Annotated[int | None, typer.Option(help="play this seat yourself (1-based)")] = None,
    log: Annotated[Path | None, typer.Option(help="write the game log here")] = None,
    set_: SetOption = None,
) -> None:
    """Play one game and print its transcript as it happens."""
    from mafia_arena.runner.match import play_match
    from mafia_arena.seating import seat_agents
    from mafia_arena.views.text import render_event

    overrides = parse_overrides(set_)
    rules = load_variant(variant, overrides)
    if human is not None:
        from mafia_arena.web.terminal import QuitGame, play_in_terminal

        try:
            play_in_terminal(variant, players, human - 1, agents, seed, overrides, log_path=log)
        except (QuitGame, KeyboardInterrupt):
            typer.echo("\nGame abandoned: nothing was recorded.", err=True)
            raise typer.Exit(130) from None
        if log is not None:
            typer.echo(f"log written to {log}")
        return
    seated = seat_agents(agents, players, rules)
    viewer = None if seat is None else seat - 1

    def show(event: Any) -> None:
        if viewer is None and event.visibility.scope == "host":
            return
        if viewer is not None and not event.visibility.admits(viewer):
            return
        line = render_event(event, viewer)
        if line:
            if viewer is None and event.visibility.scope == "seats":
                seats = ", ".join(f"P{s + 1}" for s in sorted(event.visibility.seats))
                line = f"  (private to {seats}) {line}"
            typer.echo(line)

    result = asyncio.run(play_match(rules, seated, seed, overrides, on_event=show))
    if log is not None:
        result.log.save(log)
        typer.echo(f"log written to {log}")


@app.command()
def run(
    variant: Annotated[str, typer.Option(help="variant name or file")] = "standard",
    players: Annotated[int, typer.Option(help="number of players")] = 7,
    agents: Annotated[str, typer.Option(help="agents: name, a,b,c or town=x,mafia=y")] = "random",
    games: Annotated[int, typer.Option(help="number of games")] = 100,
    seed: Annotated[int, typer.Option(help="base seed; game i uses seed+i")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print the summary as JSON")] = False,
    set_: SetOption = None,
) -> None:
    """Play many games and print win rates per faction with 95% intervals."""
    from mafia_arena.runner.match import play_match, play_match_sync
    from mafia_arena.seating import seat_agents
    from mafia_arena.stats import wilson_interval

    overrides = parse_overrides(set_)
    rules = load_variant(variant, overrides)
    winners: Counter[str] = Counter()
    lengths: list[int] = []
    for index in tqdm(range(games), desc=f"{variant} x{players}", disable=as_json):
        seated = seat_agents(agents, players, rules)
        if all(hasattr(a, "decide") for a in seated):
            result = play_match_sync(rules, seated, seed + index, overrides)  # type: ignore[arg-type]
        else:
            result = asyncio.run(play_match(rules, seated, seed + index, overrides))
        winners[result.winner or "draw"] += 1
        lengths.append(result.game_length)
    summary = {
        "variant": variant,
        "players": players,
        "agents": agents,
        "games": games,
        "seed": seed,
        "overrides": overrides,
        "win_rates": {
            faction: {
                "wins": winners[faction],
                "rate": winners[faction] / games,
                "ci95": list(wilson_interval(winners[faction], games)),
            }
            for faction in [*rules.factions, "draw"]
        },
        "mean_length_days": statistics.fmean(lengths) if lengths else 0.0,
    }
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    for faction, row in summary["win_rates"].items():
        low, high = row["ci95"]
        typer.echo(
            f"{faction:12} {row['rate']:6.1%}  95% CI [{low:.1%}, {high:.1%}]  "
            f"({row['wins']}/{games})"
        )
    typer.echo(f"mean game length: {summary['mean_length_days']:.2f} days")


@app.command()
def replay(
    log: Annotated[Path, typer.Argument(help="a game log (JSONL)")],
    seat: Annotated[int | None, typer.Option(help="replay from this seat's view (1-based)")] = None,
) -> None:
    """Replay a stored log, omniscient or from one seat's view."""
    from mafia_arena.runner.log import GameLog
    from mafia_arena.runner.log import replay as rebuild
    from mafia_arena.views.text import render_event

    stored = GameLog.load(log)
    game = rebuild(stored)
    same = [e.to_json() for e in game.events] == [e.to_json() for e in stored.events]
    viewer = None if seat is None else seat - 1
    for event in game.events:
        if event.visibility.scope == "host":
            continue
        if viewer is not None and not event.visibility.admits(viewer):
            continue
        line = render_event(event, viewer)
        if line:
            typer.echo(line)
    typer.echo(f"replay {'matches' if same else 'DIFFERS FROM'} the stored log")
    if not same:
        raise typer.Exit(1)


@app.command()
def tournament(
    spec: Annotated[Path, typer.Argument(help="an experiment spec (experiments/*.toml)")],
    address: Annotated[str | None, typer.Option(help="join this Ray cluster")] = None,
    no_ray: Annotated[bool, typer.Option("--no-ray", help="run in-process")] = False,
) -> None:
    """Run an experiment spec on Ray; re-running resumes with only the missing games."""
    from mafia_arena.experiments import run_tournament

    summary = run_tournament(spec, address=address, use_ray=not no_ray)
    typer.echo(str(summary))


@app.command()
def leaderboard(
    source: Annotated[
        Path,
        typer.Argument(
            help="an experiment spec (experiments/X.toml: plays the missing games first) or "
            "a results store (results/X or results/X/games.jsonl)"
        ),
    ],
    out: Annotated[Path | None, typer.Option(help="output folder")] = None,
    view: Annotated[str, typer.Option(help="all, bot, human or mixed games")] = "all",
    no_ray: Annotated[bool, typer.Option("--no-ray", help="run missing games in-process")] = False,
) -> None:
    """Write leaderboards/<experiment>/ (README, CSV, plots) from stored results."""
    from mafia_arena.leaderboard.cli import leaderboard_command

    if source.suffix == ".toml":
        from mafia_arena.experiments import run_tournament

        summary = run_tournament(source, use_ray=not no_ray)
        typer.echo(str(summary))
        source = summary.results_dir
    leaderboard_command(source, out, view)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8000,
    db: Annotated[
        Path | None,
        typer.Option(help="live store (SQLite): live games resume after a restart"),
    ] = None,
) -> None:
    """Start the web app for mixed games of humans and bots."""
    from mafia_arena.web import serve as run_server

    options = {} if db is None else {"db": db}
    run_server(host=host, port=port, **options)


if __name__ == "__main__":
    app()


@app.command()
def train(
    spec: Annotated[
        Path, typer.Argument(help="a training spec, e.g. experiments/rl-town-votes.toml")
    ],
    out: Annotated[Path | None, typer.Option(help="output folder (runs/train/<name>)")] = None,
    steps: Annotated[int | None, typer.Option(help="override the spec's steps")] = None,
    tracking_uri: Annotated[str | None, typer.Option(help="MLflow tracking URI")] = None,
    track: Annotated[bool, typer.Option(help="log the run to MLflow")] = True,
) -> None:
    """Train a policy from a spec (needs the [rl] extra); writes policy.npz and a curve."""
    import dataclasses

    from mafia_arena.rl.spec import TrainSpecError, load_train_spec
    from mafia_arena.rl.train import MissingRLExtra
    from mafia_arena.rl.train import train as run_training

    try:
        loaded = load_train_spec(spec)
        if steps is not None:
            loaded = dataclasses.replace(loaded, steps=steps)
        folder = out or Path("runs") / "train" / loaded.name
        result = run_training(loaded, folder, tracking_uri=tracking_uri, track=track)
    except (TrainSpecError, MissingRLExtra) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"policy written to {result.policy_path}")
    for rate in result.final:
        typer.echo(rate.row())
