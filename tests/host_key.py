"""The host key that test games hand their players' seat seeds from.

Without a key, each game draws a fresh random one (the product's default: a seat's seed
then never gives the deal away, and nothing about one game tells the next), so the same
game seed brings different posts, targets and votes from scripted players in every run.
A test that reads what its players did, or plays games that must fail the same way
twice, passes this key: same seed and key, same seat seeds, same game.
"""

from __future__ import annotations

from pathlib import Path

FIXED_HOST_KEY = bytes(range(32))


def with_host_key(folder: Path) -> Path:
    """`folder`, made if missing, holding `FIXED_HOST_KEY` as its results folder's key
    file: a tournament run there hands its players the same seat seeds in every run and
    in every such folder, so they store the same games."""
    from mafia_arena.seat_seeds import KEY_FILE

    folder.mkdir(parents=True, exist_ok=True)
    (folder / KEY_FILE).write_text(FIXED_HOST_KEY.hex() + "\n", encoding="ascii")
    return folder
