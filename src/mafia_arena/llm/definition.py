"""Agent definitions: one TOML file in ``agents/`` describes one LLM player.

Contract
--------
* ``load_agent_definition(path)`` reads a TOML file and returns a frozen, validated
  :class:`AgentDefinition`. Any problem raises :class:`AgentDefinitionError` whose message
  is ``FILE: KEY: REASON`` (key ``-``: the file as a whole), as every reader of a user's
  file words it (`mafia_arena.toml_file`), so a typo in a tournament's agent list is
  fixed in seconds rather than discovered mid-run. A file that is no agent file at all
  (empty, not TOML, not text, a folder, a variant file or spec, the settings inside an
  ``[agent]`` table) is refused in one line that says so, rather than with a line for
  every key it lacks.
* Unknown keys are errors (``extra="forbid"``): a misspelt ``temprature`` must not silently
  fall back to a default and skew a rating.
* Values are strict (``strict=True``): each key takes exactly its TOML type, and a
  number is finite (TOML's ``nan`` and ``inf`` are refused). ``true`` is
  not the number 1, ``"yes"`` or ``1`` is not ``true``, ``"5"`` is not 5 and ``96.0`` is
  not the integer 96 (an integer is a number, so ``temperature = 1`` is fine).
  ``reasoning_effort`` takes the values the OpenAI API names (:data:`ReasoningEffort`).
* ``prompt_template`` must exist in the agent file's ``prompts/`` folder when the file is
  read, so a misspelt template name is a load error rather than a failure when the
  tournament builds the player.
* The API key itself is never part of the definition. Only the *name* of the environment
  variable holding it (``api_key_env``) is stored; :meth:`AgentDefinition.api_key` reads
  the variable at call time and returns a :class:`pydantic.SecretStr`, whose ``repr`` and
  ``str`` are masked. So a definition can be logged, dumped into a results file or put in
  an exception message without leaking a secret. An unset variable is an
  :class:`AgentDefinitionError` naming the agent file (when the definition was read
  from one) and the key ``api_key_env``.
* ``base_url = "local"`` means "the SmolLM2 server embedded in this package" (see
  :mod:`mafia_arena.llm.local_server`); anything else is the base URL of an
  OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, a llama.cpp server, ...).

* ``backend = "langchain"`` with ``chat_model = "package.module:ClassName"`` names any
  LangChain chat model; the class is imported when the file is read and built once with
  ``chat_model_kwargs`` (see :mod:`mafia_arena.llm.chat_models`), so a class that cannot
  be imported, is not a ``BaseChatModel`` or rejects its arguments is a load error.

* Reasoning models: ``reasoning_model`` (default: recognised by name, OpenAI's o-series
  and GPT-5) switches the request to those models' parameter rules: no ``temperature``
  or ``top_p`` and ``max_completion_tokens`` instead of ``max_tokens``.
  :meth:`AgentDefinition.request_parameters` is the one place that decides what is sent;
  ``extra_body`` (any JSON table) is merged into the request body last.

Why TOML and one file per agent: agents are data, not code. A leaderboard entry is then
reproducible from a single small file that can be diffed and reviewed.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from mafia_arena.toml_file import (
    TomlFileError,
    file_kind,
    joined_problems,
    parse_toml,
    read_toml_text,
    refusal,
    toml_spelling,
    validation_problems,
)

__all__ = [
    "LOCAL_BASE_URL",
    "AgentDefinition",
    "AgentDefinitionError",
    "ReasoningEffort",
    "load_agent_definition",
    "load_agent_definitions",
]

LLM_KIND = "llm"
"""The ``kind`` of an LLM player's agent file; a file that declares none is one."""

#: Special ``base_url`` value selecting the embedded SmolLM2 server.
LOCAL_BASE_URL = "local"

#: Model names that follow OpenAI's reasoning-model parameter rules.
_REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(?:o\d+(?:-[\w.-]+)?|gpt-5[\w.-]*)$", re.IGNORECASE)

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: The ``reasoning_effort`` values of the OpenAI API, as the ``openai`` package types them
#: (``openai.types.shared.ReasoningEffort``); a test keeps the two lists equal.
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]


class AgentDefinitionError(ValueError):
    """An agent file could not be read or is invalid. The message is ``FILE: KEY:
    REASON``, as a spec's (`experiments.errors.SpecError`) and a variant file's; key
    ``-`` is the file as a whole. Where several keys are wrong, each further one follows
    on a line of its own, in the same form."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")


class AgentDefinition(BaseModel):
    """Everything needed to talk to one LLM player's endpoint, and how to account for it."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
        strict=True,
        # TOML's nan and inf are floats: a price of inf made every cost inf (a leaderboard
        # of inf dollars) and a timeout of inf waited forever; no setting means either
        allow_inf_nan=False,
    )

    name: str = Field(min_length=1, description="Unique agent name shown on leaderboards.")
    backend: Literal["openai", "langchain"] = Field(
        default="openai",
        description='"openai": any OpenAI-compatible endpoint via the openai package; '
        '"langchain": a LangChain chat model (ChatOpenAI built from these settings, or '
        "the class chat_model names).",
    )
    chat_model: str | None = Field(
        default=None,
        description='With backend "langchain": the chat model class, as '
        '"package.module:ClassName" (a BaseChatModel subclass, imported at load).',
    )
    chat_model_kwargs: dict[str, Any] = Field(
        default_factory=dict,
        description="Constructor arguments of the chat_model class, beside the settings "
        "of this file it declares (model, temperature, ...), which these replace.",
    )
    base_url: str = Field(
        default=LOCAL_BASE_URL,
        description='Endpoint base URL (e.g. "https://api.openai.com/v1") or "local".',
    )
    model: str = Field(min_length=1, description="Model name sent to the endpoint.")
    api_key_env: str | None = Field(
        default=None,
        description="Name of the environment variable that holds the API key (never the key).",
    )
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=256, ge=1, description="Completion tokens per request.")
    max_completion_tokens: int | None = Field(
        default=None,
        ge=1,
        description="Sent as max_completion_tokens instead of max_tokens (reasoning "
        "models count their thinking in it); default for reasoning models: 8 x max_tokens.",
    )
    reasoning_model: bool | None = Field(
        default=None,
        description="Follow the reasoning-model parameter rules (no temperature/top_p, "
        "max_completion_tokens); None = by model name (o1, o3, o4-mini, gpt-5, ...).",
    )
    reasoning_effort: ReasoningEffort | None = Field(
        default=None,
        description='Sent as reasoning_effort ("none", "minimal", "low", "medium", "high", '
        '"xhigh", "max").',
    )
    extra_body: dict[str, Any] = Field(
        default_factory=dict, description="Extra request-body fields, merged in last."
    )
    seed: int | None = Field(default=None, description="Sampling seed, where supported.")
    prompt_template: str | None = Field(
        default=None,
        description="Prompt template path relative to agents/prompts/; None = game default.",
    )
    persona: str = Field(default="", description="Free text describing the player's style.")
    price_per_input_token: float = Field(default=0.0, ge=0.0, description="USD per token.")
    price_per_output_token: float = Field(default=0.0, ge=0.0, description="USD per token.")
    timeout_s: float = Field(default=60.0, gt=0.0, description="Per-request timeout.")
    max_retries: int = Field(
        default=3, ge=0, description="Retries of one request on timeout, connection, 429, 5xx."
    )
    retry_backoff_s: float = Field(
        default=0.5, ge=0.0, description="Base of the exponential backoff between retries."
    )
    retry_backoff_max_s: float = Field(default=8.0, ge=0.0, description="Backoff cap.")
    max_reasks: int = Field(
        default=2, ge=0, description="Corrective re-asks after an answer that is not legal."
    )
    max_concurrency: int = Field(
        default=4, ge=1, description="Requests in flight per endpoint (base_url) per process."
    )
    structured_output: bool = Field(
        default=True, description="Ask the endpoint for JSON-schema constrained answers."
    )
    structured_output_format: Literal["auto", "json_schema", "json_object"] = Field(
        default="auto",
        description='How to ask for a schema: "json_schema" (OpenAI, vLLM, Ollama), '
        '"json_object" (llama-cpp-python server: {"type":"json_object","schema":...}); '
        '"auto" = json_object for base_url "local", json_schema otherwise.',
    )
    state_beliefs: bool = Field(
        default=False, description="Ask the agent to state its beliefs about other players."
    )
    max_prompt_chars: int = Field(
        default=14_000,
        ge=1_000,
        description="Budget of the game record in a prompt (~4 characters a token); old "
        "public talk is dropped first, the seat's own results never.",
    )
    breaker_failures: int = Field(
        default=5,
        ge=1,
        description="Consecutive failed requests to an endpoint that open its circuit breaker.",
    )
    breaker_cooldown_s: float = Field(
        default=30.0, ge=0.0, description="How long an open breaker refuses requests."
    )
    game_failure_budget_s: float = Field(
        default=300.0,
        ge=0.0,
        description="Seconds a seat may spend per game in calls that end in infrastructure "
        "failures; after that its decisions fall back at once (budget_spent).",
    )
    trace_prompts: Literal["hash", "full"] = Field(
        default="hash",
        description='Decision traces keep the prompt\'s hash and the question ("hash") '
        'or every message in full ("full").',
    )
    shuffle_options: bool = Field(
        default=False,
        description="Show a choice's options in an order shuffled per game and seat "
        "(against position bias); the order shown is in the trace.",
    )

    #: The agent file this definition was read from (None when built in code), named by
    #: errors found after loading. Not a setting: left out of dumps and of the hash.
    _source: Path | None = PrivateAttr(default=None)

    # ------------------------------------------------------------------ validators

    @field_validator("base_url")
    @classmethod
    def _check_base_url(cls, value: str) -> str:
        if value == LOCAL_BASE_URL:
            return value
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f'must be "{LOCAL_BASE_URL}" or an http(s):// URL, got {value!r}')
        return value.rstrip("/")

    @field_validator("chat_model")
    @classmethod
    def _check_chat_model(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None or value == "":
            return None
        if info.data.get("backend") != "langchain":
            raise ValueError('needs backend = "langchain"')
        from .chat_models import import_chat_model

        import_chat_model(value)  # ValueError with the reason
        return value

    @field_validator("chat_model_kwargs")
    @classmethod
    def _check_chat_model_kwargs(
        cls, value: dict[str, Any], info: ValidationInfo
    ) -> dict[str, Any]:
        if value and info.data.get("chat_model") is None:
            raise ValueError("needs chat_model (the class these arguments build)")
        return value

    @field_validator("api_key_env")
    @classmethod
    def _check_api_key_env(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if not _ENV_NAME.match(value):
            raise ValueError(
                "must be the NAME of an environment variable (letters, digits, underscore), "
                "not the key itself"
            )
        return value

    @field_validator("prompt_template")
    @classmethod
    def _check_prompt_template(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts or "\\" in value:
            raise ValueError("must be a relative path inside agents/prompts/ (no '..')")
        return value

    def __hash__(self) -> int:  # extra_body is a dict: hash the canonical JSON instead
        return hash(self.model_dump_json())

    # ------------------------------------------------------------------ helpers

    @property
    def is_local(self) -> bool:
        """True when the embedded SmolLM2 server should serve this agent."""
        return self.base_url == LOCAL_BASE_URL

    @property
    def is_reasoning_model(self) -> bool:
        """Whether requests follow the reasoning-model parameter rules."""
        if self.reasoning_model is not None:
            return self.reasoning_model
        return bool(_REASONING_MODEL.match(self.model))

    def request_parameters(self) -> dict[str, Any]:
        """The sampling and length fields of a chat request (model and messages aside).

        Reasoning models get no ``temperature``/``top_p`` (they reject values other than
        the default) and ``max_completion_tokens``; other models get ``max_tokens``
        unless ``max_completion_tokens`` is set. ``extra_body`` is returned under its own
        key for the caller to pass as the request's extra body.
        """
        params: dict[str, Any] = {}
        if self.is_reasoning_model:
            params["max_completion_tokens"] = self.max_completion_tokens or 8 * self.max_tokens
        else:
            params["temperature"] = self.temperature
            params["top_p"] = self.top_p
            if self.max_completion_tokens is not None:
                params["max_completion_tokens"] = self.max_completion_tokens
            else:
                params["max_tokens"] = self.max_tokens
        if self.reasoning_effort is not None:
            params["reasoning_effort"] = self.reasoning_effort
        if self.seed is not None:
            params["seed"] = self.seed
        return params

    @property
    def effective_structured_output_format(self) -> Literal["json_schema", "json_object"]:
        """The response_format dialect to use, with "auto" resolved."""
        if self.structured_output_format != "auto":
            return self.structured_output_format
        return "json_object" if self.is_local else "json_schema"

    def api_key(self) -> SecretStr | None:
        """Read the API key from the environment now. ``None`` when no variable is named.

        Whitespace around the key is dropped: a key read from a file or an ``.env`` line
        often keeps its line break, which is never part of a key and which no HTTP
        header may carry (every request would fail before it is sent, as a connection
        error blamed on the endpoint, and void every game of the agent).

        Raises :class:`AgentDefinitionError` when the named variable is unset, empty or
        blank, or when the key holds a character an HTTP header cannot carry (a space,
        a control or non-ASCII character, named by its position, never shown), so a
        missing or damaged key fails loudly before any game instead of sending
        unauthenticated or unsendable requests.
        """
        if self.api_key_env is None:
            return None
        raw = os.environ.get(self.api_key_env)
        value = (raw or "").strip()
        problem = None
        if raw is None:
            problem = "is not set"
        elif not value:
            problem = "is set but empty" if not raw else "holds only whitespace"
        else:
            bad = next((i for i, c in enumerate(value) if not "!" <= c <= "~"), None)
            if bad is not None:
                problem = (
                    f"holds a character an HTTP header cannot carry at position {bad + 1} "
                    "(a space, a control or a non-ASCII character)"
                )
        if problem is not None:
            where = str(self._source) if self._source is not None else f"agent {self.name!r}"
            raise AgentDefinitionError(
                where, "api_key_env", f"environment variable {self.api_key_env} {problem}"
            )
        return SecretStr(value)

    @property
    def source_file(self) -> Path | None:
        """The agent file this definition was read from (None when built in code): what
        an error found after loading names (``FILE: KEY: REASON``)."""
        return self._source

    def prompt_template_path(self, agents_dir: Path) -> Path | None:
        """Absolute path of the prompt template, given the ``agents/`` directory."""
        if self.prompt_template is None:
            return None
        return Path(agents_dir) / "prompts" / self.prompt_template

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD cost of a request with these token counts."""
        return (
            prompt_tokens * self.price_per_input_token
            + completion_tokens * self.price_per_output_token
        )


def _check_prompt_template(path: Path, definition: AgentDefinition) -> None:
    """The definition's ``prompt_template`` exists in ``prompts/`` beside the agent file
    (where the player reads it), else an error naming the file, the key and the place."""
    if definition.prompt_template is None:
        return
    template = definition.prompt_template_path(path.parent)
    if template is not None and not template.exists():
        raise AgentDefinitionError(
            str(path),
            "prompt_template",
            f"no such file {template} (looked in {path.parent / 'prompts'})",
        )


def load_agent_definition(path: str | os.PathLike[str]) -> AgentDefinition:
    """Load and validate one agent TOML file.

    ``name`` defaults to the file stem when the file does not set it. The file is read
    as every user's TOML file is (`toml_file.read_toml_text`: a regular file of at most
    4 MiB, UTF-8), so a folder, a pipe or a binary file is refused in one line."""
    path = Path(path)
    source = str(path)
    try:
        data = parse_toml(read_toml_text(path))
    except (OSError, TomlFileError, tomllib.TOMLDecodeError) as exc:
        raise AgentDefinitionError(source, "-", refusal(exc)) from None
    _check_shape(source, data)
    kind = data.pop("kind", LLM_KIND)
    if kind != LLM_KIND:  # another kind's loader took a file it builds
        reason = f'must be "{LLM_KIND}" (or left out) for an LLM player, got {toml_spelling(kind)}'
        raise AgentDefinitionError(source, "kind", reason)
    data.setdefault("name", path.stem)
    try:
        definition = AgentDefinition.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc)
        raise AgentDefinitionError(source, *joined_problems(source, problems)) from None
    definition._source = path
    _check_prompt_template(path, definition)
    if definition.chat_model is not None:
        from .chat_models import check_chat_model

        try:
            check_chat_model(definition)
        except ValueError as exc:
            raise AgentDefinitionError(source, "chat_model_kwargs", str(exc)) from None
    return definition


_OTHER_KINDS = {
    "variant file": "this is a variant file, not an agent file (give it with --variant, "
    "or as a spec's variants.<i>.variant)",
    "experiment spec": "this is an experiment spec, not an agent file (run it with "
    "mafia-arena tournament)",
    "training spec": "this is a training spec, not an agent file (run it with mafia-arena train)",
}
"""What each of the project's other TOML files is, given as an agent file."""


def _check_shape(source: str, data: dict[str, Any]) -> None:
    """Refuse, in one line, a file that is no agent file at all: an empty one, another
    of the project's files (`toml_file.file_kind`: a variant file, a spec) that sets no
    agent key, or one that writes its settings in a table (``[agent]``) rather than at
    the top level.

    Why: validation would report each of these as a list of missing and unknown keys,
    one line apiece, none of which says what is wrong with the file."""
    if not data:
        raise AgentDefinitionError(
            source, "-", 'the file is empty; an agent file sets at least model = "NAME"'
        )
    fields = AgentDefinition.model_fields
    kind = file_kind(data)
    if kind in _OTHER_KINDS and not data.keys() & (set(fields) - {"name", "description"}):
        raise AgentDefinitionError(source, "-", _OTHER_KINDS[kind])
    for key, value in data.items():
        if key in fields:
            continue
        tables = isinstance(value, list) and bool(value)
        tables = tables and all(isinstance(item, dict) for item in value)
        if isinstance(value, dict) or tables:
            written = f"[{key}]" if isinstance(value, dict) else f"[[{key}]]"
            raise AgentDefinitionError(
                source,
                key,
                f"unknown table {written}; an agent file writes its settings at the top "
                'level (model = "...", base_url = "..."), in no table',
            )


def declared_kind(path: Path) -> object:
    """The ``kind`` a TOML agent file declares, or None (unreadable files: None, so the
    loader reports them properly). The file is read as the loader reads it
    (`read_toml_text`): a pipe given as an agent file would wait for a writer."""
    try:
        return parse_toml(read_toml_text(path)).get("kind")
    except (OSError, TomlFileError, tomllib.TOMLDecodeError):
        return None


def load_agent_definitions(directory: str | os.PathLike[str]) -> dict[str, AgentDefinition]:
    """Load every LLM agent file directly in ``directory``, keyed by agent name.

    Files that declare another ``kind`` (``kind = "rl"``: a trained policy) are agent
    files of other players and are skipped. Duplicate names are an error naming both
    files.
    """
    found: dict[str, AgentDefinition] = {}
    origin: dict[str, Path] = {}
    for path in sorted(Path(directory).glob("*.toml")):
        if declared_kind(path) not in (None, LLM_KIND):
            continue
        definition = load_agent_definition(path)
        if definition.name in found:
            other = origin[definition.name]
            raise AgentDefinitionError(
                str(path), "name", f"{definition.name!r} is already used by {other}"
            )
        found[definition.name] = definition
        origin[definition.name] = path
    return found
