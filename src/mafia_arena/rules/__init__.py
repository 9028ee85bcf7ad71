"""Variant rule sets: load and validate `envs/*.toml` into typed objects.

Imports nothing else of ours; the engine consumes what this package produces.
"""

from mafia_arena.rules.errors import VariantError
from mafia_arena.rules.loader import (
    available_variants,
    custom_file,
    load_variant,
    rules_content,
    rules_digest,
    variant_path,
)
from mafia_arena.rules.spec import (
    DayStep,
    FactionSpec,
    NightStep,
    RoleSpec,
    Variant,
    WinRule,
)
from mafia_arena.rules.table import load_table

__all__ = [
    "DayStep",
    "FactionSpec",
    "NightStep",
    "RoleSpec",
    "Variant",
    "VariantError",
    "WinRule",
    "available_variants",
    "custom_file",
    "load_table",
    "load_variant",
    "rules_content",
    "rules_digest",
    "variant_path",
]
