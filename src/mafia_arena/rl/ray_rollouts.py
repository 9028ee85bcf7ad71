"""Rollout workers on Ray: the training envs stepped in Ray actors instead of in-process.

Why: collecting games is most of a training run's time (the scripted players' turns),
and it parallelises across cores or machines while the PPO update stays in the driver.
`RayVecEnv` is a Stable-Baselines3 `VecEnv` whose envs live in `workers` Ray actors,
each holding an in-process `DummyVecEnv` of its share of the envs (env i goes to actor
i // share, so the order of envs is the in-process order). `MaskablePPO` sees a VecEnv
like any other: `step`, `reset` and `env_method("action_masks")` (the masks) are
forwarded, one call per actor and step, the actors working in parallel.

Seeds travel with `reset` exactly as `DummyVecEnv` uses them, so a run with rollout
workers collects the same games as one without and trains the same policy: only where
the envs step differs. A private local cluster is started on 127.0.0.1 unless Ray is
already initialised or an address is given (`local_ray.ensure_ray`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from mafia_arena.rl.team_env import TeamEnv, TeamSetup


class RolloutWorker:
    """One Ray actor's envs: a `DummyVecEnv` of `TeamEnv`s with the given seeds."""

    def __init__(self, setup: TeamSetup, seeds: Sequence[int]) -> None:
        self.vec = DummyVecEnv([_env_factory(setup, seed) for seed in seeds])

    def reset(self, seeds: list[int | None], options: list[dict[str, Any]]) -> Any:
        self.vec._seeds = list(seeds)
        self.vec._options = list(options)
        return self.vec.reset(), self.vec.reset_infos

    def step(self, actions: np.ndarray) -> Any:
        return self.vec.step(actions)

    def call(self, method: str, indices: list[int], args: tuple, kwargs: dict) -> list[Any]:
        return self.vec.env_method(method, *args, indices=indices, **kwargs)

    def get(self, attr: str, indices: list[int]) -> list[Any]:
        return self.vec.get_attr(attr, indices=indices)

    def set(self, attr: str, value: Any, indices: list[int]) -> None:
        self.vec.set_attr(attr, value, indices=indices)


def _env_factory(setup: TeamSetup, seed: int) -> Callable[[], TeamEnv]:
    return lambda: TeamEnv(setup, seed=seed)


class RayVecEnv(VecEnv):
    """The envs with these seeds, stepped in `workers` Ray actors (module docstring)."""

    def __init__(
        self,
        setup: TeamSetup,
        seeds: Sequence[int],
        workers: int,
        *,
        address: str | None = None,
    ) -> None:
        import ray

        from mafia_arena.local_ray import ensure_ray

        self.ray = ray
        self.started = ensure_ray(address, workers)
        workers = max(1, min(workers, len(seeds)))
        share = -(-len(seeds) // workers)  # ceil: every actor but the last holds `share`
        self.slices = [
            range(start, min(start + share, len(seeds))) for start in range(0, len(seeds), share)
        ]
        actor: Any = ray.remote(num_cpus=1)(RolloutWorker)
        self.actors: list[Any] = [
            actor.remote(setup, [seeds[i] for i in part]) for part in self.slices
        ]
        probe = TeamEnv(setup)
        super().__init__(len(seeds), probe.observation_space, probe.action_space)
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        refs = [
            actor.reset.remote([self._seeds[i] for i in part], [self._options[i] for i in part])
            for actor, part in zip(self.actors, self.slices, strict=True)
        ]
        parts = self.ray.get(refs)
        self.reset_infos = [info for _, infos in parts for info in infos]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate([obs for obs, _ in parts])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> Any:
        assert self._actions is not None, "step_async() first"
        refs = [
            actor.step.remote(self._actions[part.start : part.stop])
            for actor, part in zip(self.actors, self.slices, strict=True)
        ]
        parts = self.ray.get(refs)
        obs = np.concatenate([p[0] for p in parts])
        rewards = np.concatenate([p[1] for p in parts])
        dones = np.concatenate([p[2] for p in parts])
        infos = [info for p in parts for info in p[3]]
        return obs, rewards, dones, infos

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        refs = [
            actor.call.remote(method_name, local, method_args, method_kwargs)
            for actor, local in self._targets(indices)
        ]
        return [value for values in self.ray.get(refs) for value in values]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        refs = [actor.get.remote(attr_name, local) for actor, local in self._targets(indices)]
        return [value for values in self.ray.get(refs) for value in values]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self.ray.get(
            [actor.set.remote(attr_name, value, local) for actor, local in self._targets(indices)]
        )

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))  # TeamEnvs are never wrapped

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        if self.started:
            self.ray.shutdown()
            self.started = False

    # ------------------------------------------------------------------ internals
    def _targets(self, indices: Any) -> list[tuple[Any, list[int]]]:
        """(actor, its local env indices) for the envs named by `indices`, in order."""
        wanted = list(self._get_indices(indices))
        targets = []
        for actor, part in zip(self.actors, self.slices, strict=True):
            local = [i - part.start for i in wanted if i in part]
            if local:
                targets.append((actor, local))
        return targets
