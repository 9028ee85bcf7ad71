"""One chat request to one endpoint, through the openai package or a LangChain chat model.

Contract
--------
* A transport sends exactly one chat-completion request (no retries: the openai client is
  built with ``max_retries=0``, ChatOpenAI likewise) and returns a :class:`RawReply`: the
  text (``""`` when the endpoint returned none) and the token usage it reported.
* The request's sampling and length fields come from
  :meth:`AgentDefinition.request_parameters` (reasoning-model rules included) and the
  agent's ``extra_body`` is merged into the body, for both backends alike.
* A reply's separate reasoning field (``reasoning_content`` or ``reasoning``) is returned
  in ``RawReply.reasoning``; ``<think>`` blocks inside the text are left for the client
  to split (:mod:`mafia_arena.llm.reasoning`). ``usage_missing`` says the endpoint
  reported no token usage. A refusal the reply sends apart from its content (OpenAI's
  ``message.refusal``, with ``content`` null, when it declines a structured-output
  request) is returned in ``RawReply.refusal``, on one line and at most
  :data:`MAX_REASON_CHARS` characters: the client tells it apart from an empty answer.
  Likewise the name and the arguments of the first tool call a reply carries
  (``RawReply.tool_name``, ``tool_arguments``; the name on one line and cut like a
  refusal, the arguments cut like the text).
* Every failure leaves as a :class:`TransportError` carrying an ``ErrorKind``, whether
  a retry can help (timeouts, connection errors, 429 and 5xx can; 4xx cannot) and a
  short ``reason`` for the decision trace: the HTTP status, the endpoint's error code
  and message, at most :data:`MAX_REASON_CHARS` characters, never a header, and with
  the API key and anything that looks like a key masked (:func:`short_reason`). A 429
  or a retryable 5xx also carries the seconds its ``retry-after-ms`` header
  (milliseconds, preferred) or its ``Retry-After`` header (seconds or an HTTP date) asks
  for, which the client's backoff honours: a 503 sends them as often as a 429 does. The
  retry policy itself lives in :mod:`mafia_arena.llm.client`, so both backends behave
  the same.
* An HTTP 200 is only an answer if it is one: a body that is not JSON (a proxy's error
  page, sent as JSON or as text) is ``server_error``; a JSON body that carries an
  OpenAI-style ``error`` object or no ``choices`` is ``endpoint_error``. Both are the
  endpoint's fault, retried like a 5xx, and never taken for an empty answer of the
  model (whose tokens would then be estimated as billed). So is a 200 whose
  ``choices`` is not a list, whose first choice has no ``message`` object, whose content
  is neither text, a list of text parts nor null, or whose body is not UTF-8.
  The same holds for any other success status (a queued job's 202, an empty 204), and
  the reason names the status the endpoint really sent. A body its
  ``Content-Encoding`` cannot undo (a broken gzip) is ``server_error`` too, named by
  the status it came with (:func:`classify_exception`): the openai package wraps the
  HTTP client's ``DecodingError`` as a connection error, but the server did answer, and
  a ``connection`` cause would send the reader of a trace to the network.
* Redirects are followed as HTTP says, except one that would resend the chat request
  as a GET (a 301, 302 or 303 answering the POST: an ``http://`` base URL its server
  moves to ``https://``, a path moved elsewhere). That request is not sent: the call
  fails at once as ``bad_request`` (not retried) with a reason naming the status and
  where it pointed (scheme, host, port and path), for both backends alike
  (:func:`_refuse_method_change`). Why: the GET carries no prompt, and whatever it is
  answered with (a model list, a 405, a web page) is no answer to the question; the
  trace would otherwise blame the body of that answer and hide the real fix, a
  ``base_url`` that points where the endpoint is.
  With the LangChain backend, the ChatOpenAI built from the agent file fails inside
  itself on such bodies (``TypeError``, ``AttributeError``, pydantic's
  ``ValidationError``); its HTTP client records the answer, and after a 2xx these
  count as the openai backend counts the same body (:func:`_classify_langchain`):
  ``server_error`` with the same reason where the body is not JSON (an empty 204, a
  text page, which its structured-output path indexes as a completion), else
  ``endpoint_error``.
* Every reply goes through :func:`checked_reply` before the client uses it (the
  client calls it, so a custom LangChain chat model gets the same treatment): lone
  surrogates become U+FFFD, every line break (``\r``, NEL, U+2028, ...) becomes ``\n``
  and other control characters are dropped, text and reasoning are cut at
  :data:`MAX_REPLY_CHARS` (``dropped_chars`` says how much went), and token counts
  that are not plausible non-negative integers count as no usage reported. Why: the
  model's text is published as speech and stored in traces; a lone surrogate cannot
  be encoded as UTF-8 (the next prompt holding it, a trace or a log could not be sent
  or saved), a raw U+2028 splits a JSON line where a reader uses ``splitlines``, and a
  tens-of-megabytes answer would otherwise be echoed back in every re-ask and kept in
  every trace.
* API keys are handed in by the caller, read from the environment just before the
  transport is built; they are never logged and never part of a ``repr``. When an agent
  names no key, a placeholder is sent: the openai package and ChatOpenAI would otherwise
  pick up ``OPENAI_API_KEY`` and send a real OpenAI key to a third-party endpoint.

Why two backends behind one interface: the OpenAI-compatible HTTP API reaches OpenAI,
vLLM, Ollama and llama.cpp with one code path; LangChain lets people plug in any
``BaseChatModel`` (Anthropic, Bedrock, a custom chain) without this package knowing it,
from Python or by naming its class in the agent file (``chat_model``).
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import email.utils
import functools
import importlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

import openai

from .accounting import ErrorKind
from .definition import AgentDefinition

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "NO_API_KEY",
    "ChatMessage",
    "LangChainTransport",
    "OpenAITransport",
    "RawReply",
    "Transport",
    "TransportError",
    "checked_reply",
    "classify_exception",
    "clean_reply_text",
    "short_reason",
]

#: Sent as the API key to endpoints that need none (llama.cpp, vLLM, Ollama).
NO_API_KEY = "no-key-required"

#: Longest failure reason kept (traces are per decision: they must stay small).
MAX_REASON_CHARS = 200

#: Longest reply text (and, apart, reasoning) kept from one answer, in characters:
#: far above what a game move or speech needs (a speech is capped at a few hundred
#: characters, a choice is a short JSON object), far below what would bloat a trace.
MAX_REPLY_CHARS = 100_000

#: Largest token count taken as reported; anything above is no plausible usage.
MAX_REPORTED_TOKENS = 10**9

#: Characters that end a line for ``str.splitlines`` (besides ``\n``): made ``\n``.
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: Other C0 and C1 control characters and DEL (tab and newline are kept): dropped.
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")
#: UTF-16 surrogates: in a Python string from JSON only a lone one can occur.
_SURROGATES = re.compile("[\ud800-\udfff]")

#: Things that look like credentials in an endpoint's error text.
_KEYLIKE = re.compile(r"(?i)\b(bearer\s+)\S+|\b(sk-)[A-Za-z0-9_\-*.]{6,}")


def short_reason(text: str, secret: str | None = None) -> str:
    """``text`` on one line, printable, the key and key-like tokens masked, truncated.

    Why: the reason of a failure goes into traces and logs that are shared with the
    results; an endpoint that echoes the request's key must not leak it there."""
    if secret and secret != NO_API_KEY:
        text = text.replace(secret, "***")
    text = _KEYLIKE.sub(lambda m: f"{m.group(1) or m.group(2)}***", text)
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if len(text) > MAX_REASON_CHARS:
        text = text[: MAX_REASON_CHARS - 3].rstrip() + "..."
    return text


class ChatMessage(TypedDict):
    """One OpenAI-style chat message."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True)
class RawReply:
    """The endpoint's answer to one request."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    reasoning: str = ""
    usage_missing: bool = False
    dropped_chars: int = 0  # cut from text, reasoning, tool arguments (MAX_REPLY_CHARS)
    #: the model's refusal, sent apart from the content (OpenAI's ``message.refusal``)
    refusal: str = ""
    #: the name and the arguments (as sent, a JSON text) of the reply's first tool call
    tool_name: str = ""
    tool_arguments: str = ""


def clean_reply_text(text: str) -> str:
    """``text`` as UTF-8-safe, single-kind-of-line-break text (module docstring).

    Lone surrogates become U+FFFD, every line break ``str.splitlines`` knows becomes
    ``\\n``, other control characters are dropped; the rest is left alone, so the same
    answer always gives the same text (games stay deterministic)."""
    text = _SURROGATES.sub("\ufffd", text)
    text = _LINE_BREAKS.sub("\n", text)
    return _CONTROLS.sub("", text)


def _token_count(value: object) -> int | None:
    """A reported token count as an int, or None when it is no plausible count (not a
    whole number, negative, or above :data:`MAX_REPORTED_TOKENS`)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= MAX_REPORTED_TOKENS:
        return value
    return None


def _token_pair(prompt: object, completion: object) -> tuple[int, int] | None:
    """(prompt, completion) tokens, one missing count being 0; None if both are
    missing or either is implausible (then the usage counts as not reported and is
    estimated)."""
    if prompt is None and completion is None:
        return None
    pair = (_token_count(prompt or 0), _token_count(completion or 0))
    if pair[0] is None or pair[1] is None:
        return None
    return pair[0], pair[1]


def checked_reply(reply: RawReply) -> RawReply:
    """``reply`` as the client may use it: clean, bounded text and plausible usage.

    Raises :class:`TransportError` (``endpoint_error``, retryable) when the text is
    neither a string, a list of text parts nor None: such a body is the endpoint's
    fault, not an answer of the model. See the module docstring for the rest."""
    raw: object = reply.text
    if raw is None:
        raw = ""
    elif isinstance(raw, list):
        raw = _message_text(raw)
    if not isinstance(raw, str):
        raise TransportError(
            "endpoint_error",
            f"HTTP 200 answer whose content is {type(raw).__name__}, not text",
            retryable=True,
        )
    reasoning = reply.reasoning if isinstance(reply.reasoning, str) else ""
    refusal = reply.refusal if isinstance(reply.refusal, str) else ""
    arguments = reply.tool_arguments if isinstance(reply.tool_arguments, str) else ""
    tool_name = reply.tool_name if isinstance(reply.tool_name, str) else ""
    text, reasoning = clean_reply_text(raw), clean_reply_text(reasoning)
    arguments = clean_reply_text(arguments)
    dropped = sum(max(0, len(kept) - MAX_REPLY_CHARS) for kept in (text, reasoning, arguments))
    tokens = _token_pair(reply.prompt_tokens, reply.completion_tokens)
    return RawReply(
        text=text[:MAX_REPLY_CHARS],
        prompt_tokens=tokens[0] if tokens else 0,
        completion_tokens=tokens[1] if tokens else 0,
        finish_reason=reply.finish_reason if isinstance(reply.finish_reason, str) else None,
        reasoning=reasoning[:MAX_REPLY_CHARS],
        usage_missing=reply.usage_missing or tokens is None,
        dropped_chars=reply.dropped_chars + dropped,
        refusal=short_reason(clean_reply_text(refusal)) if refusal.strip() else "",
        tool_name=short_reason(clean_reply_text(tool_name)),
        tool_arguments=arguments[:MAX_REPLY_CHARS],
    )


def _reasoning_field(message: Any) -> str:
    """The separate reasoning text of a reply message (R1-style servers), or ""."""
    for key in ("reasoning_content", "reasoning"):
        value = getattr(message, key, None)
        if value is None and isinstance(getattr(message, "additional_kwargs", None), dict):
            value = message.additional_kwargs.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


def _refusal_field(message: Any) -> str:
    """The refusal a reply message sends apart from its content, or "".

    OpenAI answers a structured-output request it declines with ``content`` null and
    the model's words in ``refusal`` (ChatOpenAI keeps them in ``additional_kwargs``).
    Kept, the trace says what the model answered instead of an empty reply."""
    value = getattr(message, "refusal", None)
    if value is None and isinstance(getattr(message, "additional_kwargs", None), dict):
        value = message.additional_kwargs.get("refusal")
    return value if isinstance(value, str) else ""


def _tool_call_fields(message: Any) -> tuple[str, str]:
    """(name, arguments) of a reply message's first tool call, or ("", "").

    A server that parses the model's output for tool calls (vLLM's ``--tool-call-parser``,
    Ollama, some proxies) may send an answer as a call of a tool nobody offered, with
    ``content`` null. The openai package keeps them in ``message.tool_calls``, ChatOpenAI
    in ``additional_kwargs["tool_calls"]`` (as sent); the arguments are a JSON text."""
    extra = getattr(message, "additional_kwargs", None)
    calls = extra.get("tool_calls") if isinstance(extra, dict) else None
    if not calls:  # the openai package's message, or LangChain's parsed ``ToolCall``s
        calls = getattr(message, "tool_calls", None)
    if not isinstance(calls, list) or not calls:
        return "", ""
    call = calls[0]
    function = call.get("function", call) if isinstance(call, dict) else None
    function = function if function is not None else getattr(call, "function", None)
    if isinstance(function, dict):
        name = function.get("name")
        arguments = function.get("arguments", function.get("args"))
    else:
        name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    if isinstance(arguments, dict):  # already parsed by some client
        arguments = json.dumps(arguments)
    return (
        name if isinstance(name, str) else "",
        arguments if isinstance(arguments, str) else "",
    )


class TransportError(Exception):
    """A request failed; ``kind`` says how, ``retryable`` whether trying again can help,
    ``reason`` why in a short line (:func:`short_reason` of ``message``)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.retryable = retryable
        self.retry_after = retry_after
        self.reason = short_reason(message)

    def masking(self, secret: str | None) -> TransportError:
        """This error with ``secret`` masked in its reason (the transport's own key)."""
        self.reason = short_reason(self.reason, secret)
        return self


def _error_object(body: object) -> dict[str, Any]:
    """The OpenAI-style error object of a body: ``body["error"]`` or the body itself."""
    if isinstance(body, dict):
        inner = body.get("error")
        return inner if isinstance(inner, dict) else body
    return {}


def _error_text(error: dict[str, Any], fallback: str) -> str:
    """``code: message`` of an error object (``type`` when it has no code).

    A body without ``message`` may carry a text ``detail`` instead: what FastAPI and
    Starlette, under vLLM's and llama-cpp-python's servers, answer for a path they do not
    serve (``{"detail": "Not Found"}``); the openai package's own message for it would
    say only ``Error code: 404``."""
    code = error.get("code") or error.get("type")
    message = error.get("message")
    if not (isinstance(message, str) and message):
        message = error.get("detail")
    message = message if isinstance(message, str) and message else fallback
    return f"{code}: {message}" if isinstance(code, str) and code else message


def _status_reason(exc: openai.APIStatusError) -> str:
    """``HTTP <status> <code>: <message>`` from the endpoint's error body.

    A 404 also names the URL that was asked (scheme, host, port and path: no user
    name, password or query, which may carry credentials): either the path is not
    served, most often a ``base_url`` without its ``/v1``, or the server does not know
    the model, and the URL tells the two apart at a glance."""
    reason = f"HTTP {exc.status_code} " + _error_text(_error_object(exc.body), exc.message)
    if exc.status_code == 404:
        url = getattr(getattr(exc, "request", None), "url", None)
        if url is not None:
            reason += f" (at {url.scheme}://{url.netloc.decode('ascii')}{url.path})"
    return reason


def _connection_reason(exc: BaseException) -> str:
    """``<name>: <message>``, with the cause the openai package wraps and does not say
    (``Connection error.`` alone hides whether the port refused, the host name did not
    resolve or TLS failed: each has its own fix).

    The cause is looked for past every connection error that only wraps another:
    ChatOpenAI raises its own ``OpenAIConnectionError`` from the openai package's, whose
    message (``Connection error.``) says no more than the outer one."""
    reason = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__
    for _ in range(8):  # a bounded walk: a chain of causes may loop
        if not isinstance(cause, openai.APIConnectionError) or cause.__cause__ is None:
            break
        cause = cause.__cause__
    if cause is not None and str(cause):
        reason += f" ({type(cause).__name__}: {cause})"
    return reason


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds the endpoint's ``retry-after-ms`` or ``Retry-After`` header asks to wait,
    or None.

    ``retry-after-ms`` (milliseconds, sent by OpenAI and OpenAI-compatible servers) is
    preferred when it is a usable number: it is the finer of the two, and a server that
    sends both means the same wait. Otherwise ``Retry-After`` is read: a number of
    seconds or an HTTP date (RFC 9110, 10.2.3; a 503 often sends the date the service is
    back). A date becomes the seconds until then; a value that is neither, not finite or
    negative asks for nothing. The client caps either wait at ``retry_backoff_max_s``."""
    try:
        headers = exc.response.headers
    except AttributeError:
        return None
    millis = _retry_after_ms(headers.get("retry-after-ms"))
    if millis is not None:
        return millis
    value = headers.get("retry-after")
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:  # an HTTP date is GMT; one written without a zone too
            when = when.replace(tzinfo=datetime.UTC)
        seconds = (when - datetime.datetime.now(datetime.UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _retry_after_ms(value: object) -> float | None:
    """Seconds of a ``retry-after-ms`` header value, or None if it is no finite number."""
    if not isinstance(value, str):
        return None
    try:
        millis = float(value)
    except ValueError:
        return None
    return max(0.0, millis / 1000) if math.isfinite(millis) else None


def _http_errors(name: str) -> tuple[type[BaseException], ...]:
    """The exception class ``name`` of httpx and of httpx2, where installed: the openai
    package is built on one or the other, as its version goes."""
    found: list[type[BaseException]] = []
    for library in ("httpx", "httpx2"):
        try:
            module = importlib.import_module(library)
        except ImportError:
            continue
        error = getattr(module, name, None)
        if isinstance(error, type) and issubclass(error, BaseException):
            found.append(error)
    return tuple(found)


#: A body its ``Content-Encoding`` cannot undo, as the HTTP client says it.
_DECODING_ERRORS = _http_errors("DecodingError")
#: What a response whose body was not read raises when its content is asked for.
_NOT_READ = _http_errors("ResponseNotRead")


def _decoding_error(exc: BaseException) -> BaseException | None:
    """The HTTP client's ``DecodingError`` behind ``exc`` (``exc`` itself or a cause it
    wraps), or None.

    A body its ``Content-Encoding`` cannot undo (a broken gzip) fails inside the HTTP
    client, and the openai package (and ChatOpenAI after it) wraps whatever fails there
    as a connection error. The server did answer: its answer is what is broken."""
    seen: BaseException | None = exc
    for _ in range(8):  # a bounded walk: a chain of causes may loop
        if seen is None or isinstance(seen, _DECODING_ERRORS):
            return seen
        seen = seen.__cause__
    return None


def classify_exception(exc: BaseException, status: int = 200) -> TransportError:
    """Map an exception from openai, LangChain, httpx or asyncio to a :class:`TransportError`.

    ``status`` is the HTTP status of the answer whose body failed to parse or to decode
    (a 202 or 204 is named as such in the reason, not as a 200)."""
    if isinstance(exc, TransportError):
        return exc
    name = type(exc).__name__
    undecodable = _decoding_error(exc)
    if undecodable is not None:  # the answer came, its body is broken: no lost connection
        return TransportError(
            "server_error",
            f"HTTP {status} body cannot be decoded ({type(undecodable).__name__}: {undecodable})",
            retryable=True,
        )
    if isinstance(exc, openai.APITimeoutError | TimeoutError | asyncio.TimeoutError):
        return TransportError("timeout", f"no answer in time ({name})", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return TransportError("connection", _connection_reason(exc), retryable=True)
    if isinstance(exc, openai.RateLimitError):
        return TransportError(
            "rate_limit", _status_reason(exc), retryable=True, retry_after=_retry_after(exc)
        )
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return TransportError("auth", _status_reason(exc), retryable=False)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= 500 or status in (408, 409):
            return TransportError(
                "server_error", _status_reason(exc), retryable=True, retry_after=_retry_after(exc)
            )
        return TransportError("bad_request", _status_reason(exc), retryable=False)
    if isinstance(exc, ConnectionError):
        return TransportError("connection", f"{name}: {exc}", retryable=True)
    if isinstance(exc, UnicodeDecodeError):
        return TransportError("server_error", f"HTTP {status} body is not UTF-8", retryable=True)
    if isinstance(exc, json.JSONDecodeError | openai.APIResponseValidationError):
        # a body that is not the API's JSON (a proxy's error page): the endpoint's fault
        return TransportError(
            "server_error", f"HTTP {status} body is not JSON ({name})", retryable=True
        )
    return TransportError("error", f"{name}: {exc}", retryable=False)


def not_an_answer(body: object, status: int = 200) -> TransportError | None:
    """Why an HTTP 200 body is no chat completion (module docstring), or None if it is one.

    ``body`` is what the openai package made of it: a string when the body was not
    JSON, else the parsed ``ChatCompletion`` (unknown keys such as ``error`` kept).
    ``status`` is the success status the body came with: every reason names it, so
    that a 202 (a queued job) or a 204 (no body at all) is not reported as a 200."""
    if isinstance(body, str | bytes):
        preview = body if isinstance(body, str) else body.decode("utf-8", "replace")
        return TransportError(
            "server_error", f"HTTP {status} body is not JSON: {preview[:80]!r}", retryable=True
        )
    extra = getattr(body, "model_extra", None) or {}
    if extra.get("error"):
        text = _error_text(_error_object(extra), "error without a message")
        return TransportError("endpoint_error", f"HTTP {status} error body: {text}", retryable=True)
    choices = getattr(body, "choices", None)
    if not choices:
        return TransportError(
            "endpoint_error", f"HTTP {status} body without choices", retryable=True
        )
    # the openai package keeps what it cannot parse as sent: an object or a number here
    # is the endpoint's fault, and indexing it must not end the call as our own "error"
    if not isinstance(choices, list):
        return TransportError(
            "endpoint_error",
            f"HTTP {status} body whose choices is {type(choices).__name__}, not a list",
            retryable=True,
        )
    message = getattr(choices[0], "message", None)
    if message is None:
        return TransportError(
            "endpoint_error",
            f"HTTP {status} body whose first choice has no message",
            retryable=True,
        )
    if not hasattr(message, "content"):  # a string or number where the object belongs
        return TransportError(
            "endpoint_error",
            f"HTTP {status} body whose first choice's message is {type(message).__name__}, "
            "not an object",
            retryable=True,
        )
    return None


#: The HTTP answers (``httpx.Response``) the running chat call's requests got, for the
#: HTTP clients both transports build (a list per call; tasks the call starts copy the
#: context, so they append to the same list). An answer is noted once its status and
#: headers are in, before its body is read: a body that fails to decode still leaves
#: the status it came with.
_answers: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "_answers", default=None
)


async def _note_answer(response: Any) -> None:
    """httpx response hook: record the answer for the running call, if one listens."""
    answers = _answers.get()
    if answers is not None:
        answers.append(response)


def _last_status(answers: list[Any], default: int = 200) -> int:
    """The status of the call's last answer, or ``default`` when none came."""
    return int(answers[-1].status_code) if answers else default


def _success(answers: list[Any]) -> Any | None:
    """The call's last answer if it was a success (2xx), else None."""
    return answers[-1] if answers and 200 <= answers[-1].status_code < 300 else None


def _not_json(response: Any) -> str | None:
    """``response``'s body, for a reason, when it is not JSON; None when it is JSON or
    was not read.

    The openai package hands a body it cannot read as JSON over as its text (or fails
    with ``JSONDecodeError`` where it was declared JSON): a proxy's page, a 204 without
    a body. A chat model that then indexes that text fails in its own way; this tells
    such a failure apart from one on a JSON body of the wrong shape."""
    try:
        content = response.content
    except _NOT_READ:
        return None
    try:
        json.loads(content)
    except (ValueError, RecursionError):
        return str(response.text)
    return None


#: Redirect statuses whose target an HTTP client asks for with a GET after a POST.
_METHOD_CHANGING_REDIRECTS = frozenset({301, 302, 303})


async def _refuse_method_change(response: Any) -> None:
    """httpx response hook: raise :class:`TransportError` (``bad_request``, not
    retryable) for a redirect that would resend the chat request as a GET (module
    docstring), before the client follows it. The reason names the status and the
    target's scheme, host, port and path (no user name, password or query, which may
    carry credentials). Any other answer passes."""
    if response.status_code not in _METHOD_CHANGING_REDIRECTS:
        return
    request = response.request
    location = response.headers.get("location")
    if request.method != "POST" or not location:
        return
    try:
        url = request.url.join(location)
        target = f"{url.scheme}://{url.netloc.decode('ascii')}{url.path}"
    except Exception:  # a Location no URL can be made of: say it as sent
        target = repr(location[:80])
    raise TransportError(
        "bad_request",
        f"HTTP {response.status_code} redirect to {target} would resend the chat request "
        "as a GET, which no chat endpoint answers: set base_url to where it points",
        retryable=False,
    )


#: What ChatOpenAI raises inside itself when a 2xx body has the wrong shape (choices
#: or message of another type, content that is no text): ``_create_chat_result``
#: indexes and ``.get``s the body as sent, and ``AIMessage`` validates the content.
_SHAPE_ERRORS: tuple[type[Exception], ...] = (TypeError, AttributeError, KeyError, IndexError)


def _is_shape_error(exc: BaseException) -> bool:
    """Whether ``exc`` is one of :data:`_SHAPE_ERRORS` or pydantic's ValidationError."""
    from pydantic import ValidationError

    return isinstance(exc, (*_SHAPE_ERRORS, ValidationError))


def _classify_langchain(
    exc: BaseException, answer: Any = None, status: int = 200
) -> TransportError:
    """As :func:`classify_exception`, plus what ChatOpenAI raises for a 2xx that is no
    answer: ``ValueError(<the error object>)`` for an error body, ``ValueError`` for a
    body that is not JSON, ``KeyError``/``TypeError`` for missing or null ``choices``.
    An empty ``choices`` list surfaces as a bare ``IndexError``, which only the call
    itself can tell apart (`LangChainTransport.chat` counts the generations).

    ``answer`` is the success answer (2xx) the call's request got, when the
    transport's own HTTP client saw one (:func:`_note_answer`); its status is named in
    the reason. With it, any other :func:`_is_shape_error` is the body's fault: after a
    2xx only the openai package and ChatOpenAI ran, reading that body. A body that is
    not JSON (:func:`_not_json`: a 204, a proxy's text page, which ChatOpenAI's
    structured-output path indexes as a completion) is ``server_error``, a JSON body
    of the wrong shape ``endpoint_error``: what the openai backend says of the same
    bodies, named alike (``HTTP 204 body is not JSON: ''``). Without it (a caller's
    chat model, or no answer at all) such an error stays our own ``error``. ``status``
    is the last answer's status of any kind, named when a body cannot be decoded
    (:func:`classify_exception`)."""
    code = answer.status_code if answer is not None else status
    text = str(exc.args[0]) if exc.args else ""
    if isinstance(exc, ValueError) and exc.args and isinstance(exc.args[0], dict):
        message = _error_text(exc.args[0], "error without a message")
        return TransportError(
            "endpoint_error", f"HTTP {code} error body: {message}", retryable=True
        )
    unexpected_type = isinstance(exc, ValueError) and text.startswith("Unexpected response type")
    body = _not_json(answer) if answer is not None else None
    if body is not None and (unexpected_type or _is_shape_error(exc)):
        return TransportError(
            "server_error", f"HTTP {code} body is not JSON: {body[:80]!r}", retryable=True
        )
    if unexpected_type:
        return TransportError(
            "server_error", f"HTTP {code} body is not JSON: {text}", retryable=True
        )
    if isinstance(exc, KeyError | TypeError) and "'choices'" in text:
        return TransportError("endpoint_error", f"HTTP {code} body: {text}", retryable=True)
    if answer is not None and _is_shape_error(exc):
        detail = (str(exc).splitlines() or [""])[0]
        return TransportError(
            "endpoint_error",
            f"HTTP {code} body of the wrong shape ({type(exc).__name__}: {detail})",
            retryable=True,
        )
    return classify_exception(exc, code)


class Transport(Protocol):
    """Sends one chat request."""

    async def chat(
        self, messages: Sequence[ChatMessage], *, response_format: dict[str, Any] | None
    ) -> RawReply: ...

    async def aclose(self) -> None: ...


class OpenAITransport:
    """Any OpenAI-compatible endpoint through ``openai.AsyncOpenAI``."""

    def __init__(self, definition: AgentDefinition, base_url: str, api_key: str | None) -> None:
        self._definition = definition
        self.base_url = base_url
        self._client = openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key or NO_API_KEY,
            timeout=definition.timeout_s,
            max_retries=0,
            # the package's own default client, plus the refusal of a redirect to a GET
            # and the note of each answer's status (named when its body cannot be decoded)
            http_client=openai.DefaultAsyncHttpxClient(
                timeout=definition.timeout_s,
                event_hooks={"response": [_note_answer, _refuse_method_change]},
            ),
        )

    def __repr__(self) -> str:
        return f"OpenAITransport(base_url={self.base_url!r}, model={self._definition.model!r})"

    async def chat(
        self, messages: Sequence[ChatMessage], *, response_format: dict[str, Any] | None
    ) -> RawReply:
        d = self._definition
        kwargs: dict[str, Any] = {
            "model": d.model,
            "messages": list(messages),
            **d.request_parameters(),
        }
        if d.extra_body:
            kwargs["extra_body"] = dict(d.extra_body)
        if response_format is not None:
            kwargs["response_format"] = response_format
        status = 200
        answers: list[Any] = []
        listening = _answers.set(answers)
        try:
            # the raw response first: its status is named when the body is no answer
            raw = await self._client.chat.completions.with_raw_response.create(**kwargs)
            status = raw.status_code
            response: Any = raw.parse()
        except Exception as exc:
            status = _last_status(answers, status)
            raise classify_exception(exc, status).masking(self._client.api_key) from exc
        finally:
            _answers.reset(listening)
        refused = not_an_answer(response, status)
        if refused is not None:
            raise refused.masking(self._client.api_key)
        choice = response.choices[0]
        usage = response.usage
        tokens = None
        if usage is not None:  # an object of the wrong shape counts as no usage
            prompt = getattr(usage, "prompt_tokens", None)
            tokens = _token_pair(prompt, getattr(usage, "completion_tokens", None))
        # the content as sent (a number, a list of parts, ...): checked_reply, which
        # the client applies to every reply, says what is text
        content: Any = choice.message.content
        tool_name, tool_arguments = _tool_call_fields(choice.message)
        return RawReply(
            text=content if content is not None else "",
            prompt_tokens=tokens[0] if tokens else 0,
            completion_tokens=tokens[1] if tokens else 0,
            finish_reason=getattr(choice, "finish_reason", None),
            reasoning=_reasoning_field(choice.message),
            usage_missing=tokens is None,
            refusal=_refusal_field(choice.message),
            tool_name=tool_name,
            tool_arguments=tool_arguments,
        )

    async def aclose(self) -> None:
        await self._client.close()


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)
    return "" if content is None else str(content)


def _usage(message: Any) -> tuple[int, int] | None:
    """(prompt, completion) tokens a LangChain message reports, or None without usage."""
    usage = getattr(message, "usage_metadata", None) or {}
    if isinstance(usage, dict) and usage:
        return _token_pair(usage.get("input_tokens"), usage.get("output_tokens"))
    meta = getattr(message, "response_metadata", None) or {}
    meta = (meta.get("token_usage") if isinstance(meta, dict) else None) or {}
    if not isinstance(meta, dict) or not meta:
        return None
    return _token_pair(meta.get("prompt_tokens"), meta.get("completion_tokens"))


class LangChainTransport:
    """A LangChain ``BaseChatModel``; ``response_format`` is bound only where supported."""

    def __init__(
        self, chat_model: BaseChatModel, *, supports_response_format: bool | None = None
    ) -> None:
        self.chat_model = chat_model
        if supports_response_format is None:
            supports_response_format = _is_chat_openai(chat_model)
        self.supports_response_format = supports_response_format
        self._owned_http_client: Any = None

    def __repr__(self) -> str:
        return f"LangChainTransport(model={type(self.chat_model).__name__})"

    @classmethod
    def from_definition(
        cls, definition: AgentDefinition, base_url: str, api_key: str | None
    ) -> LangChainTransport:
        """The agent file's ``chat_model`` class built from the definition
        (:mod:`mafia_arena.llm.chat_models`), or else a ``langchain_openai.ChatOpenAI``
        configured from it."""
        if definition.chat_model is not None:
            from .chat_models import build_chat_model

            return cls(build_chat_model(definition, api_key=api_key))
        from langchain_openai import ChatOpenAI
        from pydantic import SecretStr

        params = definition.request_parameters()
        body: dict[str, Any] = {}
        if definition.effective_structured_output_format == "json_object":
            # ChatOpenAI sends max_completion_tokens, which llama-cpp-python ignores.
            body["max_tokens"] = definition.max_tokens
        body.update(definition.extra_body)
        extra: dict[str, Any] = {"extra_body": body} if body else {}
        if "reasoning_effort" in params:
            extra["reasoning_effort"] = params["reasoning_effort"]
        # Our own HTTP client: ChatOpenAI otherwise shares one cached client per base_url
        # across instances and event loops, which aclose() would then break for everyone.
        # Its response hooks record each answer (_classify_langchain) and refuse a
        # redirect to a GET (_refuse_method_change).
        http_client = openai.DefaultAsyncHttpxClient(
            timeout=definition.timeout_s,
            event_hooks={"response": [_note_answer, _refuse_method_change]},
        )
        model = ChatOpenAI(
            model=definition.model,
            http_async_client=http_client,
            base_url=base_url,
            api_key=SecretStr(api_key or NO_API_KEY),
            temperature=params.get("temperature"),
            top_p=params.get("top_p"),
            # max_tokens: the pydantic alias of max_completion_tokens
            max_tokens=params.get("max_tokens", params.get("max_completion_tokens")),
            seed=definition.seed,
            timeout=definition.timeout_s,
            max_retries=0,
            **extra,
        )
        transport = cls(model, supports_response_format=True)
        transport._owned_http_client = http_client
        return transport

    async def chat(
        self, messages: Sequence[ChatMessage], *, response_format: dict[str, Any] | None
    ) -> RawReply:
        runnable: Any = self.chat_model
        if response_format is not None and self.supports_response_format:
            runnable = self.chat_model.bind(response_format=response_format)
        seen = _generation_counter()()
        answers: list[Any] = []
        listening = _answers.set(answers)
        try:
            message = await runnable.ainvoke(
                [dict(m) for m in messages], config={"callbacks": [seen]}
            )
        except openai.LengthFinishReasonError as exc:
            # ChatOpenAI parses structured replies and refuses truncated ones; the
            # truncated text is still worth a lenient parse.
            return _reply_from_completion(exc.completion)
        except IndexError as exc:
            if seen.generations == 0:  # the model's result held no generation at all
                raise TransportError(
                    "endpoint_error", "reply without choices (no generation)", retryable=True
                ) from exc
            raise _classify_langchain(exc, _success(answers), _last_status(answers)) from exc
        except Exception as exc:
            raise _classify_langchain(exc, _success(answers), _last_status(answers)) from exc
        finally:
            _answers.reset(listening)
        usage = _usage(message)
        finish = (getattr(message, "response_metadata", None) or {}).get("finish_reason")
        tool_name, tool_arguments = _tool_call_fields(message)
        return RawReply(
            text=_message_text(getattr(message, "content", "")),
            prompt_tokens=usage[0] if usage else 0,
            completion_tokens=usage[1] if usage else 0,
            finish_reason=finish,
            reasoning=_reasoning_field(message),
            usage_missing=usage is None,
            refusal=_refusal_field(message),
            tool_name=tool_name,
            tool_arguments=tool_arguments,
        )

    async def aclose(self) -> None:
        """Close the HTTP client built by :meth:`from_definition`; a caller's model is
        left alone."""
        if self._owned_http_client is not None:
            await self._owned_http_client.aclose()
            self._owned_http_client = None


@functools.cache
def _generation_counter() -> type:
    """The callback handler class that counts a call's generations, built on first use
    (LangChain is an optional dependency; a LangChain transport has it installed)."""
    from langchain_core.callbacks import AsyncCallbackHandler

    class GenerationCounter(AsyncCallbackHandler):
        """Counts the generations of the chat model's result as LangChain reports it
        (``on_llm_end``), before ``ainvoke`` takes the first of them.

        Why: an HTTP 200 whose ``choices`` list is empty gives ChatOpenAI a result with
        no generation, and ``ainvoke`` then fails with a bare ``IndexError`` that says
        nothing about the endpoint. Counted here, that case is told apart from an
        ``IndexError`` of any other origin. ``generations`` stays None when no result
        was reported (the call failed before one), so such an error keeps its own
        classification.
        """

        def __init__(self) -> None:
            super().__init__()
            self.generations: int | None = None

        async def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            batches = getattr(response, "generations", None) or ()
            self.generations = (self.generations or 0) + sum(len(b) for b in batches)

    return GenerationCounter


def _reply_from_completion(completion: Any) -> RawReply:
    choices = getattr(completion, "choices", None) or []
    text = ""
    if choices:
        text = _message_text(getattr(choices[0].message, "content", "")) or ""
    usage = getattr(completion, "usage", None)
    return RawReply(
        text=text,
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        finish_reason="length",
        reasoning=_reasoning_field(choices[0].message) if choices else "",
        usage_missing=usage is None,
    )


def _is_chat_openai(chat_model: Any) -> bool:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover - optional dependency
        return False
    return isinstance(chat_model, ChatOpenAI)
