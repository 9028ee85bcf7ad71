"""Per-seat seeds derived with a host-side secret key, so no player learns the game seed.

The game seed determines the deal (`Game(variant, players, seed)` rebuilds every card),
and game seeds are small integers. Handing a player the game seed, or any plain hash of
it and the seat, would let a program try every candidate seed and read the whole deal.
Each seat therefore gets ``HMAC-SHA256(key, "<game seed>:<seat>")`` (its first 8 bytes,
as an integer below 2**63): without the key the seat seeds say nothing about the game
seed, and with the key (kept by the host next to the results) a run is reproducible.

This module imports nothing of the package, so every driver (runner, web app,
tournament worker, command line) can use it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_BYTES = 32
KEY_FILE = "host_key"
"""The file name of the key in a results folder (hex text, readable by its owner only)."""


def new_host_key() -> bytes:
    """A fresh random host key."""
    return secrets.token_bytes(KEY_BYTES)


def keyed_digest(key: bytes, message: str) -> bytes:
    """``HMAC-SHA256(key, message)``: what the host derives from a game seed for the
    players (seat seeds, shuffled names) without the derivation giving the seed away."""
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def seat_seed(key: bytes, game_seed: int, seat: int) -> int:
    """The seed handed to the player of `seat` in the game of `game_seed` (< 2**63)."""
    digest = keyed_digest(key, f"mafia-arena seat seed:{int(game_seed)}:{int(seat)}")
    return int.from_bytes(digest[:8], "big") >> 1


def seat_seeds(key: bytes, game_seed: int, players: int) -> list[int]:
    """`seat_seed` for every seat of a game, in seat order."""
    return [seat_seed(key, game_seed, seat) for seat in range(players)]


def load_or_create_host_key(folder: str | Path, new: bytes | None = None) -> bytes:
    """The host key kept in `folder` (``host_key``), created there if it is missing:
    `new` where given (a published board's key, so its games are played again as
    published), else a fresh random one. A key already in the folder always wins; one
    that holds no key raises `HostKeyError` (it is never replaced).

    Why a file in the results folder: resuming or re-running an experiment must hand
    every seat the same seed again, and copying the folder (with its key) reproduces it
    elsewhere. The file is created readable by its owner only, since whoever reads it
    can recover the deal of every game from the seat seeds.
    """
    path = Path(folder) / KEY_FILE
    if path.is_file():
        return read_host_key(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = new_host_key() if new is None else new
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it meanwhile: use theirs
        return read_host_key(path)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(key.hex() + "\n")
    return key


class HostKeyError(ValueError):
    """A host key file that holds no key (damaged, hand-edited, binary): the message
    names the file and says what it should hold.

    Why a class of its own: the command line reports it as the user's to fix (one
    paragraph, exit 2) rather than as a bug; the folder's owner restores the file or
    starts a new folder, since a new key would play other games than the stored ones."""


def read_host_key(path: Path) -> bytes:
    """The key in file `path`; `HostKeyError` naming the file when it holds no key
    (text that is not hex, too short, or not ASCII at all)."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except UnicodeDecodeError:
        text = ""
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise HostKeyError(f"{path}: not a host key (expected at least 32 hex digits)")
    return key
