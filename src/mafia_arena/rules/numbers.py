"""Numbers and switches in a variant file: each key takes its own TOML type, and a role
count is a whole number that is not negative, ``"rest"`` or a formula over `n`.

Why: pydantic's lax mode converts what a file wrote into the type a key wants, so the
file's mistake plays as a game nobody wrote. It read ``true`` as 1 for an integer field
(``--set mafia=true`` dealt one mafioso, ``--set day.2.params.nominees=true`` reported a
bound instead of the wrong type), the text ``"5"`` as 5 (``min_players = "5"``), 5.0 as
5, and 1, 0, ``"yes"`` or ``"true"`` as true/false (``abstain = 1``, ``--set
abstain=yes``). The model bases (`spec._Spec`, `params._Params`, `palermo._Spec`) run
`refuse_loose_scalars` on every field, and composition rows hold `Count` values.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BeforeValidator, ValidationInfo

from mafia_arena.toml_file import wrong_type


def _takes(annotation: Any) -> set[type]:
    """The plain scalar types a field of this annotation takes (unions flattened)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _takes(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return {kind for arg in get_args(annotation) for kind in _takes(arg)}
    return {annotation} if isinstance(annotation, type) else set()


def refuse_loose_scalars(cls: Any, value: Any, info: ValidationInfo) -> Any:
    """A ``before`` validator for every field: a true/false, number or text of another
    TOML type than the field takes is an error naming the type wanted and what the file
    wrote (``not an integer: got "5"``, ``not true or false: got 1``), never converted.

    An integer is a number, so a field of floats takes one; a field that takes text as
    well (a `Count`, which reads formulas) and fields of other kinds (choices of words,
    lists, tables) are left to their own validation."""
    if info.field_name is None:
        return value
    field = cls.model_fields.get(info.field_name)
    kinds = _takes(field.annotation) if field is not None else set()
    if not kinds & {bool, int, float}:
        return value
    if not isinstance(value, int | float | str):  # a list or table: the field's to judge
        return value
    written: type = type(value)  # as TOML reads them: bool, int, float or str exactly
    if written in kinds or (written is int and float in kinds):
        return value
    if written is float and str in kinds:  # a count: `_count` judges 5.0 and 2.5 itself
        return value
    if int in kinds:
        wanted = "an integer" if float not in kinds else "a number"
    else:
        wanted = "a number" if float in kinds else "true or false"
    raise ValueError(wrong_type(wanted, value))


def _count(value: Any) -> Any:
    """A role count as the file wrote it, or a `ValueError` saying why it is none."""
    if isinstance(value, bool):
        raise ValueError(f"a count is a number or a formula, not {str(value).lower()}")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"a count must be a whole number or a formula, got {value:g}")
        value = int(value)
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"a count cannot be negative, got {value}")
        return value
    if isinstance(value, str):
        return value
    raise ValueError(f"a count must be a number or a formula, got {value!r}")


Count = Annotated[int | str, BeforeValidator(_count)]
"""A role count in a composition row: see the module docstring."""
