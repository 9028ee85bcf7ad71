"""The resolved tournament: matchups, global game indices, per-game seeds, the spec hash.

Contract
--------
* Each (variant entry, player count) of a spec is one `Matchup`; matchups get
  consecutive ranges of *global* game indices in file order, so a game is named by
  ``(spec_hash, game_index)`` everywhere (results store, logs, MLflow tables).
* `game_seed(base_seed, i)` depends only on the base seed and the index, and the
  seating of game i depends only on its matchup, its index and its seed: a batch of
  games can be replayed anywhere, in any order, any number of times, with identical
  games. That is what makes Ray tasks idempotent and resume exact.
* `spec_hash` covers everything that decides the games (name, seeds, variants with the
  bytes of their files, switches, player counts, game counts, pools with the bytes of
  agent files — model parameters included — and of the prompt templates they can use,
  each template by its name too,
  seating, a ``void_threshold`` other than the default) and nothing that does not
  (concurrency, results folder, tracking URI), so
  moving a run to a cluster or another folder keeps its identity. `Experiment.inputs`
  keeps the digest of each of those files by a name that travels with the results
  (`provenance.input_names`), so a refused resume can say which one changed
  (`experiments.provenance`).
* One name, one rule set: records and leaderboards name a game's variant by its file's
  ``name``, so an entry whose file bears a bundled variant's name, or another entry's,
  with other rules is refused (`_check_one_rule_set`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mafia_arena.experiments.errors import SpecError
from mafia_arena.experiments.provenance import (
    agent_file_inputs,
    display_name,
    file_digest,
    input_names,
)
from mafia_arena.experiments.spec import Concurrency, ExperimentSpec
from mafia_arena.input_files import find_beside_spec, not_a_file
from mafia_arena.results_file import MAX_GAME_INDEX
from mafia_arena.rules import (
    Variant,
    VariantError,
    available_variants,
    custom_file,
    load_table,
    load_variant,
    rules_digest,
    variant_path,
)
from mafia_arena.rules.errors import names_a_file
from mafia_arena.rules.loader import NO_SUCH_VARIANT
from mafia_arena.runner.integrity import VOID_THRESHOLD

FORMAT = 1


@dataclass(frozen=True)
class AgentRef:
    """A pool entry: `label` as written, `target` for `make_agent`, `digest` of its file."""

    label: str
    target: str
    digest: str = ""

    @property
    def is_file(self) -> bool:
        return bool(self.digest)


def _agent_inputs(path: Path) -> tuple[dict[Path, str], str]:
    """Digests of an agent file, of every prompt template it can use and of the files it
    names (an RL policy), by path (named for `Experiment.inputs` by
    `provenance.input_names`), and the agent's digest for the spec hash: of each file's
    stable name with its content (`provenance.agent_file_inputs`: a swap or a rename of
    two templates is a change)."""
    files = agent_file_inputs(path)
    digests = {name: file_digest(file) for name, file in files.items()}
    inputs = {file: digests[name] for name, file in files.items()}
    blob = json.dumps(sorted(digests.items())).encode()
    return inputs, hashlib.sha256(blob).hexdigest()[:16]


@dataclass(frozen=True)
class Matchup:
    """One variant at one player count with one pool: an MLflow child run."""

    label: str
    variant: str
    variant_source: str
    variant_digest: str
    overrides: dict[str, Any]
    players: int
    games: int
    first_index: int
    pool: tuple[AgentRef, ...]
    quotas: dict[str, int]
    seating: str
    shuffle_names: bool = False
    shuffle_options: bool = False

    @property
    def indices(self) -> range:
        return range(self.first_index, self.first_index + self.games)

    @property
    def pool_labels(self) -> list[str]:
        return [a.label for a in self.pool]

    def identity(self) -> dict[str, Any]:
        """What of the matchup decides its games (hashed into the spec hash)."""
        return {
            "label": self.label,
            "variant": self.variant,
            "variant_digest": self.variant_digest,
            "overrides": self.overrides,
            "players": self.players,
            "games": self.games,
            "pool": [[a.label, a.digest] for a in self.pool],
            "quotas": self.quotas,
            "seating": self.seating,
            # only when on, so that the hash of every spec without them stays as it was
            **({"shuffle_names": True} if self.shuffle_names else {}),
            **({"shuffle_options": True} if self.shuffle_options else {}),
        }


@dataclass(frozen=True)
class Experiment:
    """A validated, resolved spec."""

    name: str
    description: str
    source: Path
    text: str
    base_seed: int
    matchups: tuple[Matchup, ...]
    concurrency: Concurrency
    results_dir: Path
    tracking_uri: str | None
    spec_hash: str = field(default="")
    inputs: dict[str, str] = field(default_factory=dict)
    void_threshold: float = VOID_THRESHOLD
    """The share of a seat's decisions made by infrastructure fallbacks above which a
    game is void (`runner.integrity`): it decides which games are rated and replayed,
    so it is hashed (only when not the default, so older specs keep their hash)."""

    @property
    def games_total(self) -> int:
        return sum(m.games for m in self.matchups)

    @property
    def tracked_matchups(self) -> tuple[Matchup, ...]:
        return self.matchups

    @property
    def concurrency_settings(self) -> dict[str, Any]:
        return self.concurrency.model_dump()

    def matchup_of(self, game_index: int) -> Matchup:
        for matchup in self.matchups:
            if game_index in matchup.indices:
                return matchup
        raise KeyError(f"game index {game_index} is outside the tournament")


def game_seed(base_seed: int, game_index: int) -> int:
    """The seed of game `game_index`: 31 bits of sha256("mafia-arena:<base>:<index>").

    Hashing (rather than base + index) keeps the games of two experiments with nearby
    base seeds from overlapping.
    """
    digest = hashlib.sha256(f"mafia-arena:{base_seed}:{game_index}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def _agent(
    raw: str, source: str, key: str, spec_path: Path, presets: list[str], inputs: dict[Path, str]
) -> AgentRef:
    """A pool entry; a file agent's digest covers the file, its prompt templates and the
    files it names, each by name and content."""
    if raw in presets:
        return AgentRef(raw, raw)
    looks_like_file = "/" in raw or raw.endswith(".toml") or os.sep in raw
    found = find_beside_spec(raw, spec_path) if looks_like_file else None
    problem = _not_a_file(found) if found is not None else None
    if problem is not None:  # it is there: "unknown agent" would send one looking for it
        raise SpecError(source, key, f"{raw!r}: {problem}, not an agent file")
    if found is None:
        raise SpecError(
            source,
            key,
            f"unknown agent {raw!r}: not a scripted preset "
            f"({', '.join(presets)}) nor an existing agent file",
        )
    files, digest = _agent_inputs(found)
    inputs.update(files)
    return AgentRef(raw, str(found), digest)


def _not_a_file(path: Path) -> str | None:
    """Why `path`, which exists, is no file to read as an agent file (`not_a_file`), or
    None; a path that cannot be looked up says so."""
    try:
        return not_a_file(path)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"


def resolve(spec: ExperimentSpec, spec_path: Path, text: str) -> Experiment:
    """Turn a validated spec into matchups; check variants, agents and the number of
    games (at most `MAX_GAME_INDEX`, what a results store holds: the records of later
    games would be written, then refused by every reader of the store); hash it."""
    from mafia_arena.agents.registry import scripted_agent_names

    source = str(spec_path)
    presets = scripted_agent_names()
    matchups: list[Matchup] = []
    labels: set[str] = set()
    inputs: dict[Path, str] = {}  # named at the end: `provenance.input_names`
    rule_sets: dict[str, tuple[str, str]] = {}
    index = 0
    for i, entry in enumerate(spec.variants):
        key = f"variants.{i}"
        found = (
            find_beside_spec(entry.variant, spec_path) if entry.variant.endswith(".toml") else None
        )
        variant_source = str(found) if found else entry.variant
        try:
            variant = load_table(variant_source, entry.set, entry.player_counts)
            variant_file = variant_path(variant_source)
            digest = file_digest(variant_file)
            inputs[variant_file.resolve()] = digest
        except VariantError as exc:
            raise _variant_error(source, key, entry.variant, exc) from exc
        shown = display_name(variant_file, spec_path)
        _check_one_rule_set(source, key, variant, entry.player_counts, shown, rule_sets)
        raw_pool = entry.pool if entry.pool is not None else spec.pool
        pool_key = f"{key}.pool" if entry.pool is not None else "pool"
        if not raw_pool:
            raise SpecError(source, pool_key, "the agent pool is empty")
        if len(set(raw_pool)) != len(raw_pool):
            raise SpecError(source, pool_key, "an agent is listed twice")
        pool = tuple(
            _agent(raw, source, f"{pool_key}.{j}", spec_path, presets, inputs)
            for j, raw in enumerate(raw_pool)
        )
        for name in entry.seats:
            if name not in raw_pool:
                raise SpecError(source, f"{key}.seats.{name}", "not an agent of the pool")
        for n in entry.player_counts:  # each one deals: `load_table` worked its deck out
            fixed = sum(entry.seats.values())
            if fixed > n or (fixed < n and len(entry.seats) == len(pool)):
                raise SpecError(
                    source,
                    f"{key}.seats",
                    f"{fixed} fixed seats cannot fill a "
                    f"{n}-player table (the other pool agents fill the rest)",
                )
            label = entry.label or f"{variant.name}-{n}p"
            if entry.label and len(entry.player_counts) > 1:
                label = f"{entry.label}-{n}p"
            if label in labels:
                raise SpecError(
                    source,
                    f"{key}.label",
                    f"matchup {label!r} appears twice; give the entries distinct labels",
                )
            labels.add(label)
            games = entry.games or spec.games
            matchups.append(
                Matchup(
                    label,
                    variant.name,
                    variant_source,
                    digest,
                    dict(entry.set),
                    n,
                    games,
                    index,
                    pool,
                    dict(entry.seats),
                    entry.seating or spec.seating,
                    _switch(entry.shuffle_names, spec.shuffle_names),
                    _switch(entry.shuffle_options, spec.shuffle_options),
                )
            )
            index += games
    if index > MAX_GAME_INDEX:  # its later records would be written, then refused
        raise SpecError(
            source,
            "games",
            f"{index} games in all; a results store holds at most "
            f"{MAX_GAME_INDEX} (split the tournament into several specs)",
        )
    results = Path(spec.results or f"results/{spec.name}")
    experiment = Experiment(
        spec.name,
        spec.description,
        spec_path,
        text,
        spec.base_seed,
        tuple(matchups),
        spec.concurrency,
        results,
        spec.tracking_uri,
        inputs=input_names(inputs, spec_path),
        void_threshold=spec.void_threshold,
    )
    return _with_hash(experiment)


def _check_one_rule_set(
    source: str,
    key: str,
    variant: Variant,
    players: list[int],
    shown: str,
    rule_sets: dict[str, tuple[str, str]],
) -> None:
    """Raise `SpecError` at ``<key>.variant`` when the entry's file bears the name of
    another rule set: a bundled variant's name on a file whose rules are not the
    bundled file's, or the name of another entry's file with other rules.

    `rule_sets` maps each name seen so far to the digest of its file's rules (without
    the entry's switches, `_file_rules`) and to what they are (the bundled file, or
    the entry and file that brought them); this entry's are added.

    Why: a game's record names its variant by the file's ``name``, and the leaderboard
    pools the games of one name, player count and switches as one setup (``standard/7``:
    win rates, the side advantage of the ratings, the role tables). Two rule sets under
    one name would be counted as one, and nothing on the board would tell; a matchup
    ``label`` names only the matchup, not the records, so only a name of the file's
    own keeps them apart. Switches (``set``) are the entry's to choose, as for a
    bundled variant, and do not count here."""
    name = variant.name
    own = custom_file(variant) is not None
    bundled = f"the bundled {variant_path(name).parent.name}/{name}.toml"
    if own and name in available_variants() and name not in rule_sets:
        rule_sets[name] = (_file_rules(variant_path(name)), bundled)
    rules = _file_rules(Path(variant.origin))
    seen, where = rule_sets.setdefault(
        name, (rules, f"{key}.variant ({shown})" if own else bundled)
    )
    if seen != rules:
        setups = ", ".join(f"{name}/{n}" for n in players)
        raise SpecError(
            source,
            f"{key}.variant",
            f"{shown} is named {name!r}, as {where} is, but their rules differ: the games "
            f"of both would be recorded and rated as one variant ({setups} on a "
            'leaderboard); give the file a name of its own (its name = "..."; a label '
            "names only the matchup)",
        )


def _file_rules(path: Path) -> str:
    """The digest of the rules a variant file holds without switches (`rules_digest`:
    two files that differ only in comments or layout hold the same rules), else of its
    bytes (a file that needs switches to load)."""
    try:
        return rules_digest(load_variant(path))
    except VariantError:
        return file_digest(path)


def _variant_error(source: str, key: str, name: str, error: VariantError) -> SpecError:
    """A variant entry's `VariantError` as a `SpecError` at the key the user wrote.

    The blame goes to the entry's ``set`` switch the error comes from, else to
    ``players`` when a deal at one of the counts failed, else to ``variant``.
    """
    if error.reason == NO_SUCH_VARIANT:
        bundled = ", ".join(available_variants())
        if names_a_file(name):  # a path the user wrote: "unknown variant" misleads
            looked = (
                "from the working folder, the spec's folder and the folder above it"
                if name.endswith(".toml")
                else f"for {name} and {error.source}"
            )
            return SpecError(
                source,
                f"{key}.variant",
                f"no such file {name!r} (looked {looked}); give a bundled name ({bundled}) "
                "or the path of a variant file",
            )
        return SpecError(source, f"{key}.variant", f"unknown variant {name!r} (bundled: {bundled})")
    # the variant file's own key, left out when the error is about the whole file ("-")
    inner = f"{error.source}: {error.reason}" if error.key == "-" else str(error)
    if error.overrides:
        switch = next(iter(error.overrides))
        return SpecError(source, f"{key}.set.{switch}", inner)
    if error.players is not None and error.key == "players":
        return SpecError(source, f"{key}.players", error.reason)
    if error.players is not None:
        return SpecError(source, f"{key}.players", f"at {error.players} players: {inner}")
    return SpecError(source, f"{key}.variant", inner)


def _switch(entry: bool | None, top: bool) -> bool:
    """A variant entry's own presentation switch, else the spec's."""
    return top if entry is None else entry


def _with_hash(experiment: Experiment) -> Experiment:
    identity = {
        "format": FORMAT,
        "name": experiment.name,
        "base_seed": experiment.base_seed,
        "matchups": [m.identity() for m in experiment.matchups],
    }
    if experiment.void_threshold != VOID_THRESHOLD:
        identity["void_threshold"] = experiment.void_threshold
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    spec_hash = hashlib.sha256(blob.encode()).hexdigest()[:12]
    return Experiment(**{**experiment.__dict__, "spec_hash": spec_hash})


@dataclass(frozen=True)
class Batch:
    """The unit of work of one task: some games of one matchup (a `range` when they are
    consecutive, as in a fresh tournament: no integer per game is held)."""

    matchup: Matchup
    indices: Sequence[int]


def batches(
    experiment: Experiment,
    pending: Iterable[int] | None = None,
    async_agents: Set[str] = frozenset(),
    *,
    skip: Set[int] = frozenset(),
) -> list[Batch]:
    """Pending games cut into batches per matchup; batches with async agents first.

    The pending games are `pending` (None: every game) less `skip` (the stored ones).
    Async (LLM) games are the slowest, so they are submitted first: the longest tasks
    start earliest and the scripted batches fill the other workers around them.
    """
    wanted = None if pending is None else pending if isinstance(pending, range) else set(pending)
    out: list[tuple[bool, int, Batch]] = []
    conc = experiment.concurrency
    for order, matchup in enumerate(experiment.matchups):
        slow = any(a.label in async_agents for a in matchup.pool)
        size = conc.llm_batch_size if slow else conc.batch_size
        todo = (i for i in matchup.indices if (wanted is None or i in wanted) and i not in skip)
        for chunk in _chunks(todo, size):
            out.append((not slow, order, Batch(matchup, chunk)))
    out.sort(key=lambda item: (item[0], item[1], item[2].indices[0]))
    return [batch for _, _, batch in out]


def _chunks(indices: Iterable[int], size: int) -> Iterator[Sequence[int]]:
    """`indices` (ascending) in chunks of `size`: a `range` where a chunk is consecutive."""
    chunk: list[int] = []
    for index in indices:
        chunk.append(index)
        if len(chunk) == size:
            yield _compact(chunk)
            chunk = []
    if chunk:
        yield _compact(chunk)


def _compact(chunk: list[int]) -> Sequence[int]:
    if chunk[-1] - chunk[0] == len(chunk) - 1:
        return range(chunk[0], chunk[-1] + 1)
    return tuple(chunk)
