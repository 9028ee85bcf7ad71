"""The one place that decides where MLflow data goes.

`resolve_tracking_uri` picks, in order: an explicit URI (the `run_tournament` argument
or the spec's ``tracking_uri``), the ``MLFLOW_TRACKING_URI`` environment variable, and
the default ``sqlite:///mlflow.db``: a local SQLite file in the working folder (the
file store is deprecated in MLflow 3). A relative SQLite path is made absolute against
the working folder now, so the run does not depend on where MLflow later resolves it.

`artifact_location` keeps a local store's artifacts next to its database, in
``<db folder>/mlruns`` (MLflow's usual local artifact folder, ignored by git), rather than
under whatever folder the process happens to run in; for a server URI the server
decides (None).

`tracking_uri_origin` says where the chosen URI came from, in the user's words (the
option, the spec key or the environment variable), so an error about it names the thing
to fix rather than only the URI.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_TRACKING_URI = "sqlite:///mlflow.db"
_SQLITE = "sqlite:///"


def resolve_tracking_uri(explicit: str | None = None) -> str:
    uri = explicit or os.environ.get("MLFLOW_TRACKING_URI") or DEFAULT_TRACKING_URI
    if uri.startswith(_SQLITE):
        path = uri[len(_SQLITE) :]
        if path and not path.startswith("/") and path != ":memory:":
            uri = _SQLITE + str((Path.cwd() / path).resolve())
    return uri


def tracking_uri_origin(
    argument: str | None, spec_value: str | None = None, spec_source: str = "the spec"
) -> str:
    """Where `resolve_tracking_uri(argument or spec_value)` takes its URI from, with the
    value as written: ``--tracking-uri URI``, ``SPEC: tracking_uri "URI"``,
    ``MLFLOW_TRACKING_URI=URI (environment variable)`` or the default."""
    if argument:
        return f"--tracking-uri {argument}"
    if spec_value:
        return f'{spec_source}: tracking_uri "{spec_value}"'
    env = os.environ.get("MLFLOW_TRACKING_URI")
    if env:
        return f"MLFLOW_TRACKING_URI={env} (environment variable)"
    return f"{DEFAULT_TRACKING_URI} (the default tracking URI)"


def sqlite_path(uri: str) -> Path | None:
    """The database file of a local SQLite URI, else None."""
    if uri.startswith(_SQLITE) and uri[len(_SQLITE) :] not in ("", ":memory:"):
        return Path(uri[len(_SQLITE) :])
    return None


def artifact_location(uri: str) -> str | None:
    """Where a new experiment's artifacts go (see the module docstring)."""
    db = sqlite_path(uri)
    if db is None:
        return None
    return str(db.parent / "mlruns")
