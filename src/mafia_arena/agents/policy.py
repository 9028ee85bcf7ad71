"""`rl` agent files: a trained policy plays the decisions it learned, a fallback the rest.

```toml
# agents/rl-town-votes.toml
name = "rl-town-votes"
kind = "rl"
policy = "policies/rl-town-votes.npz"   # relative to this file
fallback = "heuristic"                  # optional; the policy file names one too
variant = "../my-variants/two-doctors.toml"  # optional: a policy trained on a file of
                                        # one's own, when that file was moved
```

The policy file (`agents.policy_file`) says which variant, player count, side and request
kinds it was trained for, and the observation layout (``observation`` in the header:
`views.encode_history.ObservationSpec`; files without it are v0). `PolicyAgent`
encodes its seat's view exactly as the env did in training (that layout, the action
table's mask, egocentric action ids turned back into seats) and takes the most likely
legal action for those requests (a policy trained with ``advice`` in its header also
sees the fallback's own choice, `agents.advice`); every other request — another kind,
another side, a game the policy does not fit (other rules or another player count) —
goes to the fallback player, which also sees every view so its memory stays complete.
"Other rules" is judged on the rules themselves (`rules_content`), not the variant's
name: the same variant with other switches (``--set mafia=1``) is another game, and a
file read by path with the bundled variant's rules is the same one. A policy trained on
a variant file of one's own records that file, its content digest and its rules' digest,
and is seated only with those rules (`load_trained_variant`). The fallback is
also told the game's exact variant (`set_variant`), as every seated player is. Only
numpy is needed, so any worker (Ray, the web app, the CLI) can seat it by its file name.

Each decision is counted as the policy's or the fallback's (``policy_decisions`` and
``fallback_decisions`` in `AgentStats.extra`); the game log's header and the results
record keep both, and the leaderboard's ``policy_share`` reads them, so a researcher
sees how much of a policy seat's play was the fallback's (all of it, in a game the
policy does not fit).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import numpy as np

from mafia_arena.agents.advice import advice_id, with_advice
from mafia_arena.agents.base import Agent, SyncAgent
from mafia_arena.agents.files import agent_file_kind, is_dir, is_file, resolve_agent_file
from mafia_arena.agents.policy_file import PolicyFile, answers, check_header, table_hash
from mafia_arena.agents.registry import make_agent, register_loader
from mafia_arena.engine.choices import Decision
from mafia_arena.env.actions import build_action_table
from mafia_arena.input_files import read_reference
from mafia_arena.rules import Variant, load_variant
from mafia_arena.rules.errors import NoSuchVariant, names_a_file
from mafia_arena.rules.loader import rules_content, rules_digest
from mafia_arena.toml_file import (
    TomlFileError,
    joined_problems,
    parse_toml,
    read_toml_text,
    refusal,
    toml_spelling,
    unknown_key,
)
from mafia_arena.views.encode_history import ObservationSpec, make_encoder
from mafia_arena.views.view import View

RL_KIND = "rl"

POLICY_DECISIONS = "policy_decisions"
"""The `AgentStats.extra` counter of the decisions the policy answered itself."""
FALLBACK_DECISIONS = "fallback_decisions"
"""The `AgentStats.extra` counter of the decisions the agent left to its fallback."""


class PolicyAgent(SyncAgent):
    """A trained policy with a fallback player (see the module docstring)."""

    kind = RL_KIND

    def __init__(
        self,
        name: str,
        policy: PolicyFile,
        fallback: Agent,
        variant_file: str | Path | None = None,
        fallback_file: Path | None = None,
    ) -> None:
        """Seat `policy` as `name`; `ValueError` ``FILE: KEY: REASON`` naming the
        policy file (its `source`, else `name`), the header key or array and the reason
        when the policy does not fit this code: a header of the wrong shape
        (`check_header`), a variant, switch, player count, side or layout that cannot be
        set up, an action table or observation size that changed since training, or
        weights that do not chain from the observation to the action table
        (`PolicyFile.check`). Everything a game later reads is checked here, so a policy
        that is built never fails mid-game.

        A policy trained on a variant file of one's own records that file
        (`load_trained_variant`); `variant_file` (the agent file's ``variant``) names
        where it is now, when it was moved. `fallback_file` is the agent file the
        fallback was built from (None for a scripted player): a policy trained on the
        advice of an agent file names that file (``advice``, `header_agent`), not the
        player's name.
        """
        super().__init__()
        if not isinstance(fallback, SyncAgent):
            raise ValueError(f"fallback {fallback.name!r} of {name!r} must be a scripted player")
        self.name = name
        self.policy = policy
        self.fallback = fallback
        where = str(policy.source) if policy.source is not None else name

        def refuse(key: str, reason: object) -> ValueError:
            return ValueError(f"{where}: {key}: {reason}")

        try:
            header = check_header(policy.header)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        self.players = int(header["players"])
        self.kinds = frozenset(header["kinds"])
        self.variant_name = header["variant"]
        overrides = dict(header.get("overrides", {}))
        folder = None if policy.source is None else Path(policy.source).parent
        self.trained_variant = load_trained_variant(header, overrides, variant_file, refuse, folder)
        self.side = header["side"]
        sides = sorted({faction.side for faction in self.trained_variant.factions.values()})
        if self.side not in sides:
            raise refuse("side", f"{self.side!r} is no side of the variant ({', '.join(sides)})")
        try:
            self.table = build_action_table(self.trained_variant, self.players)
        except ValueError as exc:  # the count, or switches that do not deal it
            dealt = f"{self.players} players with the header's overrides: " if overrides else ""
            raise refuse("players", f"{dealt}{exc}") from None
        if table_hash(list(self.table.keys)) != header["table_hash"]:
            raise refuse(
                "table_hash",
                f"the policy's action table no longer matches variant "
                f"{header['variant']!r} at {self.players} players (retrain it)",
            )
        try:
            self.observation = ObservationSpec.from_header(header.get("observation"))
            self.encoder = make_encoder(self.trained_variant, self.players, self.observation)
        except (ValueError, TypeError) as exc:
            raise refuse("observation", f"{exc} (retrain it or update mafia-arena)") from None
        self.trained_rules = rules_content(self.trained_variant)
        self._judged: tuple[Variant, bool] | None = None  # the last rules seen, and their fit
        # a policy trained with advice sees its co-player's choice; the fallback gives it
        self.advice = header.get("advice")
        if self.advice is not None and not _advised_by(
            self.advice, policy, fallback, fallback_file
        ):
            raise refuse(
                "advice",
                f"the policy was trained on {self.advice!r}'s advice, "
                f"so its fallback must be {self.advice!r}, not {fallback.name!r}",
            )
        size = self.encoder.size + (self.table.size if self.advice is not None else 0)
        if size != int(header["observation_size"]):
            raise refuse(
                "observation_size",
                f"the policy expects {header['observation_size']} observation "
                f"values, the encoder now gives {size} (retrain it)",
            )
        try:
            policy.check(actions=self.table.size)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        self.seat = 0

    def reset(self, seat: int, seed: int) -> None:
        """Start a game at `seat`: both counters of who answered (`POLICY_DECISIONS`,
        `FALLBACK_DECISIONS`) start at 0, so every game's log and record show the split,
        also where one side of it is 0 (a game the policy does not fit at all)."""
        super().reset(seat, seed)
        self.stats.extra.update({POLICY_DECISIONS: 0, FALLBACK_DECISIONS: 0})
        self.fallback.reset(seat, seed)
        self.encoder.reset()
        self.seat = seat

    def set_variant(self, variant: Variant) -> None:
        """The game's exact variant, kept and passed on to the fallback: the fallback is
        a player of this game too (it makes every decision the policy does not), and
        the `Agent` protocol tells every player the rules before the first view."""
        super().set_variant(variant)
        self.fallback.set_variant(variant)

    def decide(self, view: View) -> Decision:
        request = view.request
        assert request is not None, "decide() needs a view with a request"
        if not self._fits(view) or not answers(self.kinds, request.kind):
            decision = self.fallback.decide(view)
            self._count(FALLBACK_DECISIONS)
            return decision
        self._count(POLICY_DECISIONS)
        observation = self.encoder.encode(view)
        egocentric = self.observation.egocentric
        if self.advice is not None:  # as in training: the fallback's own choice, one-hot
            advised = advice_id(self.table, request, self.fallback.decide(view), egocentric)
            observation = with_advice(observation, advised, self.table.size)
        mask = self.table.mask(request).astype(bool)
        if egocentric:
            rotation = self.table.rotation(view.seat)
            return self.table.choice_of(int(rotation[self.policy.act(observation, mask[rotation])]))
        return self.table.choice_of(self.policy.act(observation, mask))

    def _count(self, who: str) -> None:
        """One more decision, answered by `who` (`POLICY_DECISIONS` or
        `FALLBACK_DECISIONS`); the two always add up to `stats.decisions`."""
        self.stats.decisions += 1
        self.stats.extra[who] = self.stats.extra.get(who, 0) + 1

    def _fits(self, view: View) -> bool:
        """Whether the policy may answer this view: the game's rules are the trained
        ones (`fits_rules`), and so are the player count and the seat's side."""
        knowledge = view.knowledge
        if knowledge.players != self.players or not self.fits_rules(view.rules):
            return False
        factions = self.trained_variant.factions
        faction = knowledge.faction or ""
        side = factions[faction].side if faction in factions else faction
        return side == self.side

    def card(self) -> dict[str, Any]:
        """What a results record and the game log's header keep of this player
        (``cards``): ``policy``, the policy file's name, and ``policy_sha256``, the
        sha256 of its bytes as loaded (both None for a policy built in memory),
        ``fallback``, the fallback player's name, and ``numpy``, the version of the
        library that computes the policy's answers.

        Why: the agent's name is not the weights that played. Retraining into the same
        file, or another fallback in the agent file, plays other games under the same
        name, and a record or a log read apart from its results folder (whose manifest
        holds the input files' digests) must still say which policy it came from."""
        source = self.policy.source
        return {
            "policy": None if source is None else Path(source).name,
            "policy_sha256": self.policy.sha256,
            "fallback": self.fallback.name,
            "numpy": np.__version__,
        }

    def fits_rules(self, rules: Variant) -> bool:
        """Whether `rules` are the rules the policy was trained on (`rules_content`).

        A view carries the game's variant, so each decision is judged by the game it
        belongs to (no driver has to tell the agent first); the answer is kept for the
        variant object last seen, since a game's views all share one.
        """
        if self._judged is None or self._judged[0] is not rules:
            self._judged = (rules, rules_content(rules) == self.trained_rules)
        return self._judged[1]


def _advised_by(
    advice: str, policy: PolicyFile, fallback: Agent, fallback_file: Path | None
) -> bool:
    """Whether `fallback` is the player whose advice `policy` was trained on: its name
    is the header's `advice`, or `advice` names the agent file `fallback_file` it was
    built from (`header_agent`)."""
    if advice == fallback.name:
        return True
    if fallback_file is None or not names_a_file(advice):
        return False
    return Path(header_agent(advice, policy)).resolve() == fallback_file.resolve()


def header_agent(recorded: str, policy: PolicyFile) -> str:
    """The player a policy's header names as ``fallback`` or ``advice``, as
    `make_agent` takes it: an agent file named by a relative path, from the policy
    file's folder (`input_files.read_reference`: `rl.train.recorded_file` writes it so,
    and the policy file travels), where it is there; otherwise as recorded (a scripted
    player's name, an absolute path, a policy built in memory, or a file written before
    headers named files from their folder, whose relative path was the working
    folder's)."""
    if policy.source is None or not names_a_file(recorded) or Path(recorded).is_absolute():
        return recorded
    path = read_reference(recorded, Path(policy.source).parent)
    return str(path) if is_file(path) else recorded


RL_AGENT_KEYS = ("name", "kind", "policy", "fallback", "description", "variant")
"""The keys of an ``rl`` agent file."""

_LOADING: ContextVar[tuple[Path, ...]] = ContextVar("rl_agent_files_loading", default=())
"""The rl agent files being built in this context, outermost first (fallback chains)."""


class _FallbackCycle(ValueError):
    """Fallbacks that lead back to an agent file being built (told once, outermost)."""


def check_agent_file(path: Path, data: Mapping[str, Any]) -> None:
    """Raise `ValueError` ``PATH: KEY: REASON`` unless an ``rl`` agent file's keys
    are usable: only `RL_AGENT_KEYS`; ``policy`` (required), ``name`` and ``fallback``
    non-empty text; ``description`` text; ``variant`` (the variant file a policy was
    trained on, where it is now, relative to the agent file) non-empty text. Every
    problem is told, each on a line of its own (`toml_file.joined_problems`), as an LLM
    agent file's and a spec's are: a missing ``policy`` first, then the keys in the
    file's order.

    Why: each value becomes a string in the game's records or an agent spec; read as
    anything else (a number, an array, a table), it would be turned into text quietly
    and the agent would play under a name nobody wrote. All at once, so that fixing
    one key does not reveal the next on the following run.
    """
    problems: list[tuple[str, str]] = []
    if "policy" not in data:
        problems.append(("policy", "required key is missing (the path of a policy file)"))
    for key, value in data.items():
        text = isinstance(value, str) and (key == "description" or bool(value.strip()))
        if key not in RL_AGENT_KEYS:
            problems.append((key, unknown_key("an rl agent file's", RL_AGENT_KEYS)))
        elif key != "kind" and not text:
            what = "text" if key == "description" else "non-empty text"
            problems.append((key, f"must be {what}, not {toml_spelling(value)}"))
    if problems:
        key, reason = joined_problems(str(path), problems)
        raise ValueError(f"{path}: {key}: {reason}")


def _loads(variant: str) -> bool:
    """Whether `variant` loads without switches (to tell a bad variant from bad switches)."""
    try:
        load_variant(variant, {})
    except (ValueError, OSError):
        return False
    return True


def load_trained_variant(
    header: Mapping[str, Any],
    overrides: Mapping[str, Any],
    moved_to: str | Path | None,
    refuse: Callable[[str, object], ValueError],
    folder: Path | None = None,
) -> Variant:
    """The variant a policy was trained on, loaded with its switches.

    A policy trained on a bundled variant names it (``variant``) and is loaded by that
    name. One trained on a file of one's own (`rules.loader.custom_file`: a new name,
    or a copy of a bundled file with other rules) also records the file
    (``variant_file``: its path from the policy file's `folder` where both lay in the
    project, read from there, `input_files.read_reference`; else, and in files written
    before, its absolute path), its content digest (``variant_digest``) and the digest of
    its rules with the switches (``rules_digest``, `rules.loader.rules_digest`), as
    `rl.train.export_policy` writes them. That file is read (or `moved_to`, the agent
    file's ``variant``, when it was moved) and taken when its bytes are the recorded
    ones or its rules are (a corrected comment is the same game); otherwise the policy
    is refused, naming the file, both digests and what to do, never fitted to other
    rules. Why: the name alone is not the rules (a copy may keep ``standard``), and a
    new name is in no ``envs/``, so the policy could not be seated later.

    `refuse(key, reason)` builds the caller's error."""
    name = header["variant"]
    recorded = header.get("variant_file")
    if recorded is not None and folder is not None:
        recorded = str(read_reference(recorded, folder))
    if recorded is None:
        try:
            return load_variant(name, overrides)
        except (ValueError, TypeError, OSError) as exc:
            raise refuse("overrides" if overrides and _loads(name) else "variant", exc) from None
    source = str(moved_to) if moved_to is not None else recorded
    trained = (
        f"the policy was trained on the variant file {recorded} (content digest "
        f"{header['variant_digest']}, rules digest {header['rules_digest']})"
    )
    give = 'put that file back, or give where it is now in the agent file: variant = "FILE"'
    try:
        variant = load_variant(source, overrides)
    except NoSuchVariant:
        raise refuse("variant_file", f"no such file {source}; {trained}: {give}") from None
    except (ValueError, TypeError, OSError) as exc:
        raise refuse("variant_file", f"{exc}; {trained}: {give}") from None
    if variant.digest != header["variant_digest"] and (
        rules_digest(variant) != header["rules_digest"]
    ):
        raise refuse(
            "rules_digest",
            f"{variant.origin} has other rules (rules digest {rules_digest(variant)}), and a "
            f"policy is not seated with other rules; {trained}: {give}, or retrain it",
        )
    return variant


def load_policy_agent(spec: str) -> PolicyAgent | None:
    """A `PolicyAgent` for an ``rl`` agent file, else None (not an agent file of ours).

    The agent file (`check_agent_file`), its policy file (`PolicyFile.load`) and the fit
    of the two (`PolicyAgent`) are checked before an agent is returned; each problem is
    a `ValueError` naming the file, the key (or array) and the reason.
    """
    path = resolve_agent_file(spec)
    if path is None or agent_file_kind(path) != RL_KIND:
        return None
    loading = _LOADING.get()
    if path in loading:  # a fallback chain back to itself would recurse without end
        chain = " -> ".join(str(p) for p in (*loading, path))
        raise _FallbackCycle(f"{loading[0]}: fallback: the fallbacks go round ({chain})")
    try:  # read as `agent_file_kind` read it; the file may have changed since
        data = parse_toml(read_toml_text(path))
    except (OSError, TomlFileError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: -: {refusal(exc)}") from None
    check_agent_file(path, data)
    policy_path = path.parent / data["policy"]
    if not is_file(policy_path):
        missing = "is a folder" if is_dir(policy_path) else "does not exist"
        raise ValueError(f"{path}: policy: {policy_path} {missing}, not a policy file")
    policy = PolicyFile.load(policy_path)
    fallback = data.get("fallback")
    if fallback is None:
        fallback = policy.header.get("fallback", "heuristic")
        fallback = header_agent(fallback, policy) if isinstance(fallback, str) else fallback
    where = "fallback" if "fallback" in data else "its policy's fallback"
    token = _LOADING.set((*loading, path))
    try:
        fallback_agent = make_agent(fallback)
    except _FallbackCycle:
        raise
    except ValueError as exc:
        raise ValueError(f"{path}: {where}: {exc}") from None
    finally:
        _LOADING.reset(token)
    moved_to = (path.parent / data["variant"]).resolve() if "variant" in data else None
    if moved_to is not None and "variant_file" not in policy.header:
        raise ValueError(
            f"{path}: variant: the policy was trained on the bundled variant "
            f"{policy.header.get('variant')!r}, not on a file of one's own; leave the key out"
        )
    fallback_file = resolve_agent_file(fallback) if isinstance(fallback, str) else None
    return PolicyAgent(data.get("name", path.stem), policy, fallback_agent, moved_to, fallback_file)


register_loader(load_policy_agent)
