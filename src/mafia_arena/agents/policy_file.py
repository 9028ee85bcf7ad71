"""The numpy policy file: a trained actor exported so it plays without PyTorch.

A file holds the actor network of a masked PPO policy (dense layers with tanh between
them, then the action layer) as arrays, plus a JSON header saying what it was trained
for: variant, player count, switches, side, request kinds, the observation size and
the action table (keys in order, hashed), the fallback player and the training spec's
hash. `PolicyFile.act` is a forward pass and an argmax over the legal actions, so Ray
workers, the web app and the CLI can seat a trained policy with numpy alone.

A file is checked in full when it is loaded (`PolicyFile.load`: `check_header`, then
`check_shapes` on the arrays' declared shapes, then `check_values`), so a damaged or
hostile file is refused before any game starts, with a `ValueError` naming the file and
the header key or array at fault (``FILE: KEY: REASON``, as every reader of a user's
file words it: a header key or an array's name is the key), and `act` cannot fail in
the middle of a game.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import struct
import zipfile
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeGuard

import numpy as np

FORMAT = "mafia-arena-policy/1"

_ARCHIVE_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    ValueError,
    KeyError,
    EOFError,
    RuntimeError,  # an encrypted member
    NotImplementedError,  # a compression method zipfile does not know
    struct.error,
    zipfile.BadZipFile,
    zlib.error,
)
"""What reading a damaged archive can raise (numpy and zipfile, member by member)."""

_ARRAY_NAME = re.compile(r"[wb](0|[1-9][0-9]*)")

MAX_HEADER_BYTES = 1 << 20
"""The most bytes a file's JSON header may declare (the shipped one has a few KiB)."""

MAX_WEIGHTS = 1 << 26
"""The most numbers a file's layers may declare together (256 MiB as float32, far above
any network trained here). Why: the archive is compressed, so a small file could
declare arrays that fill memory when read; the declared sizes are checked first."""

SB3_MEMBERS = frozenset({"data", "policy.pth"})
"""Members of every Stable-Baselines3 checkpoint (``model.zip``: the algorithm's JSON
``data`` and the policy's weights). Why: a checkpoint is a zip archive as an npz file
is, so seated by mistake it reads as an archive without a header; this names what it
is and the file to seat instead."""


ALL_KINDS = "*"
"""In a policy's ``kinds`` (and a training spec's): every request kind."""


def answers(kinds: Collection[str], kind: str) -> bool:
    """Whether a policy trained on request `kinds` answers a request of `kind`: one
    rule for training (the team env's learner) and play (`agents.policy`), so a policy
    plays exactly the decisions it learnt."""
    return ALL_KINDS in kinds or kind in kinds


def table_hash(keys: list[str]) -> str:
    """A short hash of an action table's keys, in order: a policy only fits its table."""
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


def _count(value: object) -> TypeGuard[int]:
    """Whether `value` is a whole number of at least 1 (JSON ``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_header(header: object) -> dict[str, Any]:
    """The header itself when every key an `rl` agent reads has a usable value.

    Required: ``variant`` (a name or path, non-empty text), ``players`` and
    ``observation_size`` (whole numbers, at least 1), ``side`` and ``table_hash``
    (non-empty text), ``kinds`` (a non-empty list of request kinds, as text). Optional:
    ``overrides`` (an object of switches), ``observation`` (an object or null),
    ``advice`` (text or null), ``fallback`` (text), ``actions`` (a whole number, at
    least 1), ``variant_file`` (a variant file of one's own, as non-empty text, with
    ``variant_digest`` and ``rules_digest``, non-empty text). Other keys (``name``,
    ``spec``, ``seed`` …) are only recorded. The file-level keys ``format`` and
    ``layers`` are `PolicyFile.load`'s to check.

    Raises `ValueError` ``K: reason`` for the first key that is missing or of the
    wrong type (the caller puts the file before it). Why: the agent reads these keys
    when it is built and while it plays; a wrong type would end a game mid-way or
    quietly change what the policy plays (a text ``kinds`` would be read as a set of
    letters, a fractional ``players`` rounded down).
    """
    if not isinstance(header, dict):
        raise ValueError(f"header: JSON {type(header).__name__}, not an object")

    def need(key: str) -> Any:
        if key not in header:
            raise ValueError(f"{key}: missing")
        return header[key]

    for key in ("variant", "side", "table_hash"):
        value = need(key)
        if not isinstance(value, str) or not value:
            raise ValueError(f"{key}: must be non-empty text, not {value!r}")
    for key in ("players", "observation_size"):
        value = need(key)
        if not _count(value):
            raise ValueError(f"{key}: must be a whole number of at least 1, not {value!r}")
    kinds = need("kinds")
    if not isinstance(kinds, list) or not kinds or not all(isinstance(k, str) and k for k in kinds):
        raise ValueError(f"kinds: must be a non-empty list of request kinds (text), not {kinds!r}")
    if not isinstance(header.get("overrides", {}), dict):
        raise ValueError(f"overrides: must be an object of switches, not {header['overrides']!r}")
    observation = header.get("observation")
    if observation is not None and not isinstance(observation, dict):
        raise ValueError(f"observation: must be an object or null, not {observation!r}")
    advice = header.get("advice")
    if advice is not None and not isinstance(advice, str):
        raise ValueError(f"advice: must be a player's name or null, not {advice!r}")
    if "fallback" in header and not isinstance(header["fallback"], str):
        raise ValueError(f"fallback: must be a player's name, not {header['fallback']!r}")
    if "variant_file" in header:  # a file of one's own: its digests say which rules
        for key in ("variant_file", "variant_digest", "rules_digest"):
            value = need(key)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{key}: must be non-empty text, not {value!r}")
    if "actions" in header and not _count(header["actions"]):
        raise ValueError(
            f"actions: must be a whole number of at least 1, not {header['actions']!r}"
        )
    return header


Shape = tuple[int, ...]


def check_shapes(
    shapes: Sequence[tuple[Shape, Shape]],
    observation_size: int,
    actions: int | None,
    actions_from: str = "the action table has",
) -> None:
    """Raise `ValueError` ``wN: reason`` (the array's name, then why) unless the layers
    chain.

    `shapes` holds (weight shape, bias shape) per layer, first to last. Each weight
    must be a matrix whose columns are the previous layer's rows (the first's: the
    observation size), each bias a vector of its weight's rows, and the last layer's
    rows the number of actions (when given; `actions_from` says where that number
    comes from, for the message). Why: `PolicyFile.logits` multiplies
    these in turn; checked against the declared shapes, a file that does not fit is
    refused before its data is even read, and `act` cannot fail later.
    """
    if not shapes:
        raise ValueError("layers: a policy needs at least one layer")
    width = observation_size
    for index, (weight, bias) in enumerate(shapes):
        if len(weight) != 2:
            raise ValueError(f"w{index}: must be a matrix, not {len(weight)}-d {weight}")
        if weight[1] != width:
            fits = (
                f"the observation size is {width}"
                if index == 0
                else f"'w{index - 1}' has {width} rows"
            )
            raise ValueError(f"w{index}: {weight[1]} columns, but {fits}")
        if bias != (weight[0],):
            raise ValueError(f"b{index}: shape {bias}, but 'w{index}' has {weight[0]} rows")
        width = weight[0]
    if actions is not None and width != actions:
        raise ValueError(
            f"w{len(shapes) - 1}: {width} rows (one per action), but {actions_from} {actions}"
        )


def check_values(layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Raise `ValueError` ``wN: reason`` for a weight that is not a finite number.

    Why: a NaN or infinite weight makes every logit NaN, and the argmax then picks the
    first legal action whatever the game: the policy would play nonsense, silently.
    """
    for index, pair in enumerate(layers):
        for letter, array in zip("wb", pair, strict=True):
            if not np.isfinite(array).all():
                raise ValueError(f"{letter}{index}: holds NaN or infinite values")


@dataclass
class PolicyFile:
    """Weights (`layers`: list of (W, b), hidden first, action layer last) and header.

    `source` is the file it was loaded from (None when built in memory), for messages;
    `sha256` the digest of that file's bytes, for the agent's card (`PolicyAgent.card`).
    """

    layers: list[tuple[np.ndarray, np.ndarray]]
    header: dict[str, Any] = field(default_factory=dict)
    source: Path | None = field(default=None, compare=False, repr=False)
    sha256: str | None = field(default=None, compare=False, repr=False)
    """The sha256 of the file's bytes as loaded (None when built in memory)."""

    def logits(self, observation: np.ndarray) -> np.ndarray:
        hidden = np.asarray(observation, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            hidden = np.tanh(weight @ hidden + bias)
        weight, bias = self.layers[-1]
        return weight @ hidden + bias

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action (deterministic play, as in evaluation)."""
        logits = np.where(mask.astype(bool), self.logits(observation), -np.inf)
        return int(np.argmax(logits))

    def check(self, actions: int | None = None) -> None:
        """Raise `ValueError` ``KEY: reason`` (a header key or an array) unless header
        and weights fit together and, when given, an action table of `actions`
        entries."""
        header = check_header(self.header)
        shapes = [(weight.shape, bias.shape) for weight, bias in self.layers]
        check_shapes(shapes, header["observation_size"], actions)
        check_values(self.layers)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for index, (weight, bias) in enumerate(self.layers):
            arrays[f"w{index}"] = weight.astype(np.float32)
            arrays[f"b{index}"] = bias.astype(np.float32)
        header = {"format": FORMAT, "layers": len(self.layers), **self.header}
        arrays["header"] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), np.uint8)
        with path.open("wb") as handle:
            np.savez_compressed(handle, allow_pickle=False, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> PolicyFile:
        """Read and check a policy file (see the module docstring).

        Raises `ValueError` ``PATH: -: reason`` for a file that cannot be read or is no
        npz archive, and ``PATH: K: reason`` for a header key or array ``K`` (``header``,
        ``w0``, ``b0`` …) that is missing, of the wrong type or shape, or not finite.
        """
        path = Path(path)
        with contextlib.ExitStack() as stack:
            try:
                handle = stack.enter_context(path.open("rb"))
                # hashed from the handle the weights are then read from: the digest is
                # of the bytes that play, even if the file is replaced meanwhile
                sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
                handle.seek(0)
                archive = np.load(handle, allow_pickle=False)
            except _ARCHIVE_ERRORS as exc:
                raise ValueError(f"{path}: -: not a policy file ({_reason(exc)})") from None
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ValueError(
                    f"{path}: -: not a policy file (a single array, not an npz archive)"
                )
            try:
                with archive:
                    header, layers = _read(archive)
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from None
        return cls(layers, header, path, sha256)


def _reason(exc: BaseException) -> str:
    """An exception as a short reason (an `OSError` without its repeated file name)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _read(archive: Any) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """The header and layers of an open npz archive, checked before the weights are
    read (their declared shapes first, so a hostile size is never allocated)."""
    names = set(archive.files)
    if "header" not in names and names >= SB3_MEMBERS:
        raise ValueError(
            "header: missing (a Stable-Baselines3 checkpoint, not a policy file: "
            "seat the policy.npz that training wrote beside it)"
        )
    if "header" not in names:
        raise ValueError("header: missing (not a policy file)")
    header_size = math.prod(_declared(archive, "header"))
    if header_size > MAX_HEADER_BYTES:
        raise ValueError(f"header: declares {header_size} bytes, more than {MAX_HEADER_BYTES}")
    try:
        header = json.loads(bytes(_array(archive, "header")).decode())
    except (UnicodeDecodeError, RecursionError, json.JSONDecodeError) as exc:
        raise ValueError(f"header: not JSON text ({exc})") from None
    if not isinstance(header, dict):
        raise ValueError(f"header: JSON {type(header).__name__}, not an object")
    if header.get("format") != FORMAT:
        raise ValueError(f"format: {header.get('format')!r}, expected {FORMAT!r}")
    header = check_header(header)
    count = header.get("layers")
    if not _count(count):
        raise ValueError(f"layers: must be a whole number of at least 1, not {count!r}")
    if count > len(names):  # before the names below are built: a hostile count costs nothing
        raise ValueError(f"layers: {count} layers, but the archive holds {len(names)} arrays")
    wanted = [f"{letter}{index}" for index in range(count) for letter in "wb"]
    extra = sorted(names - {"header"} - set(wanted), key=_natural)
    if extra:
        raise ValueError(
            f"{extra[0]}: not one of the {count} layers (the header says layers = {count})"
        )
    for name in wanted:
        if name not in names:
            raise ValueError(f"{name}: missing (the header says layers = {count})")
    declared = {name: _declared(archive, name) for name in wanted}
    weights = sum(math.prod(shape) for shape in declared.values())
    if weights > MAX_WEIGHTS:
        raise ValueError(f"layers: the arrays declare {weights} numbers, more than {MAX_WEIGHTS}")
    shapes = [(declared[f"w{i}"], declared[f"b{i}"]) for i in range(count)]
    check_shapes(
        shapes, header["observation_size"], header.get("actions"), "the header says actions ="
    )
    layers = [(_array(archive, f"w{i}"), _array(archive, f"b{i}")) for i in range(count)]
    check_values(layers)
    return header, layers


def _natural(name: str) -> tuple[int, str]:
    match = _ARRAY_NAME.fullmatch(name)
    return (int(match.group(1)) if match else -1, name)


def _declared(archive: Any, name: str) -> Shape:
    """The shape an archive member declares, read from its npy header alone; only real
    numbers (booleans, integers, floats) are weights."""
    try:
        with archive.zip.open(f"{name}.npy") as member:
            shape, dtype = _npy_header(member)
    except _ARCHIVE_ERRORS as exc:
        raise ValueError(f"{name}: unreadable ({_reason(exc)})") from None
    if dtype.kind not in "biuf":
        raise ValueError(f"{name}: {dtype} values are not real numbers")
    return shape


def _npy_header(member: IO[bytes]) -> tuple[Shape, np.dtype[Any]]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
    else:
        raise ValueError(f"npy format version {version} is not used for weights")
    return tuple(shape), dtype


def _array(archive: Any, name: str) -> np.ndarray:
    """Member `name` of the archive as float32 (`ValueError` naming it when unreadable)."""
    try:
        array = archive[name]
    except _ARCHIVE_ERRORS as exc:
        raise ValueError(f"{name}: unreadable ({_reason(exc)})") from None
    if not isinstance(array, np.ndarray):
        raise ValueError(f"{name}: not an npy array")
    return array if name == "header" else array.astype(np.float32)
