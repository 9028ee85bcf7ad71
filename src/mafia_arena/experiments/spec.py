"""Experiment specs: `experiments/*.toml` validated into typed objects.

A spec says *what* to play (variants at player counts with switch overrides, an agent
pool, a seating scheme, how many games, a base seed) and *how* (concurrency, where
results and tracking go). `load_spec` validates the file with pydantic (unknown keys are
errors: a misspelt ``gmaes`` must not silently fall back to a default and change the
tournament), then resolves it into an `Experiment` (see `experiments.plan`), checking
that every variant loads with its switches at every player count and that every agent
exists. Every problem raises `SpecError` naming the file, the dotted key and the reason.

Layout (all keys but ``name`` and ``variants`` optional)::

    name = "smoke"                  # MLflow experiment and the records' "experiment"
    base_seed = 7                   # game i gets a seed derived from (base_seed, i)
    games = 8                       # games per (variant entry, player count)
    seating = "balanced"            # or "random"
    pool = ["random", "heuristic"]  # scripted presets and agent files (agents/*.toml)
    results = "results/smoke"       # default results/<name>, relative to the working folder
    tracking_uri = "sqlite:///mlflow.db"   # default: $MLFLOW_TRACKING_URI, then this
    void_threshold = 0.2            # a seat's share of infrastructure fallbacks that voids
    shuffle_names = false           # LLM players see the seats under names permuted per game
    shuffle_options = false         # LLM players see a choice's options in shuffled order

    [concurrency]
    workers = 2           # CPUs of the local Ray cluster (ray.init(num_cpus=...))
    batch_size = 25       # scripted games per Ray task
    llm_batch_size = 4    # games per task when an async (LLM) agent sits at the table
    llm_in_flight = 4     # LLM requests in flight per endpoint in one worker
    max_retries = 3       # Ray retries after a worker crash or a transient error

    [[variants]]
    variant = "standard"              # a name in envs/ or a path to a variant file
    players = [7]                     # one count or a list
    set = { discussion_rounds = 1 }   # switch overrides, as `--set KEY=VALUE`
    pool = ["heuristic", "agents/local-smollm2.toml"]   # overrides the top-level pool
    seats = { "agents/local-smollm2.toml" = 2 }         # fixed seats per game for some
    games = 4                         # overrides the top-level games
    label = "standard-llm"            # the matchup's name; default "<variant>-<n>p"
    shuffle_names = true              # overrides the top-level switch (and shuffle_options)

`shuffle_names` and `shuffle_options` are a presentation layer for LLM prompts against
position bias (`mafia_arena.views.shown_names`): the permutation is drawn from each
game's seed, recorded in its log's ``meta["presentation"]``, and hashed into the spec
hash when on; the engine and its logs keep the table's own names.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)

from mafia_arena.experiments.errors import SpecError
from mafia_arena.rules.loader import quoted_value
from mafia_arena.runner.integrity import VOID_THRESHOLD
from mafia_arena.toml_file import (
    TomlFileError,
    file_kind,
    joined_problems,
    parse_toml,
    read_toml_text,
    refusal,
    validation_problems,
)
from mafia_arena.whole_numbers import MAX_SEED

if TYPE_CHECKING:
    from mafia_arena.experiments.plan import Experiment

Seating = Literal["random", "balanced"]
Count = StrictInt  # TOML ``true`` is not 1 game: counts and seeds must be written as integers


def _typed_switch(value: Any) -> Any:
    """A switch value of a ``set`` table: quoted text that means a number or true/false
    is refused (`rules.loader.quoted_value`), never converted."""
    problem = quoted_value(value)
    if problem is not None:
        raise ValueError(problem)
    return value


Switch = Annotated[Any, AfterValidator(_typed_switch)]


class _Model(BaseModel):
    # allow_inf_nan: TOML's inf and nan are floats, and no key of a spec means them
    # (``decision_timeout_s = inf`` is a timeout that never fires)
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Concurrency(_Model):
    """How the games are spread; none of it changes a game, so none of it is hashed."""

    # Bounded: Ray refuses a CPU count past 1e14 with a traceback, and a local cluster
    # of more CPUs than a machine has only queues the tasks.
    workers: Count = Field(default=2, ge=1, le=1024, description="CPUs of a local Ray cluster.")
    batch_size: Count = Field(default=25, ge=1, description="Scripted games per Ray task.")
    llm_batch_size: Count = Field(
        default=4,
        ge=1,
        description="Games per task with an async (LLM) agent; they run "
        "concurrently in one event loop.",
    )
    llm_in_flight: Count = Field(
        default=4, ge=1, description="LLM requests in flight per endpoint per worker."
    )
    max_retries: Count = Field(
        default=3,
        ge=0,
        le=100,
        description="Ray retries of a task after a worker crash or a transient error.",
    )
    decision_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="Per-decision timeout of async agents; a timeout "
        "records the seat's default as a fallback.",
    )


class VariantEntry(_Model):
    """One variant at one or more player counts: one matchup per player count."""

    variant: str = Field(min_length=1)
    players: Count | list[Count]
    games: Count | None = Field(default=None, ge=1)
    set: dict[str, Switch] = Field(default_factory=dict)
    pool: list[str] | None = None
    seats: dict[str, Count] = Field(default_factory=dict)
    seating: Seating | None = None
    label: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.:/ -]+$")
    shuffle_names: StrictBool | None = None
    shuffle_options: StrictBool | None = None

    @field_validator("players")
    @classmethod
    def _players(cls, value: int | list[int]) -> int | list[int]:
        counts = [value] if isinstance(value, int) else value
        if not counts:
            raise ValueError("give at least one player count")
        if any(n < 1 for n in counts) or len(set(counts)) != len(counts):
            raise ValueError("player counts must be positive and distinct")
        return value

    @field_validator("seats")
    @classmethod
    def _seats(cls, value: dict[str, int]) -> dict[str, int]:
        if any(n < 1 for n in value.values()):
            raise ValueError("a fixed seat count must be at least 1")
        return value

    @property
    def player_counts(self) -> list[int]:
        return [self.players] if isinstance(self.players, int) else list(self.players)


class ExperimentSpec(_Model):
    """The file as written (before resolution into matchups)."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    description: str = ""
    # bounded like `play --seed` (`MAX_SEED`): the manifest's JSON holds it exactly
    # for any reader, and a 400-digit base seed was taken before
    base_seed: Count = Field(default=0, ge=0, le=MAX_SEED)
    games: Count = Field(default=100, ge=1)
    seating: Seating = "balanced"
    pool: list[str] = Field(default_factory=list)
    variants: list[VariantEntry] = Field(min_length=1)
    results: str | None = None
    tracking_uri: str | None = None
    void_threshold: float = Field(
        default=VOID_THRESHOLD,
        ge=0.0,
        le=1.0,
        strict=True,
        description="A game is void when some seat had more than this share of its "
        "decisions made by infrastructure fallbacks (runner.integrity); hashed.",
    )
    concurrency: Concurrency = Concurrency()
    shuffle_names: StrictBool = Field(
        default=False,
        description="LLM players see the seats under names permuted per game (from "
        "the game seed), against position bias; logged in the game's meta.",
    )
    shuffle_options: StrictBool = Field(
        default=False,
        description="LLM players see every choice's options in a shuffled order.",
    )

    @field_validator("void_threshold", mode="before")
    @classmethod
    def _share(cls, value: Any) -> Any:
        """A share written as an integer (``0``, ``1``) is fine; ``true`` is not a share."""
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value


def read_spec(path: str | Path) -> tuple[ExperimentSpec, str]:
    """Parse and validate the file; return the model and the raw text (kept as provenance)."""
    path = Path(path)
    source = str(path)
    try:
        text = read_toml_text(path)
    except (OSError, TomlFileError) as exc:
        raise SpecError(source, "-", refusal(exc, "spec")) from exc
    try:
        data = parse_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(source, "-", refusal(exc)) from exc
    other = other_kind_of_file(data)
    if other is not None:
        raise SpecError(source, "-", other)
    try:
        return ExperimentSpec.model_validate(data), text
    except ValidationError as exc:
        raise _spec_error(source, exc) from None


def is_training_spec(data: dict[str, Any]) -> bool:
    """Whether a parsed TOML file is a training spec: a ``train`` table marks one
    (docs/rl.md). The tournament reader's test, and the table `mafia_arena.rl.spec`
    requires (that sibling layer checks it itself: the layers do not import sideways)."""
    return isinstance(data.get("train"), dict)


_OTHER_KINDS = {
    "variant file": "this is a variant file, not an experiment spec (a spec names variant "
    "files in variants.<i>.variant)",
    "training spec": "this is a training spec, not an experiment spec (run it with "
    "mafia-arena train)",
    "agent file": "this is an agent file, not an experiment spec (a spec lists agent files "
    "in pool)",
}


def other_kind_of_file(data: dict[str, Any]) -> str | None:
    """Why a file given where a spec was wanted is another of the project's files
    (`toml_file.file_kind`), in one line; None when it looks like a spec (it has
    ``variants``) or like nothing known."""
    kind = file_kind(data)
    return None if kind is None else _OTHER_KINDS.get(kind)


def _spec_error(source: str, error: ValidationError) -> SpecError:
    """The first problem as a SpecError; the others appended, one per line."""
    # pydantic adds the union member tried ("int", "list[int]"): not a key of the file
    problems = validation_problems(error, branches={"int", "list[int]"})
    return SpecError(source, *joined_problems(source, problems))


def load_spec(path: str | Path) -> Experiment:
    """Read, validate and resolve a spec into an `Experiment`; raises `SpecError`."""
    from mafia_arena.experiments.plan import resolve

    spec, text = read_spec(path)
    return resolve(spec, Path(path), text)
