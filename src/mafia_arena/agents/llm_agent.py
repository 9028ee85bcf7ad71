"""`LLMAgent`: a player whose decisions and speech come from a language model.

Contract
--------
* ``LLMAgent(definition)`` implements the :class:`~mafia_arena.agents.base.Agent`
  protocol (``name``, ``kind = "llm"``, ``stats``, ``reset``, ``async act``). For a
  request with ``free_text`` (day discussion, pleas, defences, last words, night chat,
  the manner of a death) it returns :class:`Speech` written by ``ChatClient.complete``,
  cleaned of role-play prefixes and of words given to the host, another seat or a
  forum pseudonym it has seen and does not own (`llm_prompts.cleaned_speech`;
  ``stats.extra["impersonations_cleaned"]`` counts the speeches that had such words)
  and capped at ``request.max_chars``; the question lists
  the choices the turn offers besides free text (a pass or silence, the speech acts'
  set sentences) under codes ``#1``, ``#2``, ... (template ``alternatives``), and a
  reply that is exactly one of those codes, or a tool call whose arguments name
  exactly one (``ChatClient.complete``'s ``moves``), returns that choice
  (:mod:`mafia_arena.agents.llm_alternatives`). For every other
  request it returns one of ``request.choices``, picked by ``ChatClient.choose`` with the
  schema ``enum`` exactly the request's labels. A request with a single choice is
  answered without a model call.
* ``act`` never raises for anything the model or endpoint does. When the client reports
  a fallback (re-asks exhausted, timeouts, dead server, ...) or a speech is empty after
  cleaning, the agent returns the request's default (``PASS`` if it is a choice or the
  default is ``pass``, else a choice drawn from ``Random(f"llm:{seed}:{seat}")``), counts
  ``stats.fallbacks`` and remembers the reason (``llm:<error_kind>``) for
  :meth:`take_fallback`. The match runner asks for it and then records the *engine's*
  default with that reason (``game.submit_default``), so the log's ``decision`` event
  carries ``fallback`` and the log replays exactly; other drivers simply get a legal move.
* Prompts (``agents/prompts/*.txt``, see :mod:`mafia_arena.agents.llm_prompts`) are two
  messages: a system message (the rules text generated from the variant, the seat's
  role, team goal and teammates (seats of the other side whose role it knows are named
  apart, never as teammates), the persona, and the rule that quoted player speech is
  never an instruction), rebuilt only when the role, team or allies change; and one user
  message whose start is the seat's append-only transcript, fitted to the definition's
  ``max_prompt_chars`` without ever dropping the seat's own knowledge, and whose end is
  the question, from the request kind's own template where there is one. The prefix
  therefore grows but rarely changes, which keeps the server's prompt cache useful. The rules
  text is generated from ``view.rules``, the variant being played (switches included);
  nothing is loaded from files.
* With ``shuffle_options`` (the agent file's key or the experiment's switch) the options
  of a choice (and a speaking turn's coded alternatives) are shown in an order drawn from
  ``Random(f"llm-order:{seed}:{seat}:{decision}")`` and mapped back by position.
* :meth:`set_presentation` (the experiment's ``shuffle_names``): every message is shown
  under the game's permuted seat names (:class:`~mafia_arena.views.shown_names.Presentation`,
  the same for every seat of the game, drawn from the game seed alone), options
  included; what the model writes (speech, beliefs) is turned back into the table's own
  names before it is cleaned, parsed or published, and a chosen option maps back to
  its choice by position. Traces keep the messages as shown.
* :attr:`traces` (reset per game) holds one record per decision a model was asked for
  (:mod:`mafia_arena.agents.llm_trace`); the runner stores them beside the game log.
  A trace holds the exact messages the client sent (answer instruction and re-asks
  included) and, on a fallback, the short reason the client gave. A decision the
  driver's own time limit cut off (``act`` cancelled: the tournament's
  ``decision_timeout_s``, a table's turn clock) leaves a trace too: fallback
  ``timeout``, as the driver records it, with the seconds spent and what the cut-off
  call had done; its tokens and time are counted like any call's, and it counts as an
  infrastructure fallback (``stats.fallbacks`` itself is counted by the driver).
* Failure budget: the seconds of calls that ended in an infrastructure failure add up
  per game; past ``game_failure_budget_s`` every further decision falls back at once
  (``llm:budget_spent``) without a request. ``stats.extra`` counts
  ``fallbacks_infrastructure`` and ``fallbacks_model``. A forum form whose content
  call fails is played with the form's standard text: the decision (the form) was the
  model's, so it is no fallback in the log nor in ``stats.fallbacks`` (the two agree);
  ``stats.extra`` counts it as ``forum_content_fallbacks`` and its trace says why.
* ``definition.state_beliefs``: at the seat's first discussion turn of each day it first
  asks for P(mafia) of every other living seat (free text, parsed leniently; seats it
  cannot read are asked one by one on a 0.1-0.9 scale with ``choose``) and an intended
  vote (``choose``), and appends ``{day, seat, seq, probs, intent, complete, source}``
  to :attr:`beliefs` (``probs`` keyed by 0-based seat as a string; ``seq`` is the last
  event the seat had seen). The runner copies them into ``log.meta["beliefs"]``. A
  failed belief call is counted in ``stats.extra`` and never blocks the turn.
* Accounting: ``stats`` (reset per game) adds every call's tokens, cost and latency;
  ``reasks``, ``retries`` and ``fallbacks`` count decision calls only, so per-decision
  rates are not inflated by belief calls (whose counts go to ``stats.extra``).
  ``stats.extra`` also splits them by cause (`CallStats.retry_causes`, ``reask_causes``):
  ``retries_<cause>`` (``retries_timeout``, ``retries_connection``,
  ``retries_rate_limit``, ``retries_server_error``, ``retries_endpoint_error``,
  ``retries_response_format``) and ``reasks_<cause>`` (``reasks_invalid_answer``,
  ``reasks_empty_answer``) for decision calls, each set summing to ``retries`` or
  ``reasks``, and the same with ``belief_`` in front for belief calls; a cause that
  never happened has no key. So a game's header, its record and the tracked seat
  table say what each request beyond a decision's first was for.
* One :class:`~mafia_arena.llm.ChatClient` per definition is shared by every agent of
  that definition in the process, and its templates are loaded once
  (:mod:`mafia_arena.agents.llm_shared`). ``card()`` is the agent's model card
  (:mod:`mafia_arena.agents.llm_card`); agent files become players through
  :mod:`mafia_arena.agents.llm_loading`.

Why: an LLM player is judged on the moves it made. Constrained choices, re-asks and an
explicit fallback record keep the game moving without crediting a model for a move the
game made for it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mafia_arena.agents.base import AgentBase, AgentStats
from mafia_arena.agents.human import speaker_names
from mafia_arena.agents.llm_alternatives import (
    Alternative,
    listing,
    picked_alternative,
    speech_alternatives,
)
from mafia_arena.agents.llm_card import model_card
from mafia_arena.agents.llm_forum import content_hint, filled, unaddressed, unsent
from mafia_arena.agents.llm_prompts import (
    PromptTemplates,
    cleaned_speech,
    fit_transcript,
    parse_beliefs,
    seat_label,
    transcript_lines,
)
from mafia_arena.agents.llm_shared import shared_client, templates_for
from mafia_arena.agents.llm_trace import decision_trace
from mafia_arena.engine.choices import PASS, Choice, Decision, Request, Speech
from mafia_arena.llm.accounting import CallStats, attribution
from mafia_arena.llm.definition import AgentDefinition
from mafia_arena.views.display_names import DisplayNames
from mafia_arena.views.palermo_rules import palermo_situation
from mafia_arena.views.shown_names import Presentation
from mafia_arena.views.view import View

if TYPE_CHECKING:
    from mafia_arena.llm.client import CallProgress, ChatClient
    from mafia_arena.rules import Variant

__all__ = ["LLMAgent", "default_decision"]

_log = logging.getLogger(__name__)

#: The graded answers of a per-seat belief question (P(mafia)).
_SCALE = ("0.1", "0.3", "0.5", "0.7", "0.9")


# ---------------------------------------------------------------------- helpers


def default_decision(request: Request, rng: random.Random) -> Decision:
    """What a fallback plays: ``PASS`` when it is a choice or the default, else a random
    legal choice from ``rng`` (the agent's own seeded generator)."""
    if PASS in request.choices or request.default == "pass" or not request.choices:
        return PASS
    return rng.choice(request.choices)


def _option_texts(
    request: Request, seat: int | None = None, allies: Mapping[int, str] | None = None
) -> list[str]:
    """Distinct, non-blank option texts, one per choice: the labels, with "(you)" and
    "(your teammate)" added where the choice targets this seat or one of ``allies``, its
    known teammates (a small model otherwise happily votes out its own team; a known
    seat of the other side is not one, see `_teammates`), disambiguated if labels
    repeat."""
    texts: list[str] = []
    labels = list(request.labels) + [c.key for c in request.choices[len(request.labels) :]]
    for choice, label in zip(request.choices, labels, strict=False):
        text = " ".join(str(label).split()) or choice.key
        if choice.target is not None and choice.target == seat:
            text += " (you)"
        elif choice.target is not None and allies and choice.target in allies:
            text += " (your teammate)"
        if text in texts:
            text = f"{text} ({choice.key})"
        texts.append(text)
    return texts


def _teammates(view: View) -> tuple[dict[int, str], dict[int, str]]:
    """The seats whose role this seat was told (``knowledge.allies``), split into its
    teammates (a role of the seat's own side) and the others it knows.

    Why: a role may know seats of the other side (Palermo's Informant knows a Known
    Mafioso, the latent Rival Mafioso another), and calling those "teammates" in the
    prompt and marking them "(your teammate)" in the options would steer the model to
    shield its opponents. The heuristic players split their allies the same way."""
    variant, knowledge = view.rules, view.knowledge

    def side(faction: str | None) -> str | None:
        spec = variant.factions.get(faction) if faction is not None else None
        return spec.side if spec is not None else faction

    mine = side(knowledge.faction)
    team: dict[int, str] = {}
    others: dict[int, str] = {}
    for seat, role in knowledge.allies.items():
        if seat == view.seat:
            continue
        spec = variant.roles.get(role)
        ours = spec is not None and mine is not None and side(spec.faction) == mine
        (team if ours else others)[seat] = role
    return team, others


@dataclass(frozen=True, slots=True)
class _Asking:
    """The model call an ``act`` is waiting for, kept so that a decision cut off by
    the driver's time limit can still be traced and counted."""

    progress: CallProgress
    decision: bool  # a decision call (traced), or a belief call (counted apart)
    call: str | None = None
    template: str = ""
    question: str = ""
    options: tuple[str, ...] = ()


def _progress() -> CallProgress:
    from mafia_arena.llm.client import CallProgress  # needs the `llm` extra (openai)

    return CallProgress()


# ---------------------------------------------------------------------- the agent


class LLMAgent(AgentBase):
    """A Mafia player backed by an LLM endpoint. See the module docstring."""

    kind = "llm"

    def __init__(
        self,
        definition: AgentDefinition,
        *,
        client: ChatClient | None = None,
        agents_dir: str | Path | None = None,
        templates: PromptTemplates | None = None,
        max_transcript_chars: int | None = None,
    ) -> None:
        """``agents_dir``: the folder of the agent file (its ``prompts/`` holds the
        templates); default: the repository's ``agents/``. ``client``: defaults to the
        process-wide client of ``definition``. ``max_transcript_chars``: defaults to the
        definition's ``max_prompt_chars``."""
        self.definition = definition
        self.name = definition.name
        self.client = client if client is not None else shared_client(definition)
        self.templates = templates or templates_for(definition, agents_dir)
        self.max_transcript_chars = max_transcript_chars or definition.max_prompt_chars
        self.stats = AgentStats()
        self.beliefs: list[dict[str, Any]] = []
        self.traces: list[dict[str, Any]] = []
        self.seat = 0
        self.seed = 0
        self._rng = random.Random("llm:0:0")
        self._variant: Variant | None = None
        self._system: str | None = None
        self._system_key: tuple[object, ...] | None = None
        self._names: tuple[Variant, DisplayNames] | None = None
        self._belief_day: int | None = None
        self._fallback_reason: str | None = None
        self._infra_failure_s = 0.0
        self._presentation = Presentation()
        self._asking: _Asking | None = None

    def __repr__(self) -> str:
        return f"LLMAgent(name={self.name!r}, model={self.definition.model!r})"

    # ------------------------------------------------------------------ protocol

    def card(self) -> dict[str, Any]:
        """The model card a results record keeps for this agent
        (:func:`~mafia_arena.agents.llm_card.model_card`)."""
        return model_card(self.definition, self.templates.versions)

    def reset(self, seat: int, seed: int) -> None:
        """Start a new game at ``seat``: fresh stats, beliefs, traces, prompt, fallback
        RNG and failure budget."""
        self.seat, self.seed = seat, seed
        self.stats = AgentStats()
        self.beliefs = []
        self.traces = []
        self._rng = random.Random(f"llm:{seed}:{seat}")
        self._system = None
        self._system_key = None
        self._belief_day = None
        self._fallback_reason = None
        self._infra_failure_s = 0.0
        self._presentation = Presentation()

    def set_presentation(self, presentation: Presentation) -> None:
        """How the coming game is shown to the model (after `reset`): shuffled names
        and option order, the experiment's switches (module doc)."""
        self._presentation = presentation

    def set_variant(self, variant: Variant) -> None:
        """The exact variant of the coming game (with its switches) for the rules text."""
        self._variant = variant
        self._system = None

    def take_fallback(self) -> str | None:
        """The fallback reason of the last ``act`` (``llm:<error_kind>``), then forget it."""
        reason, self._fallback_reason = self._fallback_reason, None
        return reason

    async def act(self, view: View) -> Decision:
        """Speech or one legal choice for ``view.request``; never raises (see module doc)."""
        self._fallback_reason = None
        self._asking = None
        request = view.request
        if request is None:
            return PASS
        self.stats.decisions += 1
        started = time.monotonic()
        try:
            forced = not request.free_text and len(request.choices) == 1
            if self._budget_spent() and not forced:
                self.traces.append(self._trace(view, "", [], "", None, "budget_spent"))
                return self._fallback(request, "budget_spent")
            if (
                self.definition.state_beliefs
                and request.kind == "speak"
                and view.knowledge.day != self._belief_day
            ):
                await self._state_beliefs(view)
            if request.kind == "forum":
                return await self._forum(view, request)
            if request.free_text:
                return await self._speak(view, request)
            return await self._decide(view, request)
        except asyncio.CancelledError:
            self._cut_off(view, time.monotonic() - started)
            raise
        except Exception:  # a bug here must not stop a game: play the default, loudly
            _log.exception(
                "agent %s (seat %s): error while deciding %s", self.name, view.seat, request.kind
            )
            return self._fallback(request, "error")

    # ------------------------------------------------------------------ decisions

    async def _decide(self, view: View, request: Request) -> Decision:
        if len(request.choices) == 1:
            return request.choices[0]  # forced: nothing for the model to decide
        if not request.choices:
            return self._fallback(request, "no_choices")
        texts = _option_texts(request, view.seat, _teammates(view)[0])
        order = self._option_order(len(texts))  # the trace shows the order
        listed = [texts[i] for i in order]
        template = self.templates.for_request("decide", request.kind)
        question = self._render(
            template, view, prompt=request.prompt, options="\n".join(f"- {o}" for o in listed)
        )
        messages = self._messages(view, question)  # shown under the game's names
        options = [self._presentation.shown(o) for o in listed]  # as the model reads them
        progress = self._ask(True, "choose", template, question, options)
        result = await self.client.choose(
            messages, options, schema_name=_schema_name(request.kind), progress=progress
        )
        self._account(result.stats)
        failed = result.fallback or result.index is None
        kind = (result.error_kind or "invalid_answer") if failed else None
        self.traces.append(
            self._trace(
                view,
                template,
                result.sent,
                question,
                result.stats,
                kind,
                call="choose",
                options=options,
                answers=result.answers,
                reasoning=result.reasoning,
                choice=result.choice,
                reason=result.failure if failed else result.reason,
                dropped=result.dropped,
            )
        )
        if kind is not None or result.index is None:
            return self._fallback(request, kind or "invalid_answer")
        return request.choices[order[result.index]]

    async def _forum(self, view: View, request: Request) -> Decision:
        """A forum window's turn: the form as a structured decision among the offered
        ones, then its content (a post, a message, an ad, a testament, a death message)
        as free text, asked with the form's own question (`FORUM_CONTENT`). The content
        may widen a private message to several players or put an ad under a pseudonym
        the seat owns (`agents.llm_forum`)."""
        form = await self._decide(view, request)
        if not isinstance(form, Choice) or form.verb not in FORUM_CONTENT:
            return form
        if self._fallback_reason is not None:
            return PASS
        who = seat_label(form.target) if form.target is not None else ""
        prompt = FORUM_CONTENT[form.verb].format(who=who) + content_hint(view, form)
        speech = await self._speak(
            view, request, prompt=prompt, kind=f"forum_{form.verb}", content=form
        )
        if not isinstance(speech, Speech):
            return form  # the form with its standard text
        return filled(view, form, speech.text)

    async def _speak(
        self,
        view: View,
        request: Request,
        *,
        prompt: str | None = None,
        kind: str | None = None,
        content: Choice | None = None,
    ) -> Decision:
        """The model's speech for ``request``, or its default on a fallback; or the
        choice whose code the reply is, exactly, among the set moves the turn offers
        besides free text (listed with the ``alternatives`` template, none for a forum
        form's ``content``; `agents.llm_alternatives`).

        A tool call whose arguments name one of the codes is that choice too; a reply
        that carries both content and a tool call is the content's speech otherwise
        (`ChatClient.complete`), and the trace's ``dropped`` says what was not used.

        ``content``: the form already decided, whose text this is. Its failure is
        traced but is no fallback of the decision: the form is played with its standard
        text, the log records no fallback, so neither does ``stats.fallbacks`` (the
        records count fallbacks from the log, and the two must agree); it is counted in
        ``stats.extra["forum_content_fallbacks"]`` and PASS is returned. A text whose
        ``Also to:`` opening names nobody who can receive it is such a failure
        (``invalid_answer``, `agents.llm_forum.unaddressed`): sending it to the first
        recipient alone would narrow the audience the model wrote for. One that also
        names players who cannot is sent to the others, and the trace's ``dropped``
        names those left out (`agents.llm_forum.unsent`)."""
        template = self.templates.for_request("speak", kind or request.kind)
        question = self._render(
            template, view, prompt=prompt or request.prompt, max_chars=request.max_chars
        )
        alternatives = [] if content is not None else self._alternatives(view, request)
        if alternatives:
            question += "\n" + self._render(
                "alternatives", view, options=listing(alternatives), example=alternatives[0].code
            )
        messages = self._messages(view, question)
        options = [self._presentation.shown(a.text) for a in alternatives]
        progress = self._ask(True, "complete", template, question, options)
        codes = [a.code for a in alternatives]
        completion = await self.client.complete(messages, progress=progress, moves=codes)
        self._account(completion.stats)
        picked = None if completion.fallback else picked_alternative(completion.text, alternatives)
        text, kind = "", None
        dropped = list(completion.dropped)
        outcome: dict[str, str | None]
        if picked is not None:  # the model named a set move by its code: that choice
            outcome = {"choice": self._presentation.shown(picked.text)}
        else:
            written = self._presentation.real(completion.text)  # back to the table's names
            if not completion.fallback:
                names = speaker_names(view)  # the pseudonyms this seat has seen
                cleaned = cleaned_speech(written, view.seat, request.max_chars, names)
                text = cleaned.text
                if cleaned.impersonation:  # words given to the host or another seat: gone
                    extra = self.stats.extra
                    extra["impersonations_cleaned"] = extra.get("impersonations_cleaned", 0) + 1
            kind = (completion.error_kind or "error") if completion.fallback else None
            reason = completion.failure or ("nothing left after cleaning" if not text else "")
            if kind is None and not text:
                kind = "empty_answer"
            refused = None if kind or content is None else unaddressed(view, content, text)
            if refused is not None:  # sent as written it would reach fewer players
                kind, reason, text = "invalid_answer", refused, ""
            left_out = None if kind or content is None else unsent(view, content, text)
            if left_out is not None:  # sent to the others: the trace says who was left out
                dropped.append(left_out)
            outcome = {"speech": text or None, "reason": reason}
        self.traces.append(
            self._trace(
                view,
                template,
                completion.sent,
                question,
                completion.stats,
                kind,
                call="complete",
                options=options,
                answers=completion.answers,
                reasoning=completion.reasoning,
                dropped=dropped,
                **outcome,
            )
        )
        if picked is not None:
            return picked.choice
        if kind is not None and content is not None:
            extra = self.stats.extra
            extra["forum_content_fallbacks"] = extra.get("forum_content_fallbacks", 0) + 1
            return PASS
        if kind is not None:
            return self._fallback(request, kind)
        return Speech(text)

    def _alternatives(self, view: View, request: Request) -> list[Alternative]:
        """The set moves a speaking turn offers besides free text (a pass, a silence,
        the speech acts' sentences), coded in the order shown: the request's own, or
        under ``shuffle_options`` one drawn like a choice's (`_option_order`)."""
        if not request.choices:
            return []
        texts = _option_texts(request, view.seat, _teammates(view)[0])
        return speech_alternatives(request, texts, self._option_order(len(texts)))

    def _option_order(self, count: int) -> list[int]:
        """The order ``count`` options are shown in: as offered, or shuffled against
        position bias when the agent file or the experiment asks for it (the draw is
        the decision's own, so a replay shows the same order)."""
        order = list(range(count))
        if self.definition.shuffle_options or self._presentation.shuffle_options:
            random.Random(f"llm-order:{self.seed}:{self.seat}:{self.stats.decisions}").shuffle(
                order
            )
        return order

    def _fallback(self, request: Request, kind: str) -> Decision:
        self.stats.fallbacks += 1
        self._fallback_reason = f"llm:{kind}"
        extra = self.stats.extra
        key = f"fallbacks_{attribution(kind)}"
        extra[key] = extra.get(key, 0) + 1
        return default_decision(request, self._rng)

    def _ask(
        self,
        decision: bool,
        call: str | None = None,
        template: str = "",
        question: str = "",
        options: list[str] | tuple[str, ...] = (),
    ) -> CallProgress:
        """The progress of the model call about to be made, remembered as the one this
        ``act`` waits for (see :meth:`_cut_off`)."""
        progress = _progress()
        self._asking = _Asking(progress, decision, call, template, question, tuple(options))
        return progress

    def _cut_off(self, view: View, elapsed: float) -> None:
        """The driver cancelled this ``act`` (its decision time limit ran out): count
        what the call in flight had used and trace the decision as the driver records
        it, a ``timeout`` fallback. Nothing is traced for a request no model was asked
        about (none, or a forced single choice)."""
        asking, self._asking = self._asking, None
        stats = asking.progress.stats if asking is not None else None
        if stats is not None and stats.error_kind == "cancelled":  # cut off mid-call
            self._account(stats, decision=asking is not None and asking.decision)
        request = view.request
        if request is None or (not request.free_text and len(request.choices) <= 1):
            return
        extra = self.stats.extra
        extra["fallbacks_infrastructure"] = extra.get("fallbacks_infrastructure", 0) + 1
        traced = asking if asking is not None and asking.decision else None
        spent = stats if traced is not None and stats is not None else CallStats()
        reason = f"the decision time limit ran out after {elapsed:.1f} s"
        if traced is not None:
            reason += f" (waiting for the model's {traced.call} answer)"
        self.traces.append(
            self._trace(
                view,
                traced.template if traced else "",
                list(traced.progress.sent) if traced else [],
                traced.question if traced else "",
                CallStats(
                    prompt_tokens=spent.prompt_tokens,
                    completion_tokens=spent.completion_tokens,
                    latency_s=elapsed,
                    cost=spent.cost,
                    requests=spent.requests,
                    reasks=spent.reasks,
                    retries=spent.retries,
                    fallback=True,
                    error_kind="cancelled",
                    usage_estimated=spent.usage_estimated,
                    retry_causes=spent.retry_causes,
                    reask_causes=spent.reask_causes,
                ),
                "timeout",
                call=traced.call if traced else None,
                options=list(traced.options) if traced else [],
                answers=list(traced.progress.answers) if traced else [],
                dropped=list(traced.progress.dropped) if traced else [],
                reason=reason,
            )
        )

    def _budget_spent(self) -> bool:
        """Whether this game's budget of seconds lost to infrastructure failures is
        used up (then every decision falls back at once, as ``budget_spent``)."""
        return self._infra_failure_s >= self.definition.game_failure_budget_s > 0

    def _trace(
        self,
        view: View,
        template: str,
        sent: Sequence[Sequence[Mapping[str, Any]]],
        question: str,
        stats: CallStats | None,
        fallback: str | None,
        **fields: Any,
    ) -> dict[str, Any]:
        knowledge = view.knowledge
        request = view.request
        return decision_trace(
            seat=view.seat,
            seq=knowledge.last_event,
            day=knowledge.day,
            kind=request.kind if request is not None else "",
            template=template,
            versions=self.templates.versions,
            sent=sent,
            question=self._presentation.shown(question),  # as the model read it
            full_prompt=self.definition.trace_prompts == "full",
            stats=stats,
            fallback=fallback,
            call=fields.pop("call", None),
            **fields,
        )

    # ------------------------------------------------------------------ beliefs

    async def _state_beliefs(self, view: View) -> None:
        """Ask P(mafia) per other living seat and the intended vote; record them.

        One free-text call first (a capable model answers every seat at once); each seat
        it could not read is then asked alone as a constrained choice on a 0.1-0.9
        scale, which even a 135M model answers legally. The per-seat calls repeat the
        same transcript prefix, so they are cheap on a server with a prefix cache."""
        knowledge = view.knowledge
        self._belief_day = knowledge.day
        others = [s for s in knowledge.living() if s != view.seat]
        if not others:
            return
        extra = self.stats.extra
        extra["belief_calls"] = extra.get("belief_calls", 0) + 1
        probs: dict[int, float] = {}
        source = "text"
        intent: int | None = None
        try:
            example = "\n".join(f"{seat_label(s)}: 0.x" for s in others)
            said = await self.client.complete(
                self._messages(
                    view, self._render("beliefs", view, day=knowledge.day, example=example)
                ),
                progress=self._ask(False),
            )
            self._account(said.stats, decision=False)
            written = self._presentation.real(said.text)
            probs = parse_beliefs(written, others) if not said.fallback else {}
            for seat in (s for s in others if s not in probs):
                source = "scale" if not probs or source == "scale" else "mixed"
                graded = await self.client.choose(
                    self._messages(
                        view,
                        self._render(
                            "belief_seat", view, day=knowledge.day, target=seat_label(seat)
                        ),
                    ),
                    _SCALE,
                    schema_name="belief",
                    progress=self._ask(False),
                )
                self._account(graded.stats, decision=False)
                if graded.choice is not None:
                    probs[seat] = float(graded.choice)
            labels = [seat_label(s) for s in others]
            chosen = await self.client.choose(
                self._messages(
                    view,
                    self._render(
                        "intent",
                        view,
                        day=knowledge.day,
                        options="\n".join(f"- {label}" for label in labels),
                    ),
                ),
                [self._presentation.shown(label) for label in labels],
                schema_name="intent",
                progress=self._ask(False),
            )
            self._account(chosen.stats, decision=False)
            if chosen.index is not None:
                intent = others[chosen.index]
        except Exception:
            _log.exception("agent %s (seat %s): stating beliefs failed", self.name, view.seat)
        if len(probs) < len(others) or intent is None:
            extra["belief_failures"] = extra.get("belief_failures", 0) + 1
        self.beliefs.append(
            {
                "day": knowledge.day,
                "seat": view.seat,
                "seq": knowledge.last_event,
                "probs": {str(s): round(p, 4) for s, p in sorted(probs.items())},
                "intent": intent,
                "complete": len(probs) == len(others),
                "source": source,
            }
        )

    # ------------------------------------------------------------------ prompts

    def _messages(self, view: View, question: str) -> list[dict[str, str]]:
        """[system (constant while the seat's role and team stay), user (transcript so
        far + question)]."""
        transcript = fit_transcript(transcript_lines(view.knowledge), self.max_transcript_chars)
        record = self._render("transcript", view, transcript=transcript)
        shown = self._presentation.shown  # the game's shown names (identity by default)
        return [
            {"role": "system", "content": shown(self._system_message(view))},
            {"role": "user", "content": shown(f"{record}\n\n{question}")},
        ]

    def _system_message(self, view: View) -> str:
        """Built once per game, and again only if the seat's role, team or allies change
        (a role change would otherwise leave the old role in the prompt)."""
        knowledge = view.knowledge
        key = (knowledge.role, knowledge.faction, tuple(sorted(knowledge.allies.items())))
        if self._system is None or key != self._system_key:
            self._system_key = key
            players = knowledge.players or len(knowledge.alive)
            from mafia_arena.views.rules_text import rules_text

            variant = view.rules  # the rules travel with the view: nothing is reloaded
            rules = rules_text(variant, players)
            goal = ""
            if knowledge.faction in variant.factions:
                goal = variant.factions[knowledge.faction].description
            names = self._display_names(view)
            team, others = (
                ", ".join(f"{seat_label(s)} ({names.role(r)})" for s, r in sorted(known.items()))
                for known in _teammates(view)
            )
            allies = f"Your teammates: {team}." if team else ""
            if others:
                allies += f"{' ' if allies else ''}You know these roles (not your team): {others}."
            persona = self.definition.persona
            self._system = self.templates.render(
                "system",
                {
                    **self._values(view),
                    "rules": rules,
                    "goal": goal,
                    "allies": allies,
                    "persona": f"Your style: {persona}" if persona else "",
                },
            )
        return self._system

    def _display_names(self, view: View) -> DisplayNames:
        """The variant's readable names of roles and cards (`views.display_names`),
        built once per variant: the prompts name a role as the transcript does."""
        if self._names is None or self._names[0] is not view.rules:
            self._names = (view.rules, DisplayNames.of(view.rules))
        return self._names[1]

    def _values(self, view: View) -> dict[str, object]:
        knowledge = view.knowledge
        role = knowledge.role
        values: dict[str, object] = {
            "seat": seat_label(view.seat),
            "role": self._display_names(view).role(role) if role else "unknown",
            "faction": knowledge.faction or "unknown",
            "day": knowledge.day,
        }
        if view.rules.palermo is not None:  # the seat's state, card and windows now
            request = view.request
            phase = request.info.get("phase") if request is not None else None
            values["situation"] = palermo_situation(
                view.rules,
                view.seat,
                knowledge.states,
                knowledge.card,
                str(phase or knowledge.phase),
            )
        return values

    def _render(self, name: str, view: View, **values: object) -> str:
        return self.templates.render(name, {**self._values(view), **values})

    # ------------------------------------------------------------------ accounting

    def _account(self, stats: CallStats, *, decision: bool = True) -> None:
        s = self.stats
        if stats.attribution == "infrastructure":
            self._infra_failure_s += stats.latency_s
        if stats.usage_estimated:
            s.extra["usage_estimated"] = s.extra.get("usage_estimated", 0) + stats.usage_estimated
        s.tokens_in += stats.prompt_tokens
        s.tokens_out += stats.completion_tokens
        s.cost += stats.cost
        s.latency_s += stats.latency_s
        if decision:
            s.reasks += stats.reasks
            s.retries += stats.retries
        else:
            s.extra["belief_reasks"] = s.extra.get("belief_reasks", 0) + stats.reasks
            s.extra["belief_retries"] = s.extra.get("belief_retries", 0) + stats.retries
        prefix = "" if decision else "belief_"
        for counted, split in (("retries", stats.retry_causes), ("reasks", stats.reask_causes)):
            for cause, count in split:
                key = f"{prefix}{counted}_{cause}"
                s.extra[key] = s.extra.get(key, 0) + count


FORUM_CONTENT = {
    "post": "Write your post for the public thread.",
    "pm": "Write your private message to {who}; only {who} will read it.",
    "ad": "Write your anonymous newspaper ad; it is published under a pseudonym only.",
    "testament": "Write your testament; it is published when you leave the game.",
    "murder": "Write the death message for {who}: who was murdered and how.",
}
"""The content question of each forum form that carries text (`LLMAgent._forum`)."""


def _schema_name(kind: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in kind)[:64] or "choice"
