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

A variant or agent file named by a relative path (``variant = "my-variant.toml"``,
``opponents = ["agents/x.toml"]``) is looked up as a tournament's is: from the working
folder, then the spec's folder, then the folder above it (`input_files.find_beside_spec`);
the loaded spec holds it as an absolute path. Errors name the file, the key and the
reason (`TrainSpecError`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import math
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mafia_arena.input_files import find_beside_spec
from mafia_arena.rl.team_env import TeamEnv, TeamSetup, check_kinds, check_side
from mafia_arena.toml_file import (
    TomlFileError,
    joined_problems,
    parse_toml,
    read_toml_text,
    refusal,
    toml_spelling,
    unknown_key,
    wrong_type,
)
from mafia_arena.views.encode_history import MAX_HISTORY_DAYS, MAX_MAX_PLAYERS


class TrainSpecError(ValueError):
    """A training spec that cannot be used. The message is ``FILE: KEY: REASON``, as a
    tournament's `experiments.errors.SpecError` reads (key ``-``: the file as a whole),
    so one who knows the one command reads the other's errors alike; a command-line
    option's is ``OPTION: REASON`` (`key` None), as the command line's `CliError`.

    Why not that class itself: `rl` sits beside `experiments`, not above it."""

    def __init__(self, source: str, key: str | None, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {reason}" if key is None else f"{source}: {key}: {reason}")


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
_TOP_KEYS = frozenset({"name", "train"})
"""The keys of a training spec outside its ``[train]`` table."""

_WANTED: dict[type | tuple[type, ...], str] = {
    int: "an integer",
    (int, float): "a number",
    str: "text",
    list: "an array",
    dict: "a table",
}
"""What a key of each Python type is called in a refusal (`toml_file.wrong_type`)."""

# Bounds. Each keeps a typo (an extra zero or three, a number from another key) from
# running for days or asking for more memory than a machine has; valid runs sit far
# inside them.
MAX_STEPS = 10**9
"""Learner decisions: a billion is weeks of CPU time; more is a typo."""
MAX_SEED = 2**32 - 1
"""NumPy's global seed (which Stable-Baselines3 sets from `seed`) takes 0 to 2**32 - 1."""
MAX_ENVS = 1024
"""Parallel envs: each holds a game in memory and is stepped in turn."""
MAX_N_STEPS = 2**20
"""Decisions per env per rollout."""
MAX_ROLLOUT_VALUES = 2**30
"""n_steps × envs × (observation size + action count): the float32 rollout buffer, 4 GiB."""
MAX_WEIGHTS = 10**8
"""Weights of one head (observation → `net` → actions); PPO keeps the actor, the critic
and Adam's two moments of each, so 10**8 is already some 2.4 GB of float32."""
MAX_EVAL_GAMES = 100_000
"""Games per opponent in one evaluation: games are played one after another."""
MAX_EVALUATION_GAMES = 1_000_000
"""Evaluation games over a whole run ((steps / eval_every + 1) × eval_games × opponents):
hours of play at a few milliseconds a game."""
MAX_IMITATE_GAMES = 100_000
"""Demonstration games: every learner decision of every game is kept in memory."""
MAX_IMITATE_EPOCHS = 1000
"""Passes over the demonstrations."""
# MAX_HISTORY_DAYS and MAX_MAX_PLAYERS (imported above) are the observation layout's
# own caps, which every env that builds one refuses past too.
MAX_LEARNING_RATE = 10.0
"""Far past any useful Adam step; much larger ones send the weights to nan."""
MAX_ENT_COEF = 10.0
"""An entropy bonus ten times the game's ±1 outcome is already all bonus; much larger
ones give nan logits."""
MAX_SHAPING = 10.0
"""A reward per execution ten times the game's ±1 outcome is already all shaping; much
larger ones give nan values."""
_NAME_SEPARATORS = ("/", "\\")
_LOOKED = "from the working folder, the spec's folder and the folder above it"
"""Where a relative path in a spec is looked up (`input_files.find_beside_spec`)."""


def load_train_spec(path: str | Path, *, steps: int | None = None) -> TrainSpec:
    """Read and check a training spec (see the module docstring). `steps` replaces the
    spec's step count (the command line's ``--steps``; 0 only evaluates) before the
    checks that depend on it."""
    path = Path(path)
    try:
        text = read_toml_text(path)
        data = parse_toml(text)
    except FileNotFoundError:
        raise TrainSpecError(str(path), "-", "no such training spec") from None
    except (OSError, TomlFileError) as exc:  # a folder, a device, a link loop, not UTF-8
        raise TrainSpecError(str(path), "-", refusal(exc, "spec")) from None
    except tomllib.TOMLDecodeError as exc:
        raise TrainSpecError(str(path), "-", refusal(exc)) from None
    train = data.get("train")
    if not isinstance(train, dict):
        if "variants" in data:  # the tournament's reader says the converse
            raise TrainSpecError(
                str(path),
                "train",
                "this is an experiment spec, not a training spec "
                "(run it with mafia-arena tournament)",
            )
        raise TrainSpecError(str(path), "train", "a [train] table is required")
    _check_keys(path, data, train)

    def fail(key: str, reason: str) -> TrainSpecError:
        return TrainSpecError(str(path), f"train.{key}", reason)

    def typed(key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        value = train.get(key, default)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise fail(key, wrong_type(_WANTED[kind], value))
        return value

    def whole(key: str, default: int, low: int, high: int | None, why: str = "") -> int:
        value = typed(key, int, default)
        if value < low:
            raise fail(key, f"{_LOWEST.get(low, f'must be at least {low:,}')}, not {value}")
        if high is not None and value > high:
            reason = f" ({why})" if why else ""
            raise fail(key, f"must be at most {high:,}{reason}, not {value:,}")
        return int(value)

    def real(key: str, default: float, low: float, high: float, *, above: bool = False) -> float:
        value = float(typed(key, (int, float), default))
        if not math.isfinite(value):
            raise fail(key, f"must be a finite number, not {value}")
        if value < low or (above and value == low) or value > high:
            lower = "above" if above else "from"
            raise fail(key, f"must be {lower} {low:g} to {high:g}, not {value:g}")
        return value

    def names(key: str, default: list[str], what: str) -> tuple[str, ...]:
        value = typed(key, list, default)
        if not value:
            raise fail(key, f"name at least one {what}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise fail(f"{key}.{i}", f"{wrong_type('text', item)} (a {what} name)")
        return tuple(value)

    name = data.get("name", path.stem)
    if not isinstance(name, str):
        raise TrainSpecError(
            str(path), "name", f"{wrong_type('text', name)} (naming runs/train/<name>)"
        )
    if not name.strip() or name in (".", ".."):
        raise TrainSpecError(
            str(path), "name", f"{toml_spelling(name)} is not a name (naming runs/train/<name>)"
        )
    if any(sep in name for sep in _NAME_SEPARATORS):
        raise TrainSpecError(
            str(path),
            "name",
            f"{toml_spelling(name)} holds a path separator; the name is one folder under "
            "runs/train/",
        )
    kinds = names("kinds", ["vote"], "request kind")
    opponents = names("opponents", ["heuristic"], "opponent")
    max_players = None
    if "max_players" in train:
        max_players = whole("max_players", 1, 1, MAX_MAX_PLAYERS, "seat rows of the observation")

    def found(key: str, raw: str, what: str) -> str:
        """A name that looks like a path, as the file it names (looked up as a
        tournament's, `find_beside_spec`), absolute so that every env (a Ray actor's
        too) and the policy's header name the same file; other names as written."""
        if not (raw.endswith(".toml") or "/" in raw or os.sep in raw):
            return raw
        file = find_beside_spec(raw, path)
        if file is None:
            raise fail(key, f"no such {what} {raw!r} (looked {_LOOKED})")
        return str(file)

    variant = typed("variant", str, "standard")
    if variant.endswith(".toml"):  # as a tournament's: other names are the loader's
        variant = found("variant", variant, "variant file")
    co_player = found("co_player", typed("co_player", str, "heuristic"), "agent file")
    opponents = tuple(
        found(f"opponents.{i}", name, "agent file") for i, name in enumerate(opponents)
    )
    setup = TeamSetup(
        variant=variant,
        players=whole("players", 7, 1, None),  # the variant bounds it
        overrides=_switches(path, typed("overrides", dict, {})),
        side=typed("side", str, "town"),
        kinds=kinds,
        co_player=co_player,
        opponents=opponents,
        shaping=real("shaping", 0.0, -MAX_SHAPING, MAX_SHAPING),
        observation=typed("observation", str, "v0"),
        history_days=whole("history_days", 3, 1, MAX_HISTORY_DAYS, "day slots per seat pair"),
        egocentric=_flag(path, train, "egocentric"),
        advice=_flag(path, train, "advice"),
        max_players=max_players,
    )
    try:
        setup.observation_spec()
    except ValueError as exc:
        raise fail("observation", str(exc)) from None
    fallback = found("fallback", typed("fallback", str, "heuristic"), "agent file")
    _check_setup(path, setup, fallback)
    spec = TrainSpec(
        name=name,
        setup=setup,
        steps=whole("steps", 100_000, 1, MAX_STEPS, "weeks of training"),
        seed=whole("seed", 0, 0, MAX_SEED, "NumPy's seed range"),
        envs=whole("envs", 4, 1, MAX_ENVS, "each env holds a game"),
        net=_layers(path, typed("net", list, [128, 128])),
        learning_rate=real("learning_rate", 3e-4, 0.0, MAX_LEARNING_RATE, above=True),
        n_steps=whole("n_steps", 512, 1, MAX_N_STEPS, "decisions per env per rollout"),
        batch_size=whole("batch_size", 256, 2, None),  # at most a rollout: `_check_sizes`
        ent_coef=real("ent_coef", 0.01, 0.0, MAX_ENT_COEF),
        eval_games=whole("eval_games", 500, 1, MAX_EVAL_GAMES, "games per opponent"),
        eval_every=whole("eval_every", 20_000, 1, MAX_STEPS),
        fallback=fallback,
        imitate_games=whole("imitate_games", 0, 0, MAX_IMITATE_GAMES, "kept in memory"),
        imitate_epochs=whole("imitate_epochs", 10, 1, MAX_IMITATE_EPOCHS),
        imitate_smoothing=real("imitate_smoothing", 0.0, 0.0, 1.0),
        rollout_workers=whole("rollout_workers", 0, 0, MAX_ENVS),
        ray_address=typed("ray_address", str, ""),
        source=str(path),
        digest=hashlib.sha256(text.encode()).hexdigest()[:16],  # the file's bytes
    )
    if steps is not None:
        if not 0 <= steps <= MAX_STEPS:
            raise TrainSpecError(
                "--steps",
                None,
                f"must be from 0 to {MAX_STEPS:,} (weeks of training), not {steps:,}",
            )
        spec = replace(spec, steps=steps)
    _check_sizes(path, spec, steps is not None)
    return spec


def _check_keys(path: Path, data: dict[str, Any], train: dict[str, Any]) -> None:
    """Raise `TrainSpecError` naming every key that is not a spec key: at the top level
    (only ``name`` and ``[train]`` are), then in the ``[train]`` table, each in the
    file's order, each on a line of its own with the keys there are
    (`toml_file.joined_problems`), in the words of every file's unknown key
    (`toml_file.unknown_key`), as an agent file lists its keys.

    Why all at once: a spec with several misspelt keys would otherwise take a run per
    key to mend, each run revealing only the next one. Why the top level too: a key
    meant for ``[train]`` but written above it (``steps = 10`` before the table) was
    ignored without a word, and the run trained with the default."""
    top = unknown_key("a training spec's top-level", _TOP_KEYS)
    problems = [(key, top) for key in data if key not in _TOP_KEYS]
    keys = _SETUP_KEYS | _TRAIN_KEYS
    known = unknown_key("a training spec's [train]", keys)
    problems += [(f"train.{key}", known) for key in train if key not in keys]
    if problems:
        raise TrainSpecError(str(path), *joined_problems(str(path), problems))


#: How `whole` words its lower bounds 0 and 1 (the wording the older checks used).
_LOWEST = {0: "must not be negative", 1: "must be positive"}


def _layers(path: Path, net: list[Any]) -> tuple[int, ...]:
    """`net`'s hidden layer sizes: whole numbers of at least 1 (an empty list is a
    linear policy)."""
    for i, width in enumerate(net):
        if isinstance(width, bool) or not isinstance(width, int):
            raise TrainSpecError(str(path), f"train.net.{i}", wrong_type("an integer", width))
        if width < 1:
            raise TrainSpecError(str(path), f"train.net.{i}", f"must be positive, not {width}")
    return tuple(net)


def _check_sizes(path: Path, spec: TrainSpec, steps_given: bool) -> None:
    """The checks that take several keys together: the rollout, the network and the
    evaluations stay within the bounds above, every minibatch is one, and the Ray keys
    agree with each other."""
    rollout = spec.n_steps * spec.envs
    if spec.batch_size > rollout:
        raise TrainSpecError(
            str(path),
            "train.batch_size",
            f"{spec.batch_size:,} is more than the "
            f"{rollout:,} decisions of one rollout (n_steps × envs), so every minibatch "
            "would be the whole rollout; lower it or raise n_steps",
        )
    try:
        env = TeamEnv(spec.setup)
    except ValueError as exc:  # a layout that cannot hold the table (max_players < players)
        raise TrainSpecError(str(path), "train.max_players", str(exc)) from None
    try:  # the learner's first decision: a side beaten before its turn is never asked
        env.reset(seed=spec.seed)
    except RuntimeError as exc:
        raise TrainSpecError(str(path), "train.kinds", str(exc)) from None
    width = env.observation_size + env.actions
    if rollout * width > MAX_ROLLOUT_VALUES:
        raise TrainSpecError(
            str(path),
            "train.n_steps",
            f"a rollout of {spec.n_steps:,} × {spec.envs:,} envs "
            f"holds {rollout:,} observations of {width:,} values, more than "
            f"{MAX_ROLLOUT_VALUES:,} (4 GiB); lower n_steps or envs",
        )
    sizes = [env.observation_size, *spec.net, env.actions]
    weights = sum(a * b for a, b in itertools.pairwise(sizes))
    if weights > MAX_WEIGHTS:
        raise TrainSpecError(
            str(path),
            "train.net",
            f"{list(spec.net)} on an observation of "
            f"{env.observation_size:,} values has {weights:,} weights per head, more than "
            f"{MAX_WEIGHTS:,}; use narrower layers (or a smaller observation layout)",
        )
    evaluations = spec.steps // spec.eval_every + 2
    games = evaluations * spec.eval_games * len(spec.setup.opponents)
    if games > MAX_EVALUATION_GAMES:
        steps = "--steps" if steps_given else "steps"
        raise TrainSpecError(
            str(path),
            "train.eval_every",
            f"{steps} {spec.steps:,} with an evaluation "
            f"every {spec.eval_every:,} decisions, {spec.eval_games:,} games per opponent "
            f"and {len(spec.setup.opponents)} opponents plays up to {games:,} evaluation "
            f"games, more than {MAX_EVALUATION_GAMES:,}; raise eval_every or lower eval_games",
        )
    if spec.rollout_workers > spec.envs:
        raise TrainSpecError(
            str(path),
            "train.rollout_workers",
            f"{spec.rollout_workers} workers for "
            f"{spec.envs} envs would leave some idle; give at most envs ({spec.envs})",
        )
    if spec.ray_address and not spec.rollout_workers:
        raise TrainSpecError(
            str(path),
            "train.ray_address",
            f"{spec.ray_address!r} is used only with "
            "rollout_workers above 0 (training without them never joins a cluster)",
        )
    if spec.rollout_workers and importlib.util.find_spec("ray") is None:
        raise TrainSpecError(
            str(path),
            "train.rollout_workers",
            "rollout workers need Ray: pip install -e '.[scale]' (or set rollout_workers = 0)",
        )


def _check_setup(path: Path, setup: TeamSetup, fallback: str) -> None:
    """The variant loads and deals at `players` (an error there names the override at
    fault, ``train.overrides.mafia``, as a tournament names ``variants.<i>.set.mafia``),
    `side` is one of its sides and dealt at that size, every request kind in `kinds` is
    one the variant asks, every agent named exists and is a scripted player, and with
    `advice` the fallback is the co-player (whose advice the policy reads; an `rl` agent
    refuses any other): otherwise training fails minutes in with a bare `ValueError`, or
    (a kind never asked) deals games forever without a decision to learn from, or writes
    a policy no agent file can load."""
    from mafia_arena.agents.base import SyncAgent
    from mafia_arena.agents.registry import make_agent
    from mafia_arena.rules import VariantError
    from mafia_arena.rules.table import load_table

    try:  # the blame as a tournament's: the switch at fault, else the count or the file
        variant = load_table(setup.variant, setup.overrides, [setup.players])
    except VariantError as exc:
        if exc.overrides:
            key, reason = f"overrides.{next(iter(exc.overrides))}", str(exc)
        elif exc.players is not None:
            key, reason = "players", exc.reason
        else:
            key, reason = ("variant" if exc.key == "-" else "overrides"), str(exc)
        raise TrainSpecError(str(path), f"train.{key}", reason) from None
    try:
        check_side(variant, setup.players, setup.side)
    except ValueError as exc:
        raise TrainSpecError(str(path), "train.side", str(exc)) from None
    for i, kind in enumerate(setup.kinds):
        try:
            check_kinds([kind], variant, setup.players, setup.side)
        except ValueError as exc:
            raise TrainSpecError(str(path), f"train.kinds.{i}", str(exc)) from None
    named = [("co_player", setup.co_player), ("fallback", fallback)]
    named += [(f"opponents.{i}", name) for i, name in enumerate(setup.opponents)]
    for key, name in named:
        try:
            agent = make_agent(name)
        except ValueError as exc:
            reason = " ".join(str(exc).split())
            raise TrainSpecError(str(path), f"train.{key}", reason) from None
        if not isinstance(agent, SyncAgent):
            raise TrainSpecError(
                str(path),
                f"train.{key}",
                f"{name!r} is not a scripted player; training "
                "seats only those (and the trained policy delegates only to one)",
            )
    if setup.advice and fallback != setup.co_player:
        raise TrainSpecError(
            str(path),
            "train.fallback",
            f"with advice = true the policy reads "
            f"{setup.co_player!r}'s advice, so its fallback must be {setup.co_player!r} "
            f"(the co_player), not {fallback!r}",
        )


def _switches(path: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    """The ``overrides`` table, each value as the spec wrote it: quoted text that means
    a number or true/false is refused (`rules.loader.quoted_value`), as a tournament's
    ``set`` refuses it, never converted."""
    from mafia_arena.rules.loader import quoted_value

    for switch, value in overrides.items():
        problem = quoted_value(value)
        if problem is not None:
            raise TrainSpecError(str(path), f"train.overrides.{switch}", problem)
    return dict(overrides)


def _flag(path: Path, train: dict[str, Any], key: str) -> bool:
    value = train.get(key, False)
    if not isinstance(value, bool):
        raise TrainSpecError(str(path), f"train.{key}", wrong_type("true or false", value))
    return value
