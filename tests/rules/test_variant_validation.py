"""A broken variant file fails with a message naming the file, the key and the reason."""

import tomllib
from pathlib import Path

import pytest

from mafia_arena.rules import VariantError, available_variants, load_variant
from mafia_arena.rules.composition import deck_counts
from mafia_arena.rules.loader import build_variant, variant_path


def document(name: str) -> dict:
    return tomllib.loads(variant_path(name).read_text())


def test_every_bundled_variant_loads():
    assert {"simple", "standard", "classic"} <= set(available_variants())
    for name in available_variants():
        variant = load_variant(name)
        deck_counts(variant, max(variant.min_players, 8))


def test_unknown_role_in_a_role_table_names_the_key():
    doc = document("classic")
    doc["composition"]["table"]["7"]["sheriff"] = 1
    with pytest.raises(VariantError) as err:
        build_variant(doc, "classic.toml", {})
    assert err.value.source == "classic.toml"
    assert err.value.key == "composition.table.7.sheriff"
    assert "unknown role" in err.value.reason


def test_role_table_that_does_not_add_up_is_rejected():
    doc = document("classic")
    doc["composition"]["table"]["8"]["citizen"] = 6
    with pytest.raises(
        VariantError,
        match=r"classic.toml: composition.table.8: role counts "
        r"add up to 9, not 8 players",
    ):
        build_variant(doc, "classic.toml", {})


def test_unknown_voting_procedure_is_rejected():
    doc = document("standard")
    doc["day"][-1]["procedure"] = "coin_flip"
    with pytest.raises(
        VariantError,
        match=r"day.2.procedure: unknown voting procedure "
        r"'coin_flip'",
    ):
        build_variant(doc, "standard.toml", {})


def test_wrong_type_names_the_key():
    doc = document("simple")
    doc["min_players"] = "three"
    with pytest.raises(VariantError) as err:
        build_variant(doc, "simple.toml", {})
    assert err.value.key == "min_players"


def test_unknown_night_action_is_rejected():
    doc = document("simple")
    doc["night"][0]["action"] = "teleport"
    with pytest.raises(VariantError, match=r"night\.0\.action: unknown action 'teleport'"):
        build_variant(doc, "simple.toml", {})


def test_unknown_switch_lists_the_known_ones():
    with pytest.raises(VariantError, match=r"unknown switch; known: .*mafia"):
        load_variant("simple", {"mafias": 2})


def test_invalid_toml_names_the_file(tmp_path: Path):
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n")
    with pytest.raises(VariantError, match=r"broken\.toml: -: not valid TOML"):
        load_variant(broken)


def test_counts_outside_bounds_are_rejected():
    with pytest.raises(VariantError, match="outside the bounds"):
        deck_counts(load_variant("classic", {"mafia": 2}), 24)


def test_expressions_cannot_execute_code():
    with pytest.raises(VariantError, match="unsupported syntax"):
        deck_counts(load_variant("simple", {"mafia": "__import__('os').getpid()"}), 7)


def test_dotted_override_reaches_nested_keys():
    variant = load_variant("standard", {"rules.max_rounds": 3})
    assert variant.rules.max_rounds == 3
