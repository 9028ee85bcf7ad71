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

import contextlib
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


#: The domain-separation prefix of `host_key_fingerprint`: the fingerprint is a hash
#: of nothing else the package computes from the key.
FINGERPRINT_PREFIX = b"mafia-arena host key fingerprint\x00"


def host_key_fingerprint(key: bytes) -> str:
    """16 hex digits of ``sha256(FINGERPRINT_PREFIX + key)``: which key a results folder
    was played with (its manifest and board name it), never the key itself.

    Why it reveals nothing of the key: sha256 cannot be inverted, the key is 16 bytes or
    more of randomness (`read_host_key`), so 64 bits of a hash of it cannot be searched
    back to it, and the prefix keeps the hash apart from the keyed digests the players
    get (`keyed_digest` is an HMAC of other messages). It is derived from the key alone
    and stays with the host: no seat is handed it, so no player's view depends on it."""
    return hashlib.sha256(FINGERPRINT_PREFIX + key).hexdigest()[:16]


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
    that holds no key raises `HostKeyError` (it is never replaced). Runs that create
    the key at once all return the one that lands in the folder.

    Why a file in the results folder: resuming or re-running an experiment must hand
    every seat the same seed again, and copying the folder (with its key) reproduces it
    elsewhere. The file is created readable by its owner only, since whoever reads it
    can recover the deal of every game from the seat seeds.

    Why `_create_key` rather than writing the file in place: the key file appears
    whole or not at all, so an interrupted run never leaves an empty or cut key for the
    next one. What an interrupted creation can leave is a pending file (`PENDING_GLOB`),
    which is never read as a key and is removed here once the key is in place.
    """
    path = Path(folder) / KEY_FILE
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        _create_key(path, new_host_key() if new is None else new)
    key = read_host_key(path)
    _remove_pending(path.parent)
    return key


PENDING_GLOB = f".{KEY_FILE}.*.pending"
"""The names of keys still being written (``.host_key.<pid>.<random>.pending``)."""


def _create_key(path: Path, key: bytes) -> None:
    """Put `key` at `path` unless a key is there already, never leaving a part of it.

    The key is written to a pending file of its own in the same folder and synced to
    disk, then hard-linked to `path`: the link either makes the whole file appear or
    fails because another run's key is there (theirs then stands, so racing runs agree
    on one key); unlike a rename it never replaces a key. The pending file is removed
    in every case, also when a signal interrupts, except by a kill (SIGKILL, a power
    cut), whose leftover `load_or_create_host_key` removes later.
    """
    pending = path.with_name(f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(8)}.pending")
    try:
        _write_synced(pending, key.hex() + "\n")
        try:
            os.link(pending, path)
        except FileExistsError:
            return  # another run's key came first: it stands
        except FileNotFoundError:
            if path.is_file():  # a run that found the key in place removed our pending file
                return
            raise
        except OSError:  # a file system without hard links (FAT, some network mounts)
            _write_in_place(path, key.hex() + "\n")
            return
        _sync_folder(path.parent)
    finally:
        pending.unlink(missing_ok=True)


def _write_synced(path: Path, text: str) -> None:
    """A new file `path` (owner-readable only) holding `text`, flushed to disk."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def _write_in_place(path: Path, text: str) -> None:
    """Create the key file `path` holding `text` directly, where the file system cannot
    link: never replacing a key (`O_EXCL`: another run's stands), but a run stopped in
    the instant between creating and filling it can leave it empty, which
    `read_host_key` then reports instead of using."""
    try:
        _write_synced(path, text)
    except FileExistsError:
        return


def _sync_folder(folder: Path) -> None:
    """Flush `folder`'s entries to disk (the new link), where the system allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder cannot be opened on every system (Windows)
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _remove_pending(folder: Path) -> None:
    """Remove the pending key files an interrupted creation left in `folder`.

    Only called once the key is in place, so a run still creating one loses nothing:
    its link then fails and it reads the key in place (`_create_key`)."""
    for leftover in folder.glob(PENDING_GLOB):
        with contextlib.suppress(OSError):  # a read-only folder still gives its key
            leftover.unlink()


class HostKeyError(ValueError):
    """A host key file that holds no key (damaged, hand-edited, binary): the message
    names the file and says what it should hold.

    Why a class of its own: the command line reports it as the user's to fix (one
    paragraph, exit 2) rather than as a bug; the folder's owner restores the file or
    starts a new folder, since a new key would play other games than the stored ones."""


def read_host_key(path: Path) -> bytes:
    """The key in file `path`; `HostKeyError` naming the file and what is wrong when it
    holds no key: empty (earlier versions wrote the file in place, so a run stopped
    meanwhile left it empty), or text that is not hex, too short, or not ASCII at all.
    Such a file is never used as a key: it would hand out other seat seeds."""
    raw = path.read_bytes()
    if not raw.strip():
        raise HostKeyError(
            f"{path}: the host key file is empty (a run was stopped while creating it). {_RESTORE}"
        )
    try:
        key = bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) < 16:
        raise HostKeyError(f"{path}: not a host key (expected at least 32 hex digits). {_RESTORE}")
    return key


_RESTORE = (
    "Restore it from a copy; removing it makes a new key, which plays other games "
    "than the ones played with the old key."
)
