"""``ChatClient``: what the game calls to make an LLM player speak or choose.

Contract
--------
* ``await client.complete(messages)`` returns a :class:`Completion` (free speech);
  ``await client.choose(messages, options, schema_name)`` returns a :class:`ChoiceResult`
  whose ``choice`` is one of ``options`` or ``None`` with ``fallback=True``.
* Neither method raises for anything the model or the endpoint does. Bad content
  (illegal option, malformed JSON, empty answer) gets up to ``max_reasks`` corrective
  re-asks, in the same conversation; transport failures (timeout, connection error, HTTP
  429 and 5xx) get up to ``max_retries`` retries per request with exponential backoff
  (``retry_backoff_s * 2**n``, jittered, capped at ``retry_backoff_max_s``); 4xx errors are
  not retried. Whatever is still wrong after that ends the call with ``fallback=True`` and
  an ``error_kind``; *the caller* (the game) picks the fallback move. Only caller bugs
  raise (empty or duplicate options, malformed messages) and so does a missing API-key
  variable at construction time, so misconfiguration fails before a game starts.
* With ``structured_output`` the request carries a JSON schema whose ``enum`` is exactly
  the options (OpenAI ``json_schema`` dialect, or llama-cpp-python's ``json_object`` +
  ``schema`` for ``base_url = "local"``); the answer is still parsed leniently (see
  :mod:`mafia_arena.llm.parsing`) because not every endpoint enforces schemas.
* Requests to one endpoint are capped process-wide by
  :func:`mafia_arena.llm.concurrency.endpoint_semaphore` (``max_concurrency``); backoff
  sleeps do not hold a slot.
* Reasoning is separated from the answer (:func:`~mafia_arena.llm.reasoning.
  split_reasoning` on the text, plus the reply's ``reasoning_content``): only the answer
  is parsed or returned as ``text``; the reasoning is returned in ``reasoning`` for the
  decision trace. A reply that is all reasoning counts as empty and is re-asked.
* Each endpoint has a process-wide circuit breaker (:mod:`mafia_arena.llm.breaker`);
  while it is open, requests fail at once with ``circuit_open`` (not retried). A call
  that did send a request ends with *that* request's failure (``timeout``, ...) even
  when the breaker opened meanwhile: the breaker's state says what happens to the next
  call, not what happened to this one.
* ``failure`` of a result is a short line saying why the call fell back (the HTTP
  status and the endpoint's error message, or what was wrong with the answer; ``""``
  without a fallback), for the decision trace.
* ``sent`` of a result holds the exact messages of every request the call sent, one
  entry per ask (the answer-format instruction and every re-ask turn included; a retry
  resends the same messages and adds no entry); empty when nothing was sent.
* A caller may pass its own :class:`CallProgress` (``progress=``) to see what a call has
  done so far; if the caller cancels the call (a time limit of its own), the call is
  still counted in ``client.usage`` and its stats, with ``error_kind`` ``cancelled``,
  are left in ``progress.stats`` before the cancellation goes on.
* A reply without ``usage`` has its tokens estimated from characters and is counted in
  ``CallStats.usage_estimated``.
* ``answers`` of a result lists every raw reply text of the call in order (re-asks
  included), for the decision trace. Replies are first made safe by
  :func:`~mafia_arena.llm.transport.checked_reply` (lone surrogates, control characters
  and odd line breaks replaced, length capped, implausible usage taken as none); an
  answer cut at the cap ends in a note saying how many characters were not kept.
  An answer the endpoint cut at the token limit (``finish_reason`` ``"length"``) ends
  in :data:`CUT_NOTE`; when such an answer names no option, the correction sent back
  and the call's ``failure`` say it was cut (:func:`_cut_problem`), so that a model
  that wrote more than ``max_tokens`` allows is told apart, in the trace, from one
  that named nothing legal.
  A refusal sent apart from an empty content (OpenAI's ``message.refusal``) is recorded
  as the answer, after :data:`REFUSAL_MARK`: in ``choose`` it is never parsed as a
  choice (a refusal that names an option chose nothing); it is re-asked as a refusal
  and, if it persists, falls back as ``invalid_answer``, the model's doing, instead of
  passing for an empty reply whose words the trace would lose.
  A tool call sent with an empty content (a server that turns the model's JSON into a
  call of a tool nobody offered) is recorded as ``(tool call) <name> <arguments>``
  (:data:`TOOL_CALL_MARK`). In ``choose`` its arguments are read as the answer, by the
  same lenient parser as any text: no tool was offered, so the call can only be the
  model's way of writing its answer, and an ``{"choice": ...}`` naming a legal option is
  exactly the answer asked for; arguments that name no option, or several, are re-asked
  like any other text. ``complete`` asks for speech, which a tool call is not, unless
  the question offers set moves by code (``moves``, the codes ``#1``, ``#2``, ... of a
  speaking turn): a tool call whose arguments name exactly one of them
  (:func:`~mafia_arena.llm.parsing.parse_move`) is that move and ends the call with the
  code as ``text``; any other tool call is re-asked as an empty answer (the trace still
  keeps the call), and a call that gets no speech says so in its ``failure`` ("a tool
  call, not speech, answered 3 of 3 request(s)") rather than "empty answer". No request
  offers tools, so this is all a tool call can mean.
* A reply that carries both a content and a tool call is recorded whole (the content,
  then the marked tool call on its own line), and one part is used, by the kind of
  question: in ``choose`` (a decision) the tool call is the answer and the content is
  not read; in ``complete`` (speech) the content is the text, unless the tool call
  names one of ``moves``, which then is the answer. ``dropped`` of the result lists the
  part of each such reply that was not used (``answer <n> content (...): <text>`` or
  ``answer <n> tool call (...): <name> <arguments>``, on one line, cut like a failure
  reason), so that the trace says what the model sent and the game did not take.
* Every result carries :class:`~mafia_arena.llm.accounting.CallStats` (tokens, latency,
  cost, requests, re-asks and retries, each also by cause, fallback, error kind), and
  ``client.usage`` sums them for this agent.
* The API key is read from the environment when the connection for an event loop is
  first built, is passed straight to the HTTP client, and never appears in a log line or
  ``repr`` (logs carry agent name, model, endpoint, counts and error kinds only). A key
  bound for an ``http://`` endpoint on another host is sent (a model on the local
  network is often served so), with one logged warning per endpoint and process
  (:func:`sends_key_in_clear`).

Why re-asks *and* a fallback flag: a game must always advance, but a rating must not
credit a model for a move it did not make. So the client tries to get a legal answer,
and when it cannot, says so instead of inventing one.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import random
import time
import urllib.parse
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .accounting import CallStats, ErrorKind, UsageCounter, causes, estimate_tokens
from .breaker import endpoint_breaker
from .concurrency import endpoint_semaphore
from .definition import AgentDefinition, AgentDefinitionError
from .local_server import LocalServerError, aget_local_server
from .parsing import (
    choice_instruction,
    choice_schema,
    correction_message,
    parse_choice,
    parse_move,
    response_format,
    validate_options,
)
from .reasoning import join_reasoning, split_reasoning
from .transport import (
    ChatMessage,
    LangChainTransport,
    OpenAITransport,
    RawReply,
    Transport,
    TransportError,
    checked_reply,
    classify_exception,
    short_reason,
)

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = ["CallProgress", "ChatClient", "ChoiceResult", "Completion"]

_log = logging.getLogger(__name__)

EMPTY_REASK = "Your reply was empty. Please answer the last message."
#: Marks a refusal (``RawReply.refusal``) among a call's recorded answers.
REFUSAL_MARK = "(refusal) "
#: Marks a tool call sent instead of content (``RawReply.tool_name``) among the answers.
TOOL_CALL_MARK = "(tool call) "
_EMPTY_PLACEHOLDER = "(no answer)"
#: Ends a recorded answer the endpoint cut at the token limit (``finish_reason`` length).
CUT_NOTE = " [cut at the token limit: finish_reason length]"

#: (base_url, model) -> response_format dialect learnt from a rejection ("auto" mode).
_learned_dialect: dict[tuple[str, str], Literal["json_schema", "json_object"]] = {}

#: Endpoints already warned about for receiving an API key over plain HTTP.
_warned_plain_http: set[str] = set()


def sends_key_in_clear(base_url: str) -> bool:
    """Whether a key sent to ``base_url`` crosses a network unencrypted: an ``http://``
    URL whose host is neither ``localhost`` nor a loopback address (127.0.0.0/8, ::1).

    Such a URL is allowed (a model on the local network is often served that way), but
    anyone on the path can read the ``Authorization`` header."""
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme.lower() != "http":
        return False
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name other than localhost
        return True


def warn_key_in_clear(agent: str, base_url: str) -> None:
    """Log one warning per endpoint (process-wide) that ``agent``'s API key goes to
    ``base_url`` over plain HTTP (:func:`sends_key_in_clear`); the key is not named."""
    if base_url in _warned_plain_http or not sends_key_in_clear(base_url):
        return
    _warned_plain_http.add(base_url)
    _log.warning(
        "agent %s sends its API key over plain http:// to %s, a host that is not this "
        "machine: anyone on the network path can read it (use https:// if you can)",
        agent,
        base_url,
    )


@dataclass(frozen=True, slots=True)
class Completion:
    """Free-text answer; ``text`` is ``""`` when the call fell back."""

    text: str
    stats: CallStats
    reasoning: str = ""
    answers: tuple[str, ...] = ()
    failure: str = ""
    sent: tuple[tuple[ChatMessage, ...], ...] = ()
    dropped: tuple[str, ...] = ()

    @property
    def fallback(self) -> bool:
        return self.stats.fallback

    @property
    def error_kind(self) -> ErrorKind | None:
        return self.stats.error_kind


@dataclass(frozen=True, slots=True)
class ChoiceResult:
    """A choice among options; ``choice``/``index`` are ``None`` when ``fallback``."""

    choice: str | None
    index: int | None
    reason: str
    raw: str
    stats: CallStats
    reasoning: str = ""
    answers: tuple[str, ...] = ()
    failure: str = ""
    sent: tuple[tuple[ChatMessage, ...], ...] = ()
    dropped: tuple[str, ...] = ()

    @property
    def fallback(self) -> bool:
        return self.stats.fallback

    @property
    def error_kind(self) -> ErrorKind | None:
        return self.stats.error_kind


@dataclass
class CallProgress:
    """What one call has done so far: requests, tokens, every reply and every message
    list sent, the parts of replies that were not used (``dropped``); ``stats`` once
    the call has finished (or was cancelled)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    reasks: int = 0
    retries: int = 0
    usage_estimated: int = 0
    #: ``retries`` and ``reasks`` by cause (:mod:`mafia_arena.llm.accounting`): what
    #: each request beyond the first was sent for
    retry_causes: Counter[str] = field(default_factory=Counter)
    reask_causes: Counter[str] = field(default_factory=Counter)
    answers: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    sent: list[tuple[ChatMessage, ...]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    stats: CallStats | None = None

    def reply(self, reply: RawReply) -> str:
        """Record a reply; its answer text with the reasoning split off. A refusal or a
        tool call sent apart from an empty content is recorded as the answer, marked as
        such (the tool call's name and arguments, so that the trace keeps them)."""
        thought, answer = split_reasoning(reply.text)
        note = (
            f" [... {reply.dropped_chars} more characters not kept]" if reply.dropped_chars else ""
        )
        if reply.finish_reason == "length":
            note += CUT_NOTE
        self.answers.append(_recorded_answer(reply, note))
        self.reasoning.append(join_reasoning(reply.reasoning, thought))
        return answer

    def retried(self, cause: str) -> None:
        """Count one request sent again because of ``cause`` (an error kind, or
        ``response_format``): the total and the cause's own count move together."""
        self.retries += 1
        self.retry_causes[cause] += 1

    def reasked(self, cause: str) -> None:
        """Count one corrective re-ask of an answer that was ``cause``
        (``invalid_answer`` or ``empty_answer``)."""
        self.reasks += 1
        self.reask_causes[cause] += 1

    def drop(self, part: str, why: str, text: str) -> None:
        """Note that ``part`` ("content" or "tool call") of the last reply was not used,
        and ``why``, with its ``text`` on one line (see the module docstring)."""
        self.dropped.append(f"answer {len(self.answers)} {part} ({why}): {short_reason(text)}")


def _cut_problem(problem: str, reply: RawReply) -> str:
    """``problem`` of an answer naming no option, with the token-limit cut added when
    the endpoint cut ``reply`` there (``finish_reason`` ``"length"``).

    Why: a choice cut mid-way (``{"choice": "Bo``) reads as a model naming nothing
    legal; said so, the trace points at ``max_tokens``, and the re-ask tells the model
    to answer in fewer words."""
    if reply.finish_reason != "length":
        return problem
    return f"it was cut at the token limit, so answer in fewer words ({problem})"


def _has_tool_call(reply: RawReply) -> bool:
    """Whether ``reply`` carries a tool call (a name or arguments)."""
    return bool(reply.tool_name or reply.tool_arguments)


def _recorded_answer(reply: RawReply, note: str) -> str:
    """What the trace keeps of one reply (:meth:`CallProgress.reply`): its content, its
    refusal or its tool call, and both content and tool call when it carries both."""
    tool = f"{TOOL_CALL_MARK}{reply.tool_name} {reply.tool_arguments}"
    if reply.text.strip():
        return f"{reply.text}\n{tool}{note}" if _has_tool_call(reply) else reply.text + note
    if reply.refusal:
        return f"{REFUSAL_MARK}{reply.refusal}"
    if _has_tool_call(reply):
        return f"{tool}{note}"
    return reply.text + note


def _spoken(reply: RawReply, tally: CallProgress, moves: Sequence[str]) -> str:
    """The answer ``complete`` takes from ``reply`` ("" to re-ask it as empty): the
    code of a set move its tool call names, else its content (module docstring)."""
    answer = tally.reply(reply).strip()
    if not _has_tool_call(reply):
        return answer
    move = parse_move(reply.tool_arguments, moves)
    if move is not None:
        if answer:
            tally.drop("content", f"the tool call named set move {move}", answer)
        return move
    if answer:
        call = f"{reply.tool_name} {reply.tool_arguments}"
        tally.drop("tool call", "the content is the answer", call)
    return answer


def _unspoken(requests: int, tool_calls: int) -> str:
    """The ``failure`` of a ``complete`` call that got no speech in ``requests``
    requests, ``tool_calls`` of whose answers were a tool call that named no set move
    (re-asked as empty answers, module docstring).

    Why not "empty answer" for those: the model did answer, with a tool call in place
    of speech, and the reason should send the reader to the calls the trace keeps
    (``answers``), not to an endpoint that sent nothing."""
    if not tool_calls:
        return f"empty answer to {requests} request(s)"
    return f"a tool call, not speech, answered {tool_calls} of {requests} request(s)"


def _normalise_messages(messages: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    result: list[ChatMessage] = []
    for i, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise ValueError(
                f"messages[{i}] must be {{'role': 'system'|'user'|'assistant', "
                f"'content': str}}, got role={role!r}, content type {type(content).__name__}"
            )
        result.append({"role": role, "content": content})
    return result


def _with_instruction(messages: list[ChatMessage], instruction: str) -> list[ChatMessage]:
    """Append the answer-format instruction to the last user turn (or add one)."""
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        return [*messages[:-1], {"role": "user", "content": f"{last['content']}\n\n{instruction}"}]
    return [*messages, {"role": "user", "content": instruction}]


class ChatClient:
    """Async client for one agent definition. See the module docstring for the contract."""

    def __init__(
        self,
        definition: AgentDefinition,
        *,
        usage: UsageCounter | None = None,
        chat_model: BaseChatModel | None = None,
    ) -> None:
        """``chat_model``: any LangChain chat model to use instead of building one."""
        self.definition = definition
        self.usage = usage if usage is not None else UsageCounter()
        self._chat_model_transport = (
            LangChainTransport(chat_model) if chat_model is not None else None
        )
        if definition.api_key_env is not None and chat_model is None:
            definition.api_key()  # fail fast (AgentDefinitionError) if the variable is unset
        self._transports: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, Transport]
        ] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        d = self.definition
        return (
            f"ChatClient(agent={d.name!r}, backend={d.backend!r}, model={d.model!r}, "
            f"base_url={d.base_url!r})"
        )

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP connections this client opened in the running loop."""
        loop = asyncio.get_running_loop()
        for transport in self._transports.pop(loop, {}).values():
            await transport.aclose()

    # ------------------------------------------------------------------ public API

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        progress: CallProgress | None = None,
        moves: Sequence[str] = (),
    ) -> Completion:
        """Free text. An empty answer is re-asked; see the module docstring.

        ``moves``: the codes of the set moves the question offers besides free text; a
        tool call that names one of them answers with that code (module docstring)."""
        started = time.monotonic()
        tally = progress if progress is not None else CallProgress()
        conversation = _normalise_messages(messages)
        text = ""
        error: ErrorKind | None = None
        failure = ""
        tool_calls = 0  # answers that were a tool call naming no set move, not speech
        try:
            for ask in range(self.definition.max_reasks + 1):
                try:
                    reply = await self._request(conversation, tally)
                except TransportError as exc:
                    error, failure = exc.kind, exc.reason
                    break
                text = _spoken(reply, tally, moves)
                if text:
                    break
                if _has_tool_call(reply):
                    tool_calls += 1
                if ask < self.definition.max_reasks:
                    tally.reasked("empty_answer")
                    conversation = [
                        *conversation,
                        {"role": "assistant", "content": _EMPTY_PLACEHOLDER},
                        {"role": "user", "content": EMPTY_REASK},
                    ]
            else:
                error, failure = "empty_answer", _unspoken(tally.requests, tool_calls)
        except asyncio.CancelledError:
            self._finish("complete", started, tally, "cancelled")
            raise
        stats = self._finish("complete", started, tally, error)
        return Completion(
            text="" if error else text,
            stats=stats,
            reasoning=join_reasoning(*tally.reasoning),
            answers=tuple(tally.answers),
            failure=failure,
            sent=tuple(tally.sent),
            dropped=tuple(tally.dropped),
        )

    async def choose(
        self,
        messages: Sequence[Mapping[str, Any]],
        options: Sequence[str],
        schema_name: str = "choice",
        *,
        instruction: bool = True,
        progress: CallProgress | None = None,
    ) -> ChoiceResult:
        """Pick one of ``options``; ``instruction=False`` if the prompt already states the
        JSON answer format."""
        options = validate_options(options)
        started = time.monotonic()
        tally = progress if progress is not None else CallProgress()
        conversation = _normalise_messages(messages)
        if instruction:
            conversation = _with_instruction(conversation, choice_instruction(options))
        schema = choice_schema(options) if self.definition.structured_output else None
        raw = said = ""
        index: int | None = None
        reason = ""
        error: ErrorKind | None = None
        failure = ""
        try:
            for ask in range(self.definition.max_reasks + 1):
                try:
                    reply = await self._request(conversation, tally, schema, schema_name)
                except TransportError as exc:
                    error, failure = exc.kind, exc.reason
                    break
                raw = tally.reply(reply)
                if reply.tool_arguments.strip() and not reply.refusal:
                    if raw.strip():  # the tool call is the decision: the content is not
                        tally.drop("content", "a tool call is the decision", raw)
                    raw = reply.tool_arguments  # a tool call's arguments as the answer
                said = raw.strip() or reply.refusal  # a refusal is an answer, not a choice
                parsed = parse_choice(raw, options)
                if parsed.index is not None:
                    index, reason = parsed.index, parsed.reason
                    break
                problem = _cut_problem(str(parsed.problem), reply)
                if not raw.strip() and reply.refusal:
                    problem = "it was a refusal, not a choice"
                if ask < self.definition.max_reasks:
                    tally.reasked("invalid_answer" if said else "empty_answer")
                    conversation = [
                        *conversation,
                        {"role": "assistant", "content": said or _EMPTY_PLACEHOLDER},
                        {"role": "user", "content": correction_message(options, problem)},
                    ]
            else:
                error = "invalid_answer" if said else "empty_answer"
                failure = short_reason(f"no legal choice in {tally.requests} answer(s): {problem}")
        except asyncio.CancelledError:
            self._finish("choose", started, tally, "cancelled")
            raise
        stats = self._finish("choose", started, tally, error)
        return ChoiceResult(
            choice=options[index] if index is not None else None,
            index=index,
            reason=reason,
            raw=raw,
            stats=stats,
            reasoning=join_reasoning(*tally.reasoning),
            answers=tuple(tally.answers),
            failure=failure,
            sent=tuple(tally.sent),
            dropped=tuple(tally.dropped),
        )

    # ------------------------------------------------------------------ internals

    def _finish(
        self, operation: str, started: float, tally: CallProgress, error: ErrorKind | None
    ) -> CallStats:
        stats = CallStats(
            prompt_tokens=tally.prompt_tokens,
            completion_tokens=tally.completion_tokens,
            latency_s=time.monotonic() - started,
            cost=self.definition.cost(tally.prompt_tokens, tally.completion_tokens),
            requests=tally.requests,
            reasks=tally.reasks,
            retries=tally.retries,
            fallback=error is not None,
            error_kind=error,
            usage_estimated=tally.usage_estimated,
            retry_causes=causes(tally.retry_causes),
            reask_causes=causes(tally.reask_causes),
        )
        tally.stats = stats
        self.usage.add(stats)
        _log.debug(
            "llm %s agent=%s model=%s tokens=%d+%d latency=%.3fs requests=%d reasks=%d "
            "retries=%d fallback=%s error=%s",
            operation,
            self.definition.name,
            self.definition.model,
            stats.prompt_tokens,
            stats.completion_tokens,
            stats.latency_s,
            stats.requests,
            stats.reasks,
            stats.retries,
            stats.fallback,
            stats.error_kind,
        )
        return stats

    async def _transport(self) -> Transport:
        if self._chat_model_transport is not None:
            return self._chat_model_transport
        d = self.definition
        try:
            # a named chat model reaches its own service: no embedded server for it
            local = d.is_local and d.chat_model is None
            base_url = (await aget_local_server()).base_url if local else d.base_url
        except LocalServerError as exc:
            _log.error("agent %s: embedded model unavailable: %s", d.name, exc)
            raise TransportError("connection", "embedded server failed", retryable=False) from exc
        table = self._transports.setdefault(asyncio.get_running_loop(), {})
        transport = table.get(base_url)
        if transport is None:
            try:
                secret = d.api_key()
            except AgentDefinitionError as exc:
                raise TransportError("auth", str(exc), retryable=False) from None
            key = secret.get_secret_value() if secret is not None else None
            if key is not None:
                warn_key_in_clear(d.name, base_url)
            if d.backend == "langchain":
                transport = LangChainTransport.from_definition(d, base_url, key)
            else:
                transport = OpenAITransport(d, base_url, key)
            table[base_url] = transport
        return transport

    def _backoff(self, retry: int, retry_after: float | None) -> float:
        d = self.definition
        delay = min(d.retry_backoff_max_s, d.retry_backoff_s * 2 ** (retry - 1))
        delay *= random.uniform(0.5, 1.0)
        if retry_after is not None:
            delay = max(delay, min(retry_after, d.retry_backoff_max_s))
        return delay

    def _dialect(self) -> Literal["json_schema", "json_object"]:
        d = self.definition
        if d.structured_output_format == "auto":
            return _learned_dialect.get((d.base_url, d.model), d.effective_structured_output_format)
        return d.effective_structured_output_format

    def _learn_dialect(self, error: TransportError) -> bool:
        """After an endpoint rejected ``json_schema``, use llama.cpp's dialect there.

        Only in "auto" mode, and only for an error that names the field, so that an
        external llama-cpp-python server works without configuration.
        """
        d = self.definition
        if d.structured_output_format != "auto" or self._dialect() != "json_schema":
            return False
        if error.kind not in ("bad_request", "server_error") or "response_format" not in str(error):
            return False
        _log.info("endpoint %s rejects json_schema; switching to json_object", d.base_url)
        _learned_dialect[(d.base_url, d.model)] = "json_object"
        return True

    async def _request(
        self,
        messages: list[ChatMessage],
        tally: CallProgress,
        schema: dict[str, Any] | None = None,
        schema_name: str = "choice",
    ) -> RawReply:
        """One logical request, retried on transient failures; raises TransportError.

        Once a request of it was sent, it ends with that request's own failure when the
        breaker opens (here or in another call) rather than with ``circuit_open``."""
        d = self.definition
        breaker = endpoint_breaker(d.base_url, d.breaker_failures, d.breaker_cooldown_s)
        retry = 0
        error: TransportError | None = None
        while True:
            if not breaker.allow():
                raise error or TransportError(
                    "circuit_open",
                    f"circuit breaker open after {breaker.consecutive} failed requests in a row",
                    retryable=False,
                )
            if tally.requests == 0 or tally.sent[-1] != tuple(messages):
                tally.sent.append(tuple(messages))
            tally.requests += 1
            fmt = None
            if schema is not None:
                fmt = response_format(schema, schema_name, self._dialect())
            try:
                transport = await self._transport()
                async with endpoint_semaphore(d.base_url, d.max_concurrency):
                    async with asyncio.timeout(d.timeout_s):
                        reply = checked_reply(await transport.chat(messages, response_format=fmt))
            except Exception as exc:
                error = classify_exception(exc)
            else:
                breaker.record_success()
                self._count_tokens(messages, reply, tally)
                return reply
            if error.retryable:
                breaker.record_failure()
            if schema is not None and self._learn_dialect(error):
                tally.retried("response_format")
                continue
            if not error.retryable or retry >= d.max_retries or not breaker.allow():
                raise error
            retry += 1
            tally.retried(error.kind)
            delay = self._backoff(retry, error.retry_after)
            _log.debug(
                "llm retry agent=%s error=%s retry=%d/%d in %.2fs",
                d.name,
                error.kind,
                retry,
                d.max_retries,
                delay,
            )
            await asyncio.sleep(delay)

    @staticmethod
    def _count_tokens(messages: list[ChatMessage], reply: RawReply, tally: CallProgress) -> None:
        """Add the reply's reported usage, or an estimate from characters without one."""
        if reply.usage_missing:
            tally.usage_estimated += 1
            sent = sum(len(m["content"]) for m in messages)
            tally.prompt_tokens += estimate_tokens(sent)
            received = len(reply.text) + len(reply.reasoning) + len(reply.refusal)
            received += reply.dropped_chars
            tally.completion_tokens += estimate_tokens(received)
        else:
            tally.prompt_tokens += reply.prompt_tokens
            tally.completion_tokens += reply.completion_tokens
