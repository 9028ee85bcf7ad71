"""Any LangChain chat model, named in an agent file as ``"package.module:ClassName"``.

Contract
--------
* `import_chat_model(ref)` imports the class a ``chat_model`` key names and returns it;
  it raises ``ValueError`` with the reason (bad form, module or class not found, not a
  ``BaseChatModel`` subclass) for the agent-file loader to report with file and key.
* `chat_model_arguments(definition, cls, ...)` is the one place that decides what the
  class is built with: of the agent file's own keys, only those the class declares as
  fields (``model``, ``temperature``, ``top_p``, ``max_tokens``, ``seed``, ``timeout``,
  ``max_retries`` = 0 so the client's retry policy alone applies, ``api_key``, a non-local
  ``base_url``),  with a placeholder ``api_key`` when the file names no key variable (as
  for the other backends: a class must not pick up ``OPENAI_API_KEY`` or the like from
  the environment by itself), with the reasoning-model rules of
  :meth:`AgentDefinition.request_parameters`; then every entry of ``chat_model_kwargs``,
  which wins. A kwarg the class does not declare is an error (many chat models ignore
  unknown fields, and a silently ignored typo would skew a rating).
* `build_chat_model(definition, ...)` builds the instance; `check_chat_model` does so
  once at load time, so bad kwargs fail when the file is read, not mid-game.

Why a class reference rather than a provider registry: it reaches every integration
package (Anthropic, Bedrock, Ollama, a custom model) without this package knowing any.
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .definition import AgentDefinition

__all__ = ["build_chat_model", "chat_model_arguments", "check_chat_model", "import_chat_model"]

_REF = re.compile(r"^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*$")

#: Agent-file settings handed to a chat model class that declares one of these fields.
_SETTINGS = {
    "model": ("model", "model_name"),
    "temperature": ("temperature",),
    "top_p": ("top_p",),
    "max_tokens": ("max_tokens", "max_completion_tokens"),
    "seed": ("seed",),
    "timeout": ("timeout", "request_timeout"),
    "max_retries": ("max_retries",),
    "api_key": ("api_key",),
    "base_url": ("base_url",),
}


def import_chat_model(ref: str) -> type[BaseChatModel]:
    """The ``BaseChatModel`` subclass ``ref`` (``"package.module:ClassName"``) names."""
    from langchain_core.language_models import BaseChatModel

    if not _REF.match(ref):
        raise ValueError(f'must be "package.module:ClassName", got {ref!r}')
    module_name, class_name = ref.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {module_name!r}: {exc}") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"module {module_name!r} has no {class_name!r}")
    if not (isinstance(cls, type) and issubclass(cls, BaseChatModel)):
        raise ValueError(f"{ref} is not a LangChain chat model (a BaseChatModel subclass)")
    return cls


def _declared(cls: type[BaseChatModel]) -> set[str]:
    """Every field name and alias the class accepts as a constructor argument."""
    names: set[str] = set()
    for name, info in cls.model_fields.items():
        names.add(name)
        if info.alias:
            names.add(info.alias)
    return names


def chat_model_arguments(
    definition: AgentDefinition, cls: type[BaseChatModel], *, api_key: str | None
) -> dict[str, Any]:
    """Constructor arguments for ``cls`` (see the module doc for which and why)."""
    from .transport import NO_API_KEY

    declared = _declared(cls)
    unknown = sorted(set(definition.chat_model_kwargs) - declared)
    if unknown:
        raise ValueError(
            f"{cls.__name__} has no field {', '.join(map(repr, unknown))}; "
            f"it takes: {', '.join(sorted(n for n in declared if not n.startswith('_')))}"
        )
    params = definition.request_parameters()
    settings: dict[str, Any] = {
        "model": definition.model,
        "temperature": params.get("temperature"),
        "top_p": params.get("top_p"),
        "max_tokens": params.get("max_tokens", params.get("max_completion_tokens")),
        "seed": definition.seed,
        "timeout": definition.timeout_s,
        "max_retries": 0,
        "api_key": api_key or NO_API_KEY,
        "base_url": None if definition.is_local else definition.base_url,
    }
    arguments: dict[str, Any] = {}
    for setting, value in settings.items():
        if value is None:
            continue
        field = next((f for f in _SETTINGS[setting] if f in declared), None)
        if field is not None:
            arguments[field] = value
    given = set(definition.chat_model_kwargs)
    for fields in _SETTINGS.values():  # a kwarg replaces the setting it names
        if given & set(fields):
            for field in fields:
                arguments.pop(field, None)
    arguments.update(definition.chat_model_kwargs)
    return arguments


def build_chat_model(definition: AgentDefinition, *, api_key: str | None) -> BaseChatModel:
    """An instance of the agent file's ``chat_model`` class."""
    assert definition.chat_model is not None
    cls = import_chat_model(definition.chat_model)
    return cls(**chat_model_arguments(definition, cls, api_key=api_key))


def check_chat_model(definition: AgentDefinition) -> None:
    """Build the chat model once (with the placeholder key), so that a bad
    ``chat_model_kwargs`` is a load-time error; raises ``ValueError`` with the reason."""
    from pydantic import ValidationError

    try:
        build_chat_model(definition, api_key=None)
    except ValidationError as exc:
        reasons = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '<model>'}: {e['msg']}" for e in exc.errors()
        )
        raise ValueError(f"{definition.chat_model} rejects these arguments: {reasons}") from None
    except Exception as exc:  # whatever the class raises: the file is what is wrong
        raise ValueError(f"{definition.chat_model} cannot be built: {exc}") from None
