"""Checks of the services a tournament needs, run before anything is written.

An unreachable MLflow server used to cost minutes of silent client retries, and a wrong
Ray address hung, both after the results folder and an MLflow run had been created. The
driver therefore checks first, each with a short timeout, and raises `ServiceError`
with what it tried and what to do:

* `check_tracking`: an ``http(s)://`` tracking URI must answer (any HTTP status counts
  as reachable: authentication is MLflow's business); a local ``sqlite:///`` store needs
  a folder that exists, or can be created, and is writable. Other schemes are left to
  MLflow.
* `check_ray_address`: ``ray://host:port`` and ``host:port`` (a GCS address) must accept
  a TCP connection; ``auto`` needs a running local cluster (Ray's own lookup is fast).
"""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from pathlib import Path

from mafia_arena.experiments.errors import ServiceError
from mafia_arena.tracking.uri import sqlite_path

TIMEOUT_S = 5.0


def check_tracking(uri: str, timeout_s: float = TIMEOUT_S) -> None:
    """Raise `ServiceError` unless the MLflow tracking store at `uri` can be used."""
    if uri.startswith(("http://", "https://")):
        url = uri.rstrip("/") + "/health"
        try:
            with urllib.request.urlopen(url, timeout=timeout_s):
                return
        except urllib.error.HTTPError:
            return  # it answered
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ServiceError(
                f"MLflow tracking server {uri} is not reachable ({reason}, waited at most "
                f"{timeout_s:.0f} s); start it, pass another --tracking-uri, or --no-tracking "
                "to play without MLflow. Nothing was written."
            ) from None
    db = sqlite_path(uri)
    if db is None:
        return
    folder = db.parent
    existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ServiceError(
            f"MLflow tracking store {uri}: cannot write to {existing or folder}; pass another "
            "--tracking-uri, or --no-tracking to play without MLflow. Nothing was written."
        )
    if db.exists() and not os.access(db, os.R_OK | os.W_OK):
        raise ServiceError(
            f"MLflow tracking store {uri}: {db} is not readable and writable; pass another "
            "--tracking-uri, or --no-tracking. Nothing was written."
        )


def check_ray_address(address: str, timeout_s: float = TIMEOUT_S) -> None:
    """Raise `ServiceError` unless the Ray cluster at `address` accepts connections."""
    if address == "auto":
        try:
            from ray._private.services import find_gcs_addresses
        except ImportError:  # an older or newer layout: let ray.init report it
            return
        if not find_gcs_addresses():
            raise ServiceError(
                "--address auto: no Ray cluster runs on this machine; start one with "
                "`ray start --head`, or leave --address out to start a private local one."
            )
        return
    target = address[len("ray://") :] if address.startswith("ray://") else address
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise ServiceError(f"--address {address!r}: expected host:port, ray://host:port or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return
    except OSError as exc:
        raise ServiceError(
            f"Ray cluster {address} is not reachable ({exc.strerror or exc}, waited at most "
            f"{timeout_s:.0f} s); check the address, or leave --address out to start a "
            "private local cluster. Nothing was written."
        ) from None


def writable_results(folder: Path) -> None:
    """Raise `ServiceError` if the results folder cannot be created or written."""
    existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ServiceError(
            f"results folder {folder}: cannot write to {existing or folder}; pass another "
            "--results folder."
        )
