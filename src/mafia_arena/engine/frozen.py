"""Fast construction of the engine's frozen, slotted dataclasses.

A frozen dataclass's generated `__init__` sets every field through
`object.__setattr__(self, name, value)`, which looks the name up again for every field
of every instance. The engine builds an `Event` for every change and a `Request` for
every decision, so `Event` and `Request` write their own `__init__` that stores each
field through its slot descriptor, fetched once here: about a third cheaper, and the
instances are exactly what the generated `__init__` would have made (still frozen,
same fields, equality, hashing, repr and pickling). Every fact of the event catalogue
gets such an `__init__` generated from its fields (`fast_init`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

Setter = Callable[[Any, Any], None]


def slot_setters(cls: type) -> tuple[Setter, ...]:
    """The `__set__` of each field's slot of dataclass `cls`, in field order."""
    return tuple(vars(cls)[f.name].__set__ for f in fields(cls))


def fast_init(cls: type) -> type:
    """Give the frozen, slotted dataclass `cls` an `__init__` that stores each field
    through its slot (see the module docstring), with the generated one's signature:
    the same parameters in the same order, the same defaults (a `default_factory` is
    called per instance, as there). For classes without `__post_init__`.

    Why generated: a generic ``*args`` loop would cost more than the frozen
    `__setattr__` calls it replaces. The engine builds one of these facts for every
    change of a game and two for every decision.
    """
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__; fast_init does not call it")
    names: dict[str, Any] = {"_MISSING": MISSING}
    params, body = ["self"], []
    for i, (f, setter) in enumerate(zip(fields(cls), slot_setters(cls), strict=True)):
        names[f"_set{i}"] = setter
        if f.default is not MISSING:
            names[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        elif f.default_factory is not MISSING:
            names[f"_factory{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    if {f.name} is _MISSING: {f.name} = _factory{i}()")
        else:
            params.append(f.name)
        body.append(f"    _set{i}(self, {f.name})")
    source = f"def __init__({', '.join(params)}):\n" + "\n".join(body or ["    pass"])
    exec(source, names)  # our own field names, as dataclasses does
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = vars(cls)["__init__"].__doc__
    setattr(cls, "__init__", init)  # noqa: B010  # (mypy refuses assigning a method)
    return cls
