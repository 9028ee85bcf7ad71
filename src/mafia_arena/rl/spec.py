"""Training specs: `experiments/<name>.toml` files with a ``[train]`` table.

```toml
name = "rl-town-votes"
[train]
variant = "standard"      # any variant in envs/
players = 7
side = "town"             # the side the learner plays
kinds = ["vote"]          # request kinds it answers ("*" = every decision)
co_player = "heuristic"   # plays the learner side's other decisions
opponents = ["heuristic", "random", "liar"]   # the other side, drawn per game
steps = 200000            # learner decisions
seed = 0
observation = "history"   # optional: the observation layout ("v0" by default)
history_days = 3          # history layout: dated day slots
egocentric = true         # history layout: own seat first, actions relative too
advice = true             # optional: the co-player's own choice is part of the observation
imitate_games = 3000      # optional: first imitate the co-player on this many games
imitate_epochs = 10       # passes over those demonstrations
imitate_smoothing = 0.2   # share of the imitation target spread over all legal actions
rollout_workers = 2       # optional: step the envs in this many Ray actors (0: in-process)
ray_address = ""          # optional: a Ray cluster to join; "" starts a private local one
```

Errors name the file, the key and the reason (`TrainSpecError`).
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia_arena.rl.team_env import TeamSetup, check_kinds


class TrainSpecError(ValueError):
    """A training spec that cannot be used; the message names file, key and reason."""


@dataclass(frozen=True)
class TrainSpec:
    name: str
    setup: TeamSetup
    steps: int = 100_000
    seed: int = 0
    envs: int = 4
    net: tuple[int, ...] = (128, 128)
    learning_rate: float = 3e-4
    n_steps: int = 512
    batch_size: int = 256
    ent_coef: float = 0.01
    eval_games: int = 500
    eval_every: int = 20_000
    fallback: str = "heuristic"
    imitate_games: int = 0
    imitate_epochs: int = 10
    imitate_smoothing: float = 0.0
    rollout_workers: int = 0
    ray_address: str = ""
    source: str = ""
    digest: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


_SETUP_KEYS = {"variant", "players", "overrides", "side", "kinds", "co_player", "opponents"}
_SETUP_KEYS |= {"shaping", "observation", "history_days", "egocentric", "max_players"}
_SETUP_KEYS |= {"advice"}
_TRAIN_KEYS = {"steps", "seed", "envs", "net", "learning_rate", "n_steps", "batch_size"}
_TRAIN_KEYS |= {"ent_coef", "eval_games", "eval_every", "fallback"}
_TRAIN_KEYS |= {"imitate_games", "imitate_epochs", "imitate_smoothing"}
_TRAIN_KEYS |= {"rollout_workers", "ray_address"}


def load_train_spec(path: str | Path) -> TrainSpec:
    """Read and check a training spec (see the module docstring)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        data = tomllib.loads(raw.decode())
    except FileNotFoundError:
        raise TrainSpecError(f"{path}: no such training spec") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TrainSpecError(f"{path}: not valid TOML ({exc})") from None
    train = data.get("train")
    if not isinstance(train, dict):
        raise TrainSpecError(f"{path}: key 'train': a [train] table is required")
    unknown = sorted(set(train) - _SETUP_KEYS - _TRAIN_KEYS)
    if unknown:
        raise TrainSpecError(
            f"{path}: key 'train.{unknown[0]}': unknown; known keys: "
            + ", ".join(sorted(_SETUP_KEYS | _TRAIN_KEYS))
        )

    def typed(key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        value = train.get(key, default)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise TrainSpecError(f"{path}: key 'train.{key}': {value!r} has the wrong type")
        return value

    def positive(key: str, default: int) -> int:
        value = typed(key, int, default)
        if value <= 0:
            raise TrainSpecError(f"{path}: key 'train.{key}': must be positive, not {value}")
        return int(value)

    def nonnegative(key: str, default: int) -> int:
        value = typed(key, int, default)
        if value < 0:
            raise TrainSpecError(f"{path}: key 'train.{key}': must not be negative, not {value}")
        return int(value)

    kinds = typed("kinds", list, ["vote"])
    if not kinds:
        raise TrainSpecError(f"{path}: key 'train.kinds': name at least one request kind")
    opponents = typed("opponents", list, ["heuristic"])
    if not opponents:
        raise TrainSpecError(f"{path}: key 'train.opponents': name at least one opponent")
    setup = TeamSetup(
        variant=typed("variant", str, "standard"),
        players=positive("players", 7),
        overrides=dict(typed("overrides", dict, {})),
        side=typed("side", str, "town"),
        kinds=tuple(str(k) for k in kinds),
        co_player=typed("co_player", str, "heuristic"),
        opponents=tuple(str(o) for o in opponents),
        shaping=float(typed("shaping", (int, float), 0.0)),
        observation=typed("observation", str, "v0"),
        history_days=positive("history_days", 3),
        egocentric=_flag(path, train, "egocentric"),
        advice=_flag(path, train, "advice"),
        max_players=positive("max_players", 1) if "max_players" in train else None,
    )
    try:
        setup.observation_spec()
    except ValueError as exc:
        raise TrainSpecError(f"{path}: key 'train.observation': {exc}") from None
    fallback = typed("fallback", str, "heuristic")
    _check_setup(path, setup, fallback)
    return TrainSpec(
        name=str(data.get("name", path.stem)),
        setup=setup,
        steps=positive("steps", 100_000),
        seed=typed("seed", int, 0),
        envs=positive("envs", 4),
        net=tuple(int(x) for x in typed("net", list, [128, 128])),
        learning_rate=float(typed("learning_rate", (int, float), 3e-4)),
        n_steps=positive("n_steps", 512),
        batch_size=positive("batch_size", 256),
        ent_coef=float(typed("ent_coef", (int, float), 0.01)),
        eval_games=positive("eval_games", 500),
        eval_every=positive("eval_every", 20_000),
        fallback=fallback,
        imitate_games=nonnegative("imitate_games", 0),
        imitate_epochs=positive("imitate_epochs", 10),
        imitate_smoothing=float(typed("imitate_smoothing", (int, float), 0.0)),
        rollout_workers=nonnegative("rollout_workers", 0),
        ray_address=typed("ray_address", str, ""),
        source=str(path),
        digest=hashlib.sha256(raw).hexdigest()[:16],
    )


def _check_setup(path: Path, setup: TeamSetup, fallback: str) -> None:
    """The variant loads and deals at `players`, `side` is one of its sides, every
    request kind in `kinds` is one the variant asks, and every agent named exists:
    otherwise training fails minutes in with a bare `ValueError`, or (a kind never
    asked) deals games forever without a decision to learn from."""
    from mafia_arena.agents.registry import make_agent
    from mafia_arena.rules import VariantError, load_variant
    from mafia_arena.rules.composition import deck_counts

    try:
        variant = load_variant(setup.variant, setup.overrides)
    except VariantError as exc:
        key = "variant" if exc.key == "-" else "overrides"
        raise TrainSpecError(f"{path}: key 'train.{key}': {exc}") from None
    try:
        deck_counts(variant, setup.players)
    except VariantError as exc:
        raise TrainSpecError(f"{path}: key 'train.players': {exc.reason}") from None
    sides = sorted({faction.side for faction in variant.factions.values()})
    if setup.side not in sides:
        raise TrainSpecError(
            f"{path}: key 'train.side': {setup.side!r} is not a side of {setup.variant} "
            f"({', '.join(sides)})"
        )
    for i, kind in enumerate(setup.kinds):
        try:
            check_kinds([kind], variant, setup.players, setup.side)
        except ValueError as exc:
            raise TrainSpecError(f"{path}: key 'train.kinds.{i}': {exc}") from None
    named = [("co_player", setup.co_player), ("fallback", fallback)]
    named += [(f"opponents.{i}", name) for i, name in enumerate(setup.opponents)]
    for key, name in named:
        try:
            make_agent(name)
        except ValueError as exc:
            reason = " ".join(str(exc).split())
            raise TrainSpecError(f"{path}: key 'train.{key}': {reason}") from None


def _flag(path: Path, train: dict[str, Any], key: str) -> bool:
    value = train.get(key, False)
    if not isinstance(value, bool):
        raise TrainSpecError(f"{path}: key 'train.{key}': {value!r} is not true or false")
    return value
