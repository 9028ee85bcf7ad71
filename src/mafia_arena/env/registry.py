"""Versioned public names: ``mafia_<variant>_v0`` for every variant file in `envs/`.

Each name is a small module-like object with the PettingZoo entry points bound to its
variant (``mafia_classic_v0.env(players=10)``), created on first access, so a variant
file added later (club) gets its name without code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from pettingzoo import AECEnv, ParallelEnv

from mafia_arena.env.spaces import ENV_VERSION
from mafia_arena.rules import available_variants

NAME = re.compile(rf"^mafia_(?P<variant>[a-z0-9_]+)_v{ENV_VERSION}$")


class VariantEnvs:
    """``env``, ``raw_env``, ``parallel_env`` and ``raw_parallel_env`` of one variant
    (declared here so a user's type checker knows them; bound in `__init__`)."""

    env: Callable[..., AECEnv[Any, Any, Any]]
    raw_env: Callable[..., AECEnv[Any, Any, Any]]
    parallel_env: Callable[..., ParallelEnv[Any, Any, Any]]
    raw_parallel_env: Callable[..., ParallelEnv[Any, Any, Any]]

    def __init__(self, variant: str, factories: dict[str, Callable[..., Any]]) -> None:
        self.variant = variant
        self.__name__ = f"mafia_{variant}_v{ENV_VERSION}"
        for name, factory in factories.items():
            setattr(self, name, partial(factory, variant))

    def __repr__(self) -> str:
        return f"<mafia_arena.env.{self.__name__}>"


def env_names() -> list[str]:
    """The public names of the bundled variants (``mafia_simple_v0``, …)."""
    return [f"mafia_{v}_v{ENV_VERSION}" for v in available_variants()]


def lookup(name: str, factories: dict[str, Callable[..., Any]]) -> VariantEnvs | None:
    """The `VariantEnvs` for a public name, or None if it names no bundled variant."""
    match = NAME.match(name)
    if match is None or match["variant"] not in available_variants():
        return None
    return VariantEnvs(match["variant"], factories)
