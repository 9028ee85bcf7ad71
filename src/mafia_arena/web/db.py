"""The live store: every web game's lobby, seats, tokens and decisions in SQLite.

Why a store at all: a server restart must not lose a live game. Each decision is
written as it is made (one row per `Game.decisions` record, in order), so a restarted
server rebuilds every live game by replaying them (`Game.resubmit`, the same path as
`runner.replay`) and reaches exactly the state the players saw; their seat credentials
are stored too (as SHA-256 digests, never the tokens), so the pages reconnect with
what they already hold. Finished games keep their log, for the public browser of
finished games and their replay.

Uses the standard library's `sqlite3` in WAL mode on the server's one event loop; a
write is a few hundred microseconds, well below a decision's pace. `path=None` keeps
the store in memory (tests, throwaway servers): nothing survives a restart then.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mafia_arena.seat_seeds import new_host_key

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    seed INTEGER NOT NULL,
    created REAL NOT NULL,
    started INTEGER NOT NULL DEFAULT 0,
    over INTEGER NOT NULL DEFAULT 0,
    slots TEXT NOT NULL DEFAULT '[]',
    log TEXT,
    finished REAL,
    winner TEXT
);
DROP INDEX IF EXISTS games_finished;
CREATE INDEX IF NOT EXISTS games_finished_order ON games (over, finished, id);
CREATE TABLE IF NOT EXISTS decisions (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    record TEXT NOT NULL,
    by TEXT NOT NULL DEFAULT 'player',
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE IF NOT EXISTS tokens (
    digest TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    device TEXT
);
CREATE INDEX IF NOT EXISTS tokens_game ON tokens (game_id);
CREATE TABLE IF NOT EXISTS chat (
    game_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);
CREATE TABLE IF NOT EXISTS rematches (
    game_id TEXT PRIMARY KEY,
    next TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS server (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


class UnknownCursor(LookupError):
    """A page of finished games was asked for after a game the store does not hold
    as finished (`LiveStore.finished`)."""


@dataclass(frozen=True)
class StoredGame:
    """One game's row: what `GameManager` needs to rebuild its session."""

    id: str
    spec: dict[str, Any]
    seed: int
    started: bool
    over: bool
    slots: list[dict[str, Any]]
    log: str | None
    finished: float | None
    winner: str | None


@dataclass(frozen=True)
class StoredToken:
    """A token digest and what it grants (see `web/auth.py` for the kinds)."""

    digest: str
    game_id: str
    kind: str
    seat: int | None
    device: str | None


class LiveStore:
    """The SQLite file (or an in-memory database) behind one server's games."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        # made on one thread, used on the server loop's: one user at a time either way
        self.db = sqlite3.connect(
            str(path) if path is not None else ":memory:", check_same_thread=False
        )
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    def host_key(self) -> bytes:
        """The server's host key (derives the bots' seat seeds), made once and kept.

        Why kept: a restarted server must hand every bot the same seat seed as before,
        so its decisions after the restart are the ones it would have made anyway
        (`web/catch_up.py`). The key never leaves the server; the file is made
        readable by its owner only."""
        row = self.db.execute("SELECT value FROM server WHERE key = 'host_key'").fetchone()
        if row is not None:
            return bytes.fromhex(row[0])
        key = new_host_key()
        self.db.execute("INSERT INTO server (key, value) VALUES ('host_key', ?)", (key.hex(),))
        self.db.commit()
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.chmod(self.path, 0o600)
        return key

    # ------------------------------------------------------------------ games
    def add_game(self, game_id: str, spec: dict[str, Any], seed: int) -> None:
        self.db.execute(
            "INSERT INTO games (id, spec, seed, created) VALUES (?, ?, ?, ?)",
            (game_id, json.dumps(spec, sort_keys=True), seed, time.time()),
        )
        self.db.commit()

    def save_slots(self, game_id: str, slots: list[dict[str, Any]], *, started: bool) -> None:
        self.db.execute(
            "UPDATE games SET slots = ?, started = ? WHERE id = ?",
            (json.dumps(slots, sort_keys=True), int(started), game_id),
        )
        self.db.commit()

    def add_decisions(self, game_id: str, start: int, records: list[tuple[dict, str]]) -> None:
        """Append decision records (with who made them) from index `start` on."""
        self.db.executemany(
            "INSERT OR REPLACE INTO decisions (game_id, idx, record, by) VALUES (?, ?, ?, ?)",
            [
                (game_id, start + i, json.dumps(rec, sort_keys=True), by)
                for i, (rec, by) in enumerate(records)
            ],
        )
        self.db.commit()

    def decisions(self, game_id: str) -> list[tuple[dict[str, Any], str]]:
        rows = self.db.execute(
            "SELECT record, by FROM decisions WHERE game_id = ? ORDER BY idx", (game_id,)
        )
        return [(json.loads(record), by) for record, by in rows]

    def finish(self, game_id: str, log_jsonl: str, winner: str | None) -> None:
        self.db.execute(
            "UPDATE games SET over = 1, log = ?, finished = ?, winner = ? WHERE id = ?",
            (log_jsonl, time.time(), winner, game_id),
        )
        self.db.commit()

    def forget(self, game_id: str) -> None:
        """Drop a game that never started (a stale lobby) with its tokens."""
        tables = (("games", "id"), ("decisions", "game_id"), ("tokens", "game_id"))
        for table, key in (*tables, ("chat", "game_id")):
            self.db.execute(f"DELETE FROM {table} WHERE {key} = ?", (game_id,))
        self.db.commit()

    def games(self, *, over: bool | None = None) -> list[StoredGame]:
        query = "SELECT id, spec, seed, started, over, slots, log, finished, winner FROM games"
        args: tuple[Any, ...] = ()
        if over is not None:
            query += " WHERE over = ?"
            args = (int(over),)
        rows = self.db.execute(query + " ORDER BY created", args)
        return [
            StoredGame(
                gid, json.loads(spec), seed, bool(st), bool(ov), json.loads(slots), log, fin, win
            )
            for gid, spec, seed, st, ov, slots, log, fin, win in rows
        ]

    def finished(self, limit: int = 50, before: str | None = None) -> list[dict[str, Any]]:
        """Finished games, newest first, at most `limit`: public facts only. With
        `before` (the id of a listed finished game), the games listed after it: the next
        page. Raises `UnknownCursor` when `before` names no finished game.

        The order is by finish time, then id (two games finished in the same instant
        keep one order), both stored: the same pages in every run of the server. Read
        through the index `games_finished_order`, so a page costs `limit` rows however
        many games the store holds. Why: the server answers on its one event loop, and
        without the index every home page's list read and sorted the whole table (half
        a second with ten thousand stored games, every live table's sockets stalled
        meanwhile)."""
        query = "SELECT id, spec, finished, winner FROM games WHERE over = 1"
        args: tuple[Any, ...] = ()
        if before is not None:
            row = self.db.execute(
                "SELECT finished FROM games WHERE id = ? AND over = 1", (before,)
            ).fetchone()
            if row is None:
                raise UnknownCursor(before)
            query += " AND (finished, id) < (?, ?)"
            args = (row[0], before)
        rows = self.db.execute(query + " ORDER BY finished DESC, id DESC LIMIT ?", (*args, limit))
        out = []
        for gid, spec, finished, winner in rows:
            data = json.loads(spec)
            out.append(
                {
                    "id": gid,
                    "variant": data.get("variant"),
                    "players": data.get("players"),
                    "winner": winner,
                    "finished": finished,
                }
            )
        return out

    def finished_game(self, game_id: str) -> dict[str, Any] | None:
        """One finished game's public facts (as `finished` lists them); None when the
        store holds no finished game of that id."""
        row = self.db.execute(
            "SELECT spec, finished, winner FROM games WHERE id = ? AND over = 1", (game_id,)
        ).fetchone()
        if row is None:
            return None
        spec, finished, winner = row
        data = json.loads(spec)
        return {
            "id": game_id,
            "variant": data.get("variant"),
            "players": data.get("players"),
            "winner": winner,
            "finished": finished,
        }

    def game(self, game_id: str) -> StoredGame | None:
        """One game's row as `games` lists it, but without its log (``log`` None: a
        finished game's log may be megabytes, `log_of` reads it); None when the store
        holds no game of that id."""
        query = "SELECT id, spec, seed, started, over, slots, NULL, finished, winner FROM games"
        row = self.db.execute(query + " WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        gid, spec, seed, st, ov, slots, log, fin, win = row
        return StoredGame(
            gid, json.loads(spec), seed, bool(st), bool(ov), json.loads(slots), log, fin, win
        )

    def set_rematch(self, game_id: str, next_id: str) -> None:
        """`next_id` is the game the group of `game_id` plays next (its rematch).

        Kept so that a player of a finished game who asks for the rematch after a
        restart joins the one their table already made, not a second one."""
        self.db.execute(
            "INSERT OR REPLACE INTO rematches (game_id, next) VALUES (?, ?)", (game_id, next_id)
        )
        self.db.commit()

    def rematch_of(self, game_id: str) -> str | None:
        """The rematch made for `game_id` (`set_rematch`), else None."""
        row = self.db.execute("SELECT next FROM rematches WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] if row else None

    def log_of(self, game_id: str) -> str | None:
        row = self.db.execute("SELECT log FROM games WHERE id = ?", (game_id,)).fetchone()
        return row[0] if row else None

    # ------------------------------------------------------------------ chat
    def add_chat(self, game_id: str, index: int, line: dict[str, Any]) -> None:
        """One table-chat line (`web/chat.py`), kept so a restart loses no chat."""
        self.db.execute(
            "INSERT OR REPLACE INTO chat (game_id, idx, line) VALUES (?, ?, ?)",
            (game_id, index, json.dumps(line, sort_keys=True)),
        )
        self.db.commit()

    def chat(self, game_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT line FROM chat WHERE game_id = ? ORDER BY idx", (game_id,))
        return [json.loads(line) for (line,) in rows]

    # ------------------------------------------------------------------ tokens
    def add_token(self, token: StoredToken) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO tokens (digest, game_id, kind, seat, device) "
            "VALUES (?, ?, ?, ?, ?)",
            (token.digest, token.game_id, token.kind, token.seat, token.device),
        )
        self.db.commit()

    def drop_tokens(self, digests: list[str]) -> None:
        self.db.executemany("DELETE FROM tokens WHERE digest = ?", [(d,) for d in digests])
        self.db.commit()

    def tokens(self) -> list[StoredToken]:
        # in the order they were written: a seat's oldest keys are revoked first
        rows = self.db.execute(
            "SELECT digest, game_id, kind, seat, device FROM tokens ORDER BY rowid"
        )
        return [StoredToken(*row) for row in rows]
