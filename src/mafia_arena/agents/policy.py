"""`rl` agent files: a trained policy plays the decisions it learned, a fallback the rest.

```toml
# agents/rl-town-votes.toml
name = "rl-town-votes"
kind = "rl"
policy = "policies/rl-town-votes.npz"   # relative to this file
fallback = "heuristic"                  # optional; the policy file names one too
```

The policy file (`agents.policy_file`) says which variant, player count, side and request
kinds it was trained for, and the observation layout (``observation`` in the header:
`views.encode_history.ObservationSpec`; files without it are v0). `PolicyAgent`
encodes its seat's view exactly as the env did in training (that layout, the action
table's mask, egocentric action ids turned back into seats) and takes the most likely
legal action for those requests (a policy trained with ``advice`` in its header also
sees the fallback's own choice, `agents.advice`); every other request — another kind,
another side, a game the policy does not fit (variant or player count) — goes to the
fallback player, which also sees every view so its memory stays complete. Only numpy
is needed, so any worker (Ray, the web app, the CLI) can seat it by its file name.
"""

from __future__ import annotations

import tomllib
from typing import Any

from mafia_arena.agents.advice import advice_id, with_advice
from mafia_arena.agents.base import Agent, SyncAgent
from mafia_arena.agents.files import agent_file_kind, resolve_agent_file
from mafia_arena.agents.policy_file import PolicyFile, table_hash
from mafia_arena.agents.registry import make_agent, register_loader
from mafia_arena.engine.choices import Decision
from mafia_arena.env.actions import build_action_table
from mafia_arena.rules import load_variant
from mafia_arena.views.encode_history import ObservationSpec, make_encoder
from mafia_arena.views.view import View

RL_KIND = "rl"


class PolicyAgent(SyncAgent):
    """A trained policy with a fallback player (see the module docstring)."""

    kind = RL_KIND

    def __init__(self, name: str, policy: PolicyFile, fallback: Agent) -> None:
        super().__init__()
        if not isinstance(fallback, SyncAgent):
            raise ValueError(f"fallback {fallback.name!r} of {name!r} must be a scripted player")
        self.name = name
        self.policy = policy
        self.fallback = fallback
        header = policy.header
        self.players = int(header["players"])
        self.kinds = frozenset(header["kinds"])
        self.trained_variant = load_variant(header["variant"], dict(header.get("overrides", {})))
        self.variant_name = header["variant"]
        self.side = header["side"]
        self.table = build_action_table(self.trained_variant, self.players)
        if table_hash(list(self.table.keys)) != header["table_hash"]:
            raise ValueError(
                f"{name}: the policy's action table no longer matches variant "
                f"{header['variant']!r} at {self.players} players (retrain it)"
            )
        try:
            self.observation = ObservationSpec.from_header(header.get("observation"))
        except ValueError as exc:
            raise ValueError(f"{name}: {exc} (retrain it or update mafia-arena)") from None
        self.encoder = make_encoder(self.trained_variant, self.players, self.observation)
        # a policy trained with advice sees its co-player's choice; the fallback gives it
        self.advice = header.get("advice")
        if self.advice is not None and self.advice != fallback.name:
            raise ValueError(
                f"{name}: the policy was trained on {self.advice!r}'s advice, "
                f"so its fallback must be {self.advice!r}, not {fallback.name!r}"
            )
        size = self.encoder.size + (self.table.size if self.advice is not None else 0)
        if size != int(header["observation_size"]):
            raise ValueError(
                f"{name}: the policy expects {header['observation_size']} observation "
                f"values, the encoder now gives {size} (retrain it)"
            )
        self.seat = 0

    def reset(self, seat: int, seed: int) -> None:
        super().reset(seat, seed)
        self.fallback.reset(seat, seed)
        self.encoder.reset()
        self.seat = seat

    def decide(self, view: View) -> Decision:
        request = view.request
        assert request is not None, "decide() needs a view with a request"
        if not self._fits(view) or request.kind not in self.kinds:
            decision = self.fallback.decide(view)
            self.stats.extra["fallback_decisions"] = (
                self.stats.extra.get("fallback_decisions", 0) + 1
            )
            self.stats.decisions += 1
            return decision
        self.stats.decisions += 1
        observation = self.encoder.encode(view)
        egocentric = self.observation.egocentric
        if self.advice is not None:  # as in training: the fallback's own choice, one-hot
            advised = advice_id(self.table, view.seat, self.fallback.decide(view), egocentric)
            observation = with_advice(observation, advised, self.table.size)
        mask = self.table.mask(request).astype(bool)
        if egocentric:
            rotation = self.table.rotation(view.seat)
            return self.table.choice_of(int(rotation[self.policy.act(observation, mask[rotation])]))
        return self.table.choice_of(self.policy.act(observation, mask))

    def _fits(self, view: View) -> bool:
        knowledge = view.knowledge
        if view.variant != self.trained_variant.name or knowledge.players != self.players:
            return False
        factions = self.trained_variant.factions
        faction = knowledge.faction or ""
        side = factions[faction].side if faction in factions else faction
        return side == self.side


def load_policy_agent(spec: str) -> PolicyAgent | None:
    """A `PolicyAgent` for an ``rl`` agent file, else None (not an agent file of ours)."""
    path = resolve_agent_file(spec)
    if path is None or agent_file_kind(path) != RL_KIND:
        return None
    data: dict[str, Any] = tomllib.loads(path.read_text())
    unknown = sorted(set(data) - {"name", "kind", "policy", "fallback", "description"})
    if unknown:
        raise ValueError(f"{path}: key {unknown[0]!r}: unknown in an rl agent file")
    if not isinstance(data.get("policy"), str):
        raise ValueError(f"{path}: key 'policy': the path of a policy file is required")
    policy = PolicyFile.load(path.parent / data["policy"])
    fallback = str(data.get("fallback", policy.header.get("fallback", "heuristic")))
    try:
        fallback_agent = make_agent(fallback)
    except ValueError as exc:
        where = "key 'fallback'" if "fallback" in data else "its policy's fallback"
        raise ValueError(f"{path}: {where}: {exc}") from None
    return PolicyAgent(str(data.get("name", path.stem)), policy, fallback_agent)


register_loader(load_policy_agent)
