"""Train a masked PPO policy from a spec, track it in MLflow, export a policy file.

`train(spec, out)` needs the ``[rl]`` extra (Stable-Baselines3, sb3-contrib and
PyTorch's CPU build). It builds `spec.envs` seeded `TeamEnv`s, trains `MaskablePPO`
(it reads `TeamEnv.action_masks()`, so no illegal move is ever sampled), evaluates the
greedy policy against every opponent of the pool every `eval_every` decisions on
held-out seeded games. With ``rollout_workers`` set the envs step in that many Ray
actors (`rl.ray_rollouts`; same seeds, same games, same policy). With
``imitate_games`` set, the policy (actor and critic) first imitates the co-player on
that many games (`rl.imitate`), so PPO starts at the co-player's level instead of at
random votes. It writes:

- ``policy.npz``: the actor as a numpy policy file (`agents.policy_file`), playable without
  torch by the ``rl`` agent kind (`agents.policy`);
- ``model.zip``: the full Stable-Baselines3 checkpoint (to resume or fine-tune);
- ``curve.csv`` and ``curve.png``: the evaluation win rates over training.

``policy.npz`` and the curve are rewritten at every evaluation, so a long run that is
stopped early leaves its latest evaluated policy behind. Each file is written under a
temporary name and renamed into place (`output_folders.write_whole`), and Ctrl-C or
SIGTERM arriving meanwhile waits until the evaluation's files are all out: a stopped run
leaves neither a half-written file nor a policy and curve of different evaluations. A
run killed outright (SIGKILL) may leave the two of different evaluations and a hidden
temporary file, never a half-written file in their place.

One MLflow run per training (experiment ``train:<name>``) holds the spec's values as
params, the curve as metrics and the files as artifacts.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mafia_arena.agents.policy_file import PolicyFile, table_hash
from mafia_arena.input_files import reference_from, spec_projects
from mafia_arena.output_folders import made_folder, write_whole
from mafia_arena.rl.evaluate import WinRate, win_rate
from mafia_arena.rl.spec import TrainSpec
from mafia_arena.rl.team_env import TeamEnv
from mafia_arena.rules import Variant, custom_file, rules_digest
from mafia_arena.sigterm import interrupts_deferred

IMITATION_SEED = 700_000_000  # the demonstrations' env seed, + the spec's seed


class MissingRLExtra(RuntimeError):
    """The ``[rl]`` extra is not installed."""


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a training run. `saved_step` is the step of the latest
    evaluation whose policy and curve are in `out` (None: none was, and `out` is as it
    was before the run: the folders the run made for it, `out` and any missing parents,
    are removed again, `output_folders.made_folder`); `checkpoint` says
    whether this run's ``model.zip`` is there too (stopped while the run was tracked, at
    the very end). The message says which, in one line, as a stopped tournament's does."""

    def __init__(self, out: Path, saved_step: int | None, checkpoint: bool = False) -> None:
        if saved_step is None:
            message = (
                f"interrupted before the first evaluation; nothing written, {out} left as it was"
            )
        else:
            kept = "" if checkpoint else " (no model.zip)"
            message = (
                f"interrupted; {out} holds the policy and curve evaluated at step "
                f"{saved_step:,}{kept}; run again with --overwrite to train from the start"
            )
        super().__init__(message)
        self.out = out
        self.saved_step = saved_step
        self.checkpoint = checkpoint


@dataclass
class TrainResult:
    policy_path: Path
    curve: list[dict[str, float]]
    final: list[WinRate]


def _sb3() -> tuple[Any, Any]:
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as exc:
        raise MissingRLExtra(
            f"training needs the [rl] extra: pip install -e '.[rl]' ({exc.name} is missing)"
        ) from None
    return MaskablePPO, DummyVecEnv


def export_policy(
    model: Any, spec: TrainSpec, env: TeamEnv, folder: Path | None = None
) -> PolicyFile:
    """The actor of a trained `MaskablePPO` model as a `PolicyFile` to be written to
    `folder`, whose header names the files it was trained with (a variant file of one's
    own, an agent file as fallback or co-player) by their path from `folder` where both
    lie in the project (`recorded_file`); by absolute paths without a `folder`."""
    import torch

    policy = model.policy
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, torch.nn.Linear):
            layers.append(_linear(module))
        elif not isinstance(module, torch.nn.Tanh):
            raise ValueError(f"cannot export layer {module!r}: only Linear and Tanh")
    layers.append(_linear(policy.action_net))
    setup = spec.setup
    header = {
        "name": spec.name,
        "variant": setup.variant,
        "players": setup.players,
        "overrides": setup.overrides,
        "side": setup.side,
        "kinds": list(setup.kinds),
        "fallback": recorded_file(spec.fallback, spec, folder),
        "observation_size": env.observation_size,
        "observation": env.session.observation.header(),
        "advice": recorded_file(setup.co_player, spec, folder) if setup.advice else None,
        "actions": env.actions,
        "table_hash": table_hash(list(env.session.table.keys)),
        "spec": _shown_path(spec.source),
        "spec_hash": spec.digest,
        "steps": spec.steps,
        "seed": spec.seed,
        **trained_file(env.session.variant, spec, folder),
        "trained_with": trained_with(),
    }
    return PolicyFile(layers, header)


def trained_file(variant: Variant, spec: TrainSpec, folder: Path | None) -> dict[str, str]:
    """The header keys naming the variant file of one's own a policy was trained on:
    the variant's ``name``, the file (`recorded_file`: from the policy's `folder` where
    both lie in the project, else its absolute path), its content digest and the
    digest of its rules with the switches (`agents.policy.load_trained_variant`
    reads them); {} for a bundled variant, whose name is enough (its header is as it
    was).

    Why: the spec names the file as its author wrote it, often relative to the folder
    training ran in, and a copy of a bundled file may keep the bundled name: the
    policy could not be seated from another folder, or would be fitted to whatever
    the file says by then."""
    path = custom_file(variant)
    if path is None:
        return {}
    return {
        "variant": variant.name,
        "variant_file": recorded_file(path, spec, folder),
        "variant_digest": variant.digest,
        "rules_digest": rules_digest(variant),
    }


def recorded_file(name: str, spec: TrainSpec, folder: Path | None) -> str:
    """How a policy file written to `folder` names the file `name` its spec gave (a
    variant or agent file: an absolute path, as `rl.spec` resolves it): by its path from
    `folder` when both lie in the working folder or the spec's repository
    (`input_files.reference_from`), else as it is; other names (``heuristic``, a
    bundled variant) and every name without a `folder`, as they are.
    `agents.policy.header_agent` reads it back from the policy file's folder.

    Why: the policy file is moved (into a repository's ``agents/policies/``, to another
    machine) and loaded there; an absolute path named a file of the machine that
    trained it, and showed its home folder to everyone the file was shipped to."""
    path = Path(name)
    if folder is None or not path.is_absolute():
        return name
    return reference_from(path, folder, spec_projects(spec.source))


#: The distributions whose versions decide what a training run learns.
TRAINING_LIBRARIES = ("torch", "stable-baselines3", "sb3-contrib", "gymnasium", "numpy")


def trained_with() -> dict[str, Any]:
    """``{"code": code_identity(), "libraries": {name: version}}`` of this process, for
    the policy file's header (``trained_with``; a library not installed is None).

    Why: the spec hash and seed say what was asked for, not what answered it; the same
    spec trained by another version of the package or of PyTorch or Stable-Baselines3
    learns other weights, and a policy file travels without the run that made it."""
    from mafia_arena.code_identity import code_identity, installed_versions

    return {"code": code_identity(), "libraries": installed_versions(TRAINING_LIBRARIES)}


def _shown_path(source: str) -> str:
    """The spec's path relative to the working folder when inside it (no local prefix
    in a shipped file), else as given."""
    path = Path(source)
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return source


def _linear(module: Any) -> tuple[np.ndarray, np.ndarray]:
    return (
        module.weight.detach().cpu().numpy().astype(np.float32),
        module.bias.detach().cpu().numpy().astype(np.float32),
    )


def train(
    spec: TrainSpec,
    out: str | Path,
    *,
    tracking_uri: str | None = None,
    track: bool = True,
    log: Callable[[str], None] = print,
) -> TrainResult:
    """Train per `spec` into folder `out` (see the module docstring). `spec.steps` 0
    only evaluates and exports the untrained policy; a negative count is refused."""
    if spec.steps < 0:
        raise ValueError(f"steps must not be negative, not {spec.steps}")
    MaskablePPO, DummyVecEnv = _sb3()
    import torch

    torch.manual_seed(spec.seed)
    torch.set_num_threads(1)
    out = Path(out)
    saved: list[int] = []  # the steps whose policy and curve are on disk
    seeds = [spec.seed * 1000 + i for i in range(spec.envs)]
    envs: Any = None
    # stopped (or failed) before anything of the run was written, the folders made for it
    # (`out` and its missing parents) are removed again; one there before is kept
    with made_folder(out):
        try:
            if spec.rollout_workers:
                from mafia_arena.rl.ray_rollouts import RayVecEnv

                address = spec.ray_address or None
                envs = RayVecEnv(spec.setup, seeds, spec.rollout_workers, address=address)
            else:
                envs = DummyVecEnv([(lambda s=s: TeamEnv(spec.setup, seed=s)) for s in seeds])
            return _train(spec, out, envs, MaskablePPO, tracking_uri, track, log, saved)
        except KeyboardInterrupt:
            if not saved:
                raise TrainingInterrupted(out, None) from None
            # once a policy of this run is saved, a model.zip is this run's (`_train`)
            raise TrainingInterrupted(out, saved[-1], (out / "model.zip").exists()) from None
        finally:
            if envs is not None:
                envs.close()


def _train(
    spec: TrainSpec,
    out: Path,
    envs: Any,
    MaskablePPO: Any,
    tracking_uri: str | None,
    track: bool,
    log: Callable[[str], None],
    saved: list[int],
) -> TrainResult:
    """The run itself; each evaluation step whose files are written is appended to
    `saved`, so an interrupted run can say what it left."""
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        learning_rate=spec.learning_rate,
        n_steps=spec.n_steps,
        batch_size=spec.batch_size,
        ent_coef=spec.ent_coef,
        gamma=1.0,
        policy_kwargs={"net_arch": {"pi": list(spec.net), "vf": list(spec.net)}},
        seed=spec.seed,
        device="cpu",
        verbose=0,
    )
    # a silent logger of our own: SB3's default one makes an empty SB3-<time> folder in
    # the temporary folder at every `learn` call (the curve is tracked here, not by SB3)
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(None, []))
    if spec.imitate_games:
        from mafia_arena.rl.imitate import demonstrations, pretrain

        demos = demonstrations(spec.setup, spec.imitate_games, IMITATION_SEED + spec.seed)
        match = pretrain(
            model.policy,
            demos,
            epochs=spec.imitate_epochs,
            smoothing=spec.imitate_smoothing,
            seed=spec.seed,
        )
        log(f"imitated {len(demos)} co-player decisions: greedy match {match:.3f}")
    probe = TeamEnv(spec.setup)
    curve: list[dict[str, float]] = []

    def evaluate(step: int) -> list[WinRate]:
        policy = export_policy(model, spec, probe, out)
        rates = [
            win_rate(spec.setup, "policy", policy.act, opponent, spec.eval_games)
            for opponent in spec.setup.opponents
        ]
        point = {"step": float(step), **{f"win_vs_{r.opponent}": r.rate for r in rates}}
        curve.append(point)
        shown = "  ".join(f"{r.opponent} {r.shown(interval=False)}" for r in rates)
        log(f"step {step:>8}: {shown}")
        if step:  # the latest policy is on disk at every evaluation, not only at the end
            with interrupts_deferred():  # policy, curve and `saved` agree when stopped
                if not saved:  # a previous run's checkpoint (--overwrite) is not this policy's
                    (out / "model.zip").unlink(missing_ok=True)
                write_whole(out / "policy.npz", policy.save)
                _write_curve(curve, out)
                saved.append(step)
        return rates

    final = evaluate(0)
    done = 0
    while done < spec.steps:
        chunk = min(spec.eval_every, spec.steps - done)
        model.learn(chunk, reset_num_timesteps=False)
        done += chunk
        final = evaluate(done)
    policy = export_policy(model, spec, probe, out)
    with interrupts_deferred():
        policy_path = write_whole(out / "policy.npz", policy.save)
        write_whole(out / "model.zip", lambda path: model.save(path))
        _write_curve(curve, out)
        if not saved or saved[-1] != spec.steps:  # steps 0: the first files of the run
            saved.append(spec.steps)
    if track:
        _track(spec, out, curve, tracking_uri)
    return TrainResult(policy_path, curve, final if spec.steps else [])


def _write_curve(curve: list[dict[str, float]], out: Path) -> None:
    keys = list(curve[0])

    def write_table(path: Path) -> None:
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, keys)
            writer.writeheader()
            writer.writerows(curve)

    write_whole(out / "curve.csv", write_table)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = [p["step"] for p in curve]
    for key in keys[1:]:
        ax.plot(steps, [p[key] for p in curve], marker="o", label=key.removeprefix("win_vs_"))
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("win rate of the learner's side")
    ax.set_ylim(0, 1)
    ax.legend(title="opponent")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    try:
        write_whole(
            out / "curve.png",
            lambda path: fig.savefig(path, format="png", dpi=100, metadata={"Software": None}),
        )
    finally:
        plt.close(fig)


def _track(
    spec: TrainSpec, out: Path, curve: list[dict[str, float]], tracking_uri: str | None
) -> None:
    import mlflow

    from mafia_arena.tracking.uri import artifact_location, resolve_tracking_uri

    uri = resolve_tracking_uri(tracking_uri)
    client = mlflow.MlflowClient(tracking_uri=uri)
    name = f"train:{spec.name}"
    experiment = client.get_experiment_by_name(name)
    experiment_id = (  # a local store's artifacts beside its database, as a tournament's
        experiment.experiment_id
        if experiment is not None
        else client.create_experiment(name, artifact_location=artifact_location(uri))
    )
    run = client.create_run(experiment_id, tags={"spec_hash": spec.digest})
    run_id = run.info.run_id
    try:
        params = {k: v for k, v in asdict(spec).items() if k not in ("setup", "extra")}
        params.update({f"setup.{k}": v for k, v in asdict(spec.setup).items()})
        for key, value in params.items():
            client.log_param(run_id, key, str(value)[:500])
        for point in curve:
            for key, value in point.items():
                if key != "step":
                    client.log_metric(run_id, key, value, step=int(point["step"]))
        for path in ("policy.npz", "curve.csv", "curve.png"):
            client.log_artifact(run_id, str(out / path))
        client.set_terminated(run_id, "FINISHED")
    except KeyboardInterrupt:  # as a tournament's runs: none is left RUNNING
        client.set_terminated(run_id, "KILLED")
        raise
    except Exception:
        client.set_terminated(run_id, "FAILED")
        raise
