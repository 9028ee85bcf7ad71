"""Numbers in a variant file: true/false is never a number, and a role count is a
whole number that is not negative, ``"rest"`` or a formula over `n`.

Why: pydantic's lax mode reads ``true`` as 1 for an integer field, so ``--set
mafia=true`` dealt one mafioso and ``--set day.2.params.nominees=true`` reported a
bound instead of the wrong type. Both model bases (`spec._Spec`, `params._Params`) run
`refuse_bool_numbers` on every field, and composition rows hold `Count` values.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BeforeValidator, ValidationInfo


def _takes(annotation: Any) -> set[type]:
    """The plain scalar types a field of this annotation takes (unions flattened)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _takes(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return {kind for arg in get_args(annotation) for kind in _takes(arg)}
    return {annotation} if isinstance(annotation, type) else set()


def refuse_bool_numbers(cls: Any, value: Any, info: ValidationInfo) -> Any:
    """A ``before`` validator for every field: true/false where a number is expected is
    an error naming the type, not the number 1 or 0."""
    if not isinstance(value, bool) or info.field_name is None:
        return value
    field = cls.model_fields.get(info.field_name)
    kinds = _takes(field.annotation) if field is not None else set()
    if bool in kinds or not kinds & {int, float}:
        return value
    wanted = "an integer" if float not in kinds else "a number"
    raise ValueError(f"not {wanted}: got {str(value).lower()}")


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
