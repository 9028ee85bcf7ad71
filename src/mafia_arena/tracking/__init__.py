"""MLflow tracking of tournaments; only the driver process uses it.

`resolve_tracking_uri` is the one place the tracking URI is decided;
`TournamentTracker` logs the experiment / parent run / child runs of a tournament.
"""

from mafia_arena.tracking.uri import DEFAULT_TRACKING_URI, resolve_tracking_uri


def __getattr__(name: str):  # MLflow is imported only when a tracker is wanted
    if name == "TournamentTracker":
        from mafia_arena.tracking.mlflow_runs import TournamentTracker

        return TournamentTracker
    raise AttributeError(name)


__all__ = ["DEFAULT_TRACKING_URI", "TournamentTracker", "resolve_tracking_uri"]
