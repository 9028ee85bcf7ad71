"""Checks of the services a tournament needs, run before anything is written.

An unreachable MLflow server used to cost minutes of silent client retries, and a wrong
Ray address hung, both after the results folder and an MLflow run had been created. An
address where *something else* answers (a web server that is not MLflow, a port that is
not Ray's) passed a mere connection check and failed the same way later. The driver
therefore asks each service a question only it can answer, each with a short timeout
(`TIMEOUT_S`, read at call time), and raises `ServiceError` with what it tried and what
to do:

* `check_tracking`: an ``http(s)://`` tracking URI must answer MLflow's REST API: ``GET
  /api/2.0/mlflow/experiments/search?max_results=1`` returns 200 with a JSON object. The
  request goes through MLflow's own HTTP client without retries, so the credentials and
  TLS settings MLflow reads from the environment (``MLFLOW_TRACKING_TOKEN``, …) apply to
  the check as they apply to the run. A local ``sqlite:///`` store needs a folder that
  exists, or can be created, and is writable, and its database file, if there, must be
  an SQLite database (not a folder, nor a file of something else). Any other URI (a
  database, ``databricks``, a mistyped scheme, a plain folder: MLflow 3 refuses its file
  store) must give MLflow's own client a tracking store. Every message starts with where
  the URI came from (the option, the spec key or the environment variable).
* `check_ray_address`: the address must accept a TCP connection, and then ``host:port``
  (a GCS address) must answer the GCS's
  ``NodeInfoGcsService.GetClusterId`` RPC (one cheap call, no retries);
  ``ray://host:port`` (a Ray Client server) must complete a gRPC handshake. Both use
  Ray's own channel factory, so ``RAY_USE_TLS`` and token authentication apply.
  ``auto`` needs a running local cluster (Ray's own lookup is fast).
"""

from __future__ import annotations

import json
import os
import socket
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from mafia_arena.experiments.errors import ServiceError
from mafia_arena.output_folders import unusable_folder
from mafia_arena.tracking.uri import sqlite_path
from mafia_arena.whole_numbers import read_whole_number

TIMEOUT_S = 5.0
MLFLOW_PROBE = "/api/2.0/mlflow/experiments/search"


def _timeout(timeout_s: float | None) -> float:
    return TIMEOUT_S if timeout_s is None else timeout_s


def check_tracking(uri: str, timeout_s: float | None = None, origin: str = "") -> None:
    """Raise `ServiceError` unless the MLflow tracking store at `uri` can be used.

    `origin` says where the URI came from (`tracking.uri.tracking_uri_origin`: the
    option, the spec key or the environment variable); every message starts with it, so
    it names what to fix. Default: ``--tracking-uri URI``."""
    where = origin or f"--tracking-uri {uri}"
    if uri.startswith(("http://", "https://")):
        _check_mlflow_server(uri, _timeout(timeout_s), where)
        return
    db = sqlite_path(uri)
    if db is None:
        _check_other_store(uri, where)
        return
    folder = db.parent
    existing = next((p for p in [folder, *folder.parents] if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ServiceError(
            f"{where}: MLflow cannot write to {existing or folder}; "
            f"pass another --tracking-uri, or {_NO_TRACKING}. Nothing was written."
        )
    if db.exists() and not os.access(db, os.R_OK | os.W_OK):
        raise ServiceError(
            f"{where}: {db} is not readable and writable; pass "
            "another --tracking-uri, or --no-tracking. Nothing was written."
        )
    problem = _not_a_database(db)
    if problem is not None:
        raise ServiceError(
            f"{where}: {db} {problem}; pass another --tracking-uri, or {_NO_TRACKING}. "
            "Nothing was written."
        )


SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file starts."""


def _not_a_database(db: Path) -> str | None:
    """Why `db`, which is there, cannot be opened as an SQLite database (a folder, a
    device, a file of something else); None when it can, or is missing or empty (SQLite
    makes a database of it).

    Why: MLflow opens the database only once the results folder is set up and its
    manifest written, and then fails with a page of SQLAlchemy traceback ("unable to
    open database file", "file is not a database")."""
    if not db.exists():
        return None
    if not db.is_file():
        return "is a folder, not a database file" if db.is_dir() else "is not a regular file"
    with db.open("rb") as handle:
        head = handle.read(len(SQLITE_HEADER))
    if head and head != SQLITE_HEADER:
        return "is not an SQLite database (it does not start with SQLite's header)"
    return None


_NO_TRACKING = "--no-tracking to play without MLflow"


def _check_other_store(uri: str, where: str) -> None:
    """Build MLflow's own client for `uri`, which builds its tracking store: an unknown
    scheme, or a plain folder (the file store MLflow 3 refuses), fails here, before
    anything is written, instead of after the results folder was set up."""
    from mlflow import MlflowClient

    try:
        MlflowClient(tracking_uri=uri)
    except Exception as exc:
        raise ServiceError(
            f"{where}: MLflow cannot open this tracking store ({_store_problem(uri, exc)}); "
            f"give an http(s):// server or a database such as sqlite:///mlflow.db, or pass "
            f"{_NO_TRACKING}. Nothing was written."
        ) from None


def _store_problem(uri: str, error: Exception) -> str:
    """MLflow's refusal of `uri` in a few words (its own messages run to a page)."""
    text = " ".join(str(error).split())
    scheme = urllib.parse.urlsplit(uri).scheme
    if "maintenance mode" in text:
        return (
            'a folder is MLflow\'s file store, which MLflow 3 no longer opens: "maintenance mode"'
        )
    if "unsupported URI" in text:
        return f"MLflow knows no tracking store for the scheme {scheme}:"
    return f"{type(error).__name__}: {text[:300]}"


def _check_mlflow_server(uri: str, timeout_s: float, where: str) -> None:
    """One GET of MLflow's experiment search, no retries (see the module docstring)."""
    from mlflow.utils.credentials import get_default_host_creds
    from mlflow.utils.rest_utils import http_request

    advice = f"pass another --tracking-uri, or {_NO_TRACKING}"
    url = urllib.parse.urlsplit(uri)
    try:  # a refused connection says more than the HTTP client's wrapped error
        port = url.port or (443 if url.scheme == "https" else 80)
        if not _through_proxy(url):
            with socket.create_connection((url.hostname or "", port), timeout=timeout_s):
                pass
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ServiceError(
            f"{where}: the MLflow tracking server is not reachable ({reason}, waited at "
            f"most {timeout_s:.0f} s); start it, or {advice}. Nothing was written."
        ) from None
    try:
        response = http_request(
            get_default_host_creds(uri),
            MLFLOW_PROBE,
            "GET",
            max_retries=0,
            backoff_factor=0,
            timeout=timeout_s,
            raise_on_status=False,
            params={"max_results": 1},
        )
    except Exception as exc:
        reason = " ".join(str(getattr(exc, "message", None) or exc).split())[:300]
        raise ServiceError(
            f"{where}: the MLflow tracking server accepts connections but does not answer "
            f"({reason or type(exc).__name__}, waited at most {timeout_s:.0f} s); check the "
            f"address, or {advice}. Nothing was written."
        ) from None
    status = response.status_code
    if status in (401, 403):
        raise ServiceError(
            f"{where}: the MLflow tracking server refused the request (HTTP {status}); set "
            "MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD or MLFLOW_TRACKING_TOKEN, "
            f"or {advice}. Nothing was written."
        )
    if status != 200 or not isinstance(_json(response.text), dict):
        kind = response.headers.get("Content-Type", "no content type").split(";")[0]
        raise ServiceError(
            f"{where}: answers but is not an MLflow tracking server (GET {MLFLOW_PROBE} "
            f"gave HTTP {status}, {kind}, not MLflow's JSON); check the address, or {advice}. "
            "Nothing was written."
        )


def _through_proxy(url: urllib.parse.SplitResult) -> bool:
    """Whether requests to `url` go through an HTTP proxy (then only the proxy is
    reachable directly, and the HTTP request alone decides)."""
    proxies = urllib.request.getproxies()
    return url.scheme in proxies and not urllib.request.proxy_bypass(url.hostname or "")


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def check_ray_address(address: str, timeout_s: float | None = None) -> None:
    """Raise `ServiceError` unless a Ray cluster answers at `address`."""
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
    client = address.startswith("ray://")
    target = address[len("ray://") :] if client else address
    host, _, port = target.rpartition(":")
    number = read_whole_number(port)
    if not host or number is None:
        raise ServiceError(f"--address {address!r}: expected host:port, ray://host:port or auto")
    wait = _timeout(timeout_s)
    try:
        with socket.create_connection((host.strip("[]"), number), timeout=wait):
            pass
    except OSError as exc:
        raise ServiceError(
            f"Ray cluster {address} is not reachable ({exc.strerror or exc}, waited at most "
            f"{wait:.0f} s); check the address, or leave --address out to start a "
            "private local cluster. Nothing was written."
        ) from None
    problem = _ray_client_problem(target, wait) if client else _gcs_problem(target, wait)
    if problem is not None:
        what = "a Ray Client server" if client else "a Ray cluster's GCS"
        raise ServiceError(
            f"{address} accepts connections but is not {what} ({problem}, waited at most "
            f"{wait:.0f} s); pass the head node's GCS address (host:port, port 6379 by "
            "default) or ray://host:10001, or leave --address out to start a private "
            "local cluster. Nothing was written."
        )


def _channel(target: str) -> Any:
    """A gRPC channel made the way Ray makes its own (TLS, token auth), else a plain one."""
    import grpc

    try:
        from ray._private.grpc_utils import init_grpc_channel
    except ImportError:  # another Ray layout: a plain channel still tells Ray from not-Ray
        return grpc.insecure_channel(target)
    return init_grpc_channel(target)


def _gcs_problem(target: str, timeout_s: float) -> str | None:
    """None if a Ray GCS at `target` answers ``GetClusterId``, else what went wrong."""
    import grpc

    try:
        from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc
    except ImportError:
        return _ray_client_problem(target, timeout_s)  # at least a gRPC server
    channel = _channel(target)
    try:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        request = gcs_service_pb2.GetClusterIdRequest()  # type: ignore[attr-defined]
        stub.GetClusterId(request, timeout=timeout_s)
    except grpc.RpcError as exc:
        code = exc.code() if hasattr(exc, "code") else None
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return "a gRPC server answers, but not Ray's GCS"
        name = code.name if code is not None else "no answer"
        detail = exc.details() if hasattr(exc, "details") else ""
        return f"gRPC {name}: {' '.join(str(detail or '').split())[:200]}".rstrip(": ")
    finally:
        channel.close()
    return None


def _ray_client_problem(target: str, timeout_s: float) -> str | None:
    """None if a gRPC server at `target` completes the handshake, else what went wrong."""
    import grpc

    channel = _channel(target)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout_s)
    except grpc.FutureTimeoutError:
        return "no gRPC handshake"
    finally:
        channel.close()
    return None


def writable_results(folder: Path, origin: str = "--results") -> None:
    """Raise `ServiceError` if the results folder cannot be created or written, in the
    words of every output folder's refusal (`output_folders.unusable_folder`: the
    folder, the reason, then `origin`, what chose it: ``--results`` or the spec's
    ``results`` key)."""
    problem = unusable_folder(folder, origin)
    if problem is not None:
        raise ServiceError(f"{problem}; pass another --results folder")
