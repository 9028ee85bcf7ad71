"""What a tournament's games were played with: code version and content digests of inputs.

Resume promises that an interrupted-and-resumed run equals an uninterrupted one. That
only holds if nothing that decides a game changed in between, so the results folder
keeps a manifest (``manifest.json``) of what its games were played with, and the driver
compares it with the present before playing more:

* `code_provenance` (`mafia_arena.code_identity`): the package version, the git commit
  when the package runs from a checkout (None otherwise), and a digest of the package's
  own source files, which also catches an uncommitted one-line edit of a scripted agent;
  every game log carries the same in ``meta["code"]``;
* `Experiment.inputs` (built by `plan.resolve`): a digest per variant file, agent file,
  prompt template (of LLM agent files) and file an agent file names (an RL policy) the
  spec uses (the agent file holds the model parameters). These are also hashed into the
  spec hash, each with a stable name of the file (`agent_file_inputs`), so a changed,
  renamed or swapped input is a changed spec. The manifest keeps them by names free of
  the machine's paths (`input_names`), which say what changed (`input_differences`).

* `pool_builds`: per agent with a card, the build that plays (``builds``: the local
  server's and weights' versions and the GGUF's sha256, a policy file's sha256 and the
  numpy version), which neither of the above covers: a store whose games were played
  by another build is refused like one of other code (`build_differences`); a
  manifest written before builds were recorded resumes as before;
* ``host_key_fingerprint`` (`seat_seeds.host_key_fingerprint`): which host key dealt
  the seats their seeds, so two folders played with different keys are told apart; a
  resume whose key file is gone or holds another key is refused (`folder_host_key`).

A manifest that is there but cannot be read (`read_manifest`: `ManifestError`) stops a
resume: treating it as missing would skip the code check and overwrite the evidence.
`differences` says, one item per line, what changed between two manifests. Each record
carries the ``code`` part too, so a store mixed on purpose (``force_resume``) shows which
games were played by which code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from mafia_arena.code_identity import code_identity
from mafia_arena.experiments.errors import ResultsConflict
from mafia_arena.input_files import spec_projects
from mafia_arena.output_folders import naming, write_whole
from mafia_arena.results_file import MANIFEST_NAME, card_build, json_line
from mafia_arena.seat_seeds import KEY_FILE, host_key_fingerprint, load_or_create_host_key

if TYPE_CHECKING:
    from mafia_arena.agents.base import Agent


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes, 16 hex digits."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def code_provenance() -> dict[str, str | None]:
    """``{"version", "commit", "digest"}`` of the running package (`code_identity`)."""
    return code_identity()


def display_name(path: Path, spec_path: Path) -> str:
    """How a message names an input file: relative to the working folder or the spec's
    repository when it lies inside one of them, else absolute."""
    path = path.resolve()
    for base in spec_projects(spec_path):
        try:
            return path.relative_to(base.resolve()).as_posix()
        except ValueError:
            continue
    return path.as_posix()


OUTSIDE = "..."
"""What stands for the folders of an input file outside the project in its manifest
name (`input_name`: ``.../my-variant.toml``)."""


OWN = "./"
"""What marks a project's file that has the name of a file the package brings, in its
manifest name (`input_names`: ``./agents/prompts/speak.txt``): its path from the
project, not the bundled file's."""


def input_name(path: Path, spec_path: Path) -> str:
    """The manifest's name of an input file (``inputs``): a bundled variant as
    ``envs/<file>`` and a default prompt template as ``agents/prompts/<file>`` wherever
    the package lies; another file by its path from the working folder or the spec's
    repository when it lies in one of them (`display_name`); a file outside both by its
    file name after `OUTSIDE` (`input_names` tells such files of one name apart).

    Why: the names are written into a results folder that travels (copied to another
    machine, published) and compared when it is resumed (`input_differences`). Taken
    from where the package or the spec happen to lie, a bundled file was named
    ``h3_tree/envs/simple.toml`` beside a spec in a temporary folder, or by an absolute
    path from an installed package, and a file outside the project by its absolute
    path: names that told nothing of the game, changed with the folder the run started
    from, and published the home folder of whoever played it."""
    path = path.resolve()
    bundled = _bundled_name(path)
    if bundled is not None:
        return bundled
    shown = display_name(path, spec_path)
    return f"{OUTSIDE}/{path.name}" if Path(shown).is_absolute() else shown


def input_names(files: Mapping[Path, str], spec_path: Path) -> dict[str, str]:
    """``{input_name: digest}`` of `files` (``{path: digest}``), as the manifest's
    ``inputs`` keep them, so that no digest hides another's: files outside the project
    that share a file name are named by as many of their last folders as tell them
    apart (``.../a/x.toml``, ``.../b/x.toml``); of other files that share a name (a
    project's own ``agents/prompts/speak.txt`` beside the bundled one), the bundled one
    keeps it and the project's is named by its path from the project, marked as such
    (`OWN`: ``./agents/prompts/speak.txt``); project files that still share a name
    (one from the working folder, one from the spec's repository) are numbered after
    the first (``./agents/prompts/speak.txt (2)``).

    Why mark the project's: a bare number said that some other file had the name, not
    which of the two was the project's own, so a reader of the manifest (or of a refused
    resume's "changed" line) could not tell whether the edited template was theirs."""
    named: dict[str, dict[Path, str]] = {}
    for path, digest in files.items():
        named.setdefault(input_name(path, spec_path), {})[path.resolve()] = digest
    inputs: dict[str, str] = {}
    for name, found in named.items():
        if len(found) == 1:
            inputs[name] = next(iter(found.values()))
        elif name.startswith(f"{OUTSIDE}/"):
            depth = 1
            while len({_tail(p, depth) for p in found}) < len(found):
                depth += 1
            inputs.update({f"{OUTSIDE}/{_tail(p, depth)}": d for p, d in found.items()})
        else:
            paths = sorted(found, key=lambda p: (_bundled_name(p) is None, str(p)))
            own = name
            if _bundled_name(paths[0]) is not None:
                inputs[name] = found[paths.pop(0)]
                own = f"{OWN}{name}"
            inputs[own] = found[paths[0]]
            inputs.update({f"{own} ({i})": found[p] for i, p in enumerate(paths[1:], 2)})
    return inputs


def _tail(path: Path, depth: int) -> str:
    """The last `depth` parts of `path` (the root's separator left out), with ``/``."""
    return "/".join(part for part in path.parts[-depth:] if part != path.anchor)


def _bundled_name(path: Path) -> str | None:
    """The name of the resolved `path` among the files the package brings
    (`_bundled_folders`: ``envs/simple.toml``); None for any other file."""
    for prefix, folder in _bundled_folders():
        if path.is_relative_to(folder):
            return f"{prefix}/{path.relative_to(folder).as_posix()}"
    return None


def _bundled_folders() -> list[tuple[str, Path]]:
    """The folders of the files the package brings, with the name each has in a
    checkout: the bundled variants (``envs``) and the default prompt templates
    (``agents/prompts``), wherever they are installed."""
    from mafia_arena.agents.llm_prompts import default_prompts_dir
    from mafia_arena.rules.loader import envs_dir

    folders: list[tuple[str, Path]] = []
    with contextlib.suppress(FileNotFoundError):  # no bundled variants: none to name
        folders.append(("envs", envs_dir().resolve()))
    prompts = default_prompts_dir()
    if prompts is not None:
        folders.append(("agents/prompts", prompts.resolve()))
    return folders


def agent_file_inputs(agent_file: Path) -> dict[str, Path]:
    """Every file that decides the games of an agent file, by a stable name: the agent
    file (its file name), the prompt templates its kind renders (`prompt_files`) and the
    files it names (`referenced_files`).

    The names are hashed with the contents into the spec hash: hashing the contents
    alone would give two templates whose texts were swapped, or a template renamed (so
    that it answers another request kind), the same hash, and a resume would mix games
    played with different prompts. They do not depend on where the repository lies, so
    moving a run to another folder or machine keeps its spec hash."""
    files = {agent_file.name: agent_file.resolve()}
    for name, path in [*prompt_files(agent_file).items(), *referenced_files(agent_file).items()]:
        files.setdefault(name, path)
    return files


def prompt_files(agent_file: Path) -> dict[str, Path]:
    """Every prompt template an LLM agent file can use, by name: the default templates
    (``agents/prompts/<name>``: the repository's or the installed package's copy) and
    the ``prompts/`` folder next to the agent file (``prompts/<name>``), a superset of
    what it renders, so no template it reads is left out of the hash.

    Agent files of another ``kind`` (an RL policy) render no prompt: {}, so editing a
    template does not change the identity of tournaments that seat only such agents."""
    from mafia_arena.agents.llm_prompts import default_prompts_dir
    from mafia_arena.llm.definition import declared_kind

    if declared_kind(agent_file) not in (None, "llm"):
        return {}
    folders: list[tuple[str, Path]] = []
    default = default_prompts_dir()
    if default is not None:
        folders.append(("agents/prompts", default.resolve()))
    local = (agent_file.parent / "prompts").resolve()
    if default is None or local != default.resolve():  # the same folder is named once
        folders.append(("prompts", local))
    found: dict[str, Path] = {}
    for prefix, folder in folders:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    found[f"{prefix}/{path.relative_to(folder).as_posix()}"] = path.resolve()
    return found


def referenced_files(agent_file: Path) -> dict[str, Path]:
    """Files an agent file names by a string value (an RL agent's ``policy``, a prompt
    ``prompt_template`` file), found next to the agent file or in the working folder,
    by the value as written: their bytes decide games as much as the agent file's own
    do."""
    import tomllib

    from mafia_arena.toml_file import parse_toml

    try:
        data = parse_toml(agent_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # the agent's own loader says what is wrong with the file
    found: dict[str, Path] = {}
    for value in _strings(data):
        if "/" not in value and "." not in value:
            continue
        for base in (agent_file.parent, Path.cwd()):
            candidate = base / value
            if candidate.is_file() and candidate.resolve() != agent_file.resolve():
                found.setdefault(value, candidate.resolve())
                break
    return found


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def manifest(
    spec_hash: str,
    inputs: dict[str, str],
    store_id: str,
    builds: Mapping[str, Mapping[str, Any]] | None = None,
    host_key: bytes | None = None,
) -> dict[str, Any]:
    """The manifest of a results folder: `spec_hash`, `store_id`, the ``code``, the
    ``inputs``' digests, ``builds`` (`pool_builds`: what a resume must match beyond
    the spec and the code; {} for a pool without cards) and, given the folder's host
    key, ``host_key_fingerprint`` (`seat_seeds.host_key_fingerprint`, never the key:
    two folders played with different keys deal their seats other seeds)."""
    data: dict[str, Any] = {
        "spec_hash": spec_hash,
        "store_id": store_id,
        "code": code_provenance(),
        "inputs": dict(sorted(inputs.items())),
        "builds": {name: dict(build) for name, build in sorted((builds or {}).items())},
    }
    if host_key is not None:
        data["host_key_fingerprint"] = host_key_fingerprint(host_key)
    return data


def folder_host_key(
    folder: Path, old: Mapping[str, Any] | None, games: int, new: bytes | None = None
) -> bytes:
    """The host key of the results `folder` (`seat_seeds.load_or_create_host_key`: the
    key file there, else one created from `new` or drawn), once it is the key that
    played the folder's `games` stored games, which the manifest `old` names by its
    ``host_key_fingerprint``. Raises `ResultsConflict`, in one line naming the key file,
    both fingerprints and the ways on, when the file is gone (and `new` is not that key)
    or holds another key; a missing key is then not created, so the folder stays as it
    was. Without stored games, or with a manifest from before fingerprints were
    recorded, there is nothing to compare: the folder's key is used as before.

    Why refuse, and why even ``force_resume`` does not pass: every seat's seed is derived
    from the key, so a replaced or recreated key plays the resumed games (and void games
    played again) with other seeds than the stored ones, and rewriting the manifest
    would erase the fingerprint of the key that played those. Unlike code or builds,
    which each record names, no record names its key (it stays with the host), so a
    store of two keys could not say which games either one played."""
    recorded = old.get("host_key_fingerprint") if old is not None else None
    path = folder / KEY_FILE
    if not games or not isinstance(recorded, str) or not recorded:
        return load_or_create_host_key(folder, new)
    if not path.is_file() and (new is None or host_key_fingerprint(new) != recorded):
        raise _key_conflict(path, games, recorded, "is missing")
    key = load_or_create_host_key(folder, new)
    if host_key_fingerprint(key) != recorded:
        raise _key_conflict(
            path, games, recorded, f"holds another key (fingerprint {host_key_fingerprint(key)})"
        )
    return key


def _key_conflict(path: Path, games: int, recorded: str, what: str) -> ResultsConflict:
    """The refusal of a resume whose key file `path` `what` (is missing, holds another
    key), with the ways on."""
    return ResultsConflict(
        f"{path} {what}, but the {games} stored games were played with the key of "
        f"fingerprint {recorded} ({MANIFEST_NAME}); resuming would deal their seats other "
        "seeds. Restore that key file from a copy, or pass --no-resume (resume=False) to "
        "archive the games and start over, or use another results folder (--results)."
    )


def pool_builds(agents: Iterable[Agent]) -> dict[str, dict[str, Any]]:
    """``{agent name: build}`` of the pool's agents that have a card (`Agent.card`):
    the card's keys that say which build plays (`results_file.card_build`: an LLM
    player's settings' hash and, for the bundled server, ``local_model``, the server's
    and weights' versions and the GGUF's sha256; a trained policy's file, its sha256,
    its fallback and the numpy version), as this process computes them.

    Why in the manifest: the spec hash covers the bytes of the agent and policy files
    and the code identity covers the package, but not the installed libraries or the
    weights file the local server loads; a resume after upgrading llama-cpp-python
    would otherwise mix two builds in one store silently."""
    cards: dict[str, Mapping[str, Any]] = {}
    for agent in agents:
        card = agent.card()
        if card is not None:
            cards.setdefault(agent.name, card)
    builds = {name: card_build(card) for name, card in sorted(cards.items())}
    return {name: build for name, build in builds.items() if build}


def build_differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What changed in the agents' builds (``builds``), one item per changed value,
    ``<agent>: <key> <before> -> <after>`` (nested keys dotted: ``local_model.gguf_sha256``);
    [] when the same, or when `old` records no builds (a manifest written before they
    were recorded: such a store resumes as before)."""
    if "builds" not in old:
        return []
    before, after = old.get("builds") or {}, new.get("builds") or {}
    lines = []
    for agent in sorted(set(before) | set(after)):
        if agent not in after:
            lines.append(f"{agent}: its build is no longer recorded")
            continue
        if agent not in before:
            lines.append(f"{agent}: a build not recorded before")
            continue
        was, now = _dotted(before[agent]), _dotted(after[agent])
        lines += [
            f"{agent}: {key} {was.get(key)} -> {now.get(key)}"
            for key in sorted(set(was) | set(now))
            if was.get(key) != now.get(key)
        ]
    return lines


def _dotted(value: Any, prefix: str = "") -> dict[str, Any]:
    """`value`'s leaves by dotted key (a value that is no mapping: itself, under `prefix`)."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    found: dict[str, Any] = {}
    for key, item in value.items():
        found.update(_dotted(item, f"{prefix}.{key}" if prefix else str(key)))
    return found


class ManifestError(ResultsConflict):
    """A results folder's ``manifest.json`` exists but cannot be read as a manifest.

    The message names the file and the reason. A resume must not treat it as missing:
    that path (a store from before manifests) skips the check that the stored games
    were played by this code, then overwrites the only record of the code that did."""


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of `folder`; None when it has none (a store from before manifests).

    Raises `ManifestError` when the file is there but unreadable, not JSON, or not a
    JSON object (truncated, hand-edited), and leaves it as it is."""
    path = folder / MANIFEST_NAME
    try:
        data = json_line(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _manifest_error(path, f"cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise _manifest_error(path, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        reason = f"not JSON ({exc.msg}, line {exc.lineno} column {exc.colno})"
        raise _manifest_error(path, reason) from None
    if not isinstance(data, dict):
        raise _manifest_error(path, "not a JSON object")
    return data


def _manifest_error(path: Path, reason: str) -> ManifestError:
    """The error for an unusable manifest: what is wrong, and the ways on."""
    return ManifestError(
        f"{path}: {reason}. It records the code and inputs that played the stored games, "
        "so whether resuming would mix two versions cannot be checked. Restore the file, "
        "pass --no-resume (resume=False) to archive the games and start over, or use "
        "another results folder (--results)."
    )


def write_manifest(folder: Path, data: dict[str, Any]) -> None:
    """Write atomically (`output_folders.write_whole`: temporary file, fsync, rename), so
    an interrupt or a full disk leaves the previous manifest whole and no temporary
    file; a failed write names the file it was writing (`output_folders.naming`)."""

    def dump(temporary: Path) -> None:
        try:
            with temporary.open("w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise naming(exc, temporary) from exc

    write_whole(folder / MANIFEST_NAME, dump)


def input_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed among the input files, one line each.

    A name of an older manifest that names the same file as a present one in another
    way (``h3_tree/envs/simple.toml`` or an absolute path for ``envs/simple.toml``,
    before `input_name` named files as it does) is taken for that file, when it is the
    only present name it can be (`_same_file`): a file is not reported as gone and
    new for its name alone, and a changed one is reported as changed."""
    before, after = old.get("inputs") or {}, new.get("inputs") or {}
    was = {name: name for name in before if name in after}
    fresh = [name for name in after if name not in before]
    for name in sorted(set(before) - set(after)):
        matches = [new_name for new_name in fresh if _same_file(name, new_name)]
        if len(matches) == 1:
            was[matches[0]] = name
            fresh.remove(matches[0])
    lines = []
    for name in sorted(set(after) | (set(before) - set(was.values()))):
        if name not in after:
            lines.append(f"{name} is no longer used")
        elif name not in was:
            lines.append(f"{name} is new")
        elif before[was[name]] != after[name]:
            lines.append(f"{name} changed (content {before[was[name]]} -> {after[name]})")
    return lines


def _same_file(old: str, new: str) -> bool:
    """Whether manifest names `old` and `new` may name one file: the parts of one
    (`OUTSIDE` and the root left out) end the other's."""
    a, b = (
        [p for p in PurePosixPath(name).parts if p not in (OUTSIDE, "/")] for name in (old, new)
    )
    shorter, longer = sorted((a, b), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def code_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed in the code, one line each; [] when version and source are the same.

    A new commit that leaves the package source as it was (docs, tests) is no change:
    the games it plays are the same. When there is a change, the commits are named too.
    """
    before, after = old.get("code") or {}, new.get("code") or {}
    if all(before.get(k) == after.get(k) for k in ("version", "digest")):
        return []
    labels = {"version": "package version", "commit": "git commit", "digest": "source digest"}
    return [
        f"{labels[key]} {before.get(key)} -> {after.get(key)}"
        for key in ("version", "commit", "digest")
        if before.get(key) != after.get(key)
    ]
