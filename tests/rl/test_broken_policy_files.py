"""Damaged or hostile `rl` agent files and policy files are refused when they are loaded,
before any game starts: `make_agent` raises `ValueError` ``FILE: KEY: REASON`` (the key
of the agent file, or the policy file's header key or array), and the command line
prints that as one paragraph, exit code 2.

Every case is a copy of the shipped agent file and policy file with one thing broken."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.cli.support import assert_one_paragraph, run_cli

from mafia_arena.agents.policy import PolicyAgent
from mafia_arena.agents.policy_file import MAX_HEADER_BYTES, MAX_WEIGHTS, PolicyFile
from mafia_arena.agents.registry import make_agent
from mafia_arena.rules import load_variant, rules_digest

REPO = Path(__file__).resolve().parents[2]
SHIPPED_AGENT = REPO / "agents" / "rl-town-votes.toml"
SHIPPED_POLICY = REPO / "agents" / "policies" / "rl-town-votes.npz"
POLICY = "policies/rl-town-votes.npz"
DESCRIPTION = next(
    line for line in SHIPPED_AGENT.read_text().splitlines() if line.startswith("description")
)

Arrays = dict[str, np.ndarray]


def shipped_arrays() -> tuple[dict[str, Any], Arrays]:
    """The shipped policy's header (as a dict) and its weight arrays."""
    with np.load(SHIPPED_POLICY, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    header = json.loads(bytes(arrays.pop("header")).decode())
    return header, arrays


@dataclass(frozen=True)
class Damage:
    """One broken copy: edits of the agent file's text, the header and the arrays."""

    agent: tuple[str, str] | None = None  # (old, new) in the agent file's text
    header: dict[str, Any] = field(default_factory=dict)  # keys set (None: removed)
    raw_header: bytes | None = None  # the header array's bytes, as written
    arrays: Callable[[Arrays], Arrays] | None = None


def write_copy(folder: Path, damage: Damage) -> tuple[Path, Path]:
    """The damaged agent file and policy file, in `folder` (the policy in policies/)."""
    text = SHIPPED_AGENT.read_text()
    if damage.agent is not None:
        old, new = damage.agent
        assert old in text
        text = text.replace(old, new)
    agent = folder / "agent.toml"
    agent.write_text(text)
    header, arrays = shipped_arrays()
    for key, value in damage.header.items():
        if value is None:
            header.pop(key, None)
        else:
            header[key] = value
    if damage.arrays is not None:
        arrays = damage.arrays(arrays)
    raw = damage.raw_header if damage.raw_header is not None else json.dumps(header).encode()
    policy = folder / POLICY
    policy.parent.mkdir()
    members: dict[str, Any] = {"header": np.frombuffer(raw, np.uint8), **arrays}
    with policy.open("wb") as handle:
        np.savez_compressed(handle, **members)
    return agent, policy


def replaced(name: str, value: np.ndarray) -> Callable[[Arrays], Arrays]:
    return lambda arrays: {**arrays, name: value}


def cut_actions(arrays: Arrays) -> Arrays:
    """The action layer without its last action (a table of one action fewer)."""
    return {**arrays, "w2": arrays["w2"][:-1], "b2": arrays["b2"][:-1]}


def nan_in(name: str) -> Callable[[Arrays], Arrays]:
    def damage(arrays: Arrays) -> Arrays:
        broken = arrays[name].copy()
        broken.flat[7] = np.nan
        return {**arrays, name: broken}

    return damage


RNG = np.random.default_rng(0)

# (id, damage, "agent" or "policy": the file the message names, key, reason)
OWN_FILE = {"variant_file": "/nowhere/own.toml", "variant_digest": "ab", "rules_digest": "cd"}
"""A header that says the policy was trained on a variant file of one's own."""

AGENT_FILE_CASES: list[tuple[str, Damage, str, str]] = [
    (
        "variant-of-a-bundled-policy",
        Damage(agent=('name = "rl-town-votes"', 'name = "rl-town-votes"\nvariant = "x.toml"')),
        "variant",
        "trained on the bundled variant 'standard'",
    ),
    (
        "agent-variant-number",
        Damage(agent=('name = "rl-town-votes"', 'name = "rl-town-votes"\nvariant = 5')),
        "variant",
        "must be non-empty text, not 5",
    ),
    ("name-number", Damage(agent=('name = "rl-town-votes"', "name = 5")), "name", "not 5"),
    (
        "name-array",
        Damage(agent=('name = "rl-town-votes"', 'name = ["a", "b"]')),
        "name",
        "must be non-empty text",
    ),
    (
        "name-table",
        Damage(agent=('name = "rl-town-votes"', "name = { first = 1 }")),
        "name",
        "must be non-empty text",
    ),
    ("name-empty", Damage(agent=('name = "rl-town-votes"', 'name = ""')), "name", 'not ""'),
    (
        "fallback-number",
        Damage(agent=('fallback = "heuristic"', "fallback = 5")),
        "fallback",
        "must be non-empty text, not 5",
    ),
    (
        "fallback-array",
        Damage(agent=('fallback = "heuristic"', 'fallback = ["heuristic"]')),
        "fallback",
        "must be non-empty text",
    ),
    (
        "description-number",
        Damage(agent=(DESCRIPTION, "description = 5")),
        "description",
        "must be text, not 5",
    ),
    (
        "policy-missing",
        Damage(agent=(POLICY, "policies/none.npz")),
        "policy",
        "none.npz does not exist",
    ),
    ("policy-folder", Damage(agent=(POLICY, "policies")), "policy", "is a folder"),
]


HEADER_CASES: list[tuple[str, Damage, str, str]] = [
    ("header-array", Damage(raw_header=b"[1]"), "header", "JSON list, not an object"),
    ("header-not-utf8", Damage(raw_header=b"\xff{"), "header", "not JSON text"),
    ("header-too-deep", Damage(raw_header=b"[" * 50_000), "header", "not JSON text"),
    *[
        (f"missing-{key}", Damage(header={key: None}), key, "missing")
        for key in ("players", "kinds", "variant", "side", "table_hash", "observation_size")
    ],
    ("missing-layers", Damage(header={"layers": None}), "layers", "not None"),
    ("missing-format", Damage(header={"format": None}), "format", "expected"),
    ("players-text", Damage(header={"players": "x"}), "players", "whole number"),
    ("players-fraction", Damage(header={"players": 7.5}), "players", "not 7.5"),
    ("players-true", Damage(header={"players": True}), "players", "not True"),
    ("players-too-few", Damage(header={"players": 3}), "players", "too few"),
    ("kinds-number", Damage(header={"kinds": 5}), "kinds", "list of request kinds"),
    ("kinds-text", Damage(header={"kinds": "vote"}), "kinds", "not 'vote'"),
    ("kinds-of-numbers", Damage(header={"kinds": [5]}), "kinds", "not [5]"),
    ("kinds-empty", Damage(header={"kinds": []}), "kinds", "non-empty"),
    ("variant-number", Damage(header={"variant": 5}), "variant", "not 5"),
    ("variant-unknown", Damage(header={"variant": "nope"}), "variant", "no variant 'nope'"),
    ("overrides-text", Damage(header={"overrides": "x"}), "overrides", "object of switches"),
    ("overrides-unknown", Damage(header={"overrides": {"bogus": 1}}), "overrides", "bogus"),
    ("side-number", Damage(header={"side": 5}), "side", "not 5"),
    ("side-unknown", Damage(header={"side": "nobody"}), "side", "no side of the variant"),
    ("table-hash-number", Damage(header={"table_hash": 5}), "table_hash", "not 5"),
    ("table-hash-other", Damage(header={"table_hash": "0" * 16}), "table_hash", "retrain"),
    ("observation-size-text", Damage(header={"observation_size": "x"}), "observation_size", "x"),
    (
        "observation-size-other",
        Damage(
            header={"observation_size": 494},
            arrays=replaced("w0", RNG.normal(size=(128, 494)).astype(np.float32)),
        ),
        "observation_size",
        "the encoder now gives 495",
    ),
    ("observation-text", Damage(header={"observation": "x"}), "observation", "object or null"),
    (
        "observation-option",
        Damage(header={"observation": {"layout": "history", "version": 1, "max_players": [1]}}),
        "observation",
        "retrain it",
    ),
    *[
        (
            f"observation-{key.replace('_', '-')}-{case}",
            Damage(header={"observation": {"layout": "history", "version": 1, key: value}}),
            "observation",
            f"{key} must be {wanted}, not {value!r}",
        )
        for key, case, value, wanted in [
            ("history_days", "true", True, "a whole number from 1 to 100"),
            ("history_days", "fraction", 2.5, "a whole number from 1 to 100"),
            ("history_days", "zero", 0, "a whole number from 1 to 100"),
            ("history_days", "past-the-cap", 101, "a whole number from 1 to 100"),
            ("max_players", "zero", 0, "a whole number from 1 to 1,000"),
            ("max_players", "whole-float", 8.0, "a whole number from 1 to 1,000"),
            ("max_players", "past-the-cap", 1001, "a whole number from 1 to 1,000"),
            ("egocentric", "text", "no", "true or false"),
        ]
    ],
    ("advice-number", Damage(header={"advice": 5}), "advice", "not 5"),
    (
        "variant-file-without-digests",
        Damage(header={"variant_file": "/nowhere/own.toml"}),
        "variant_digest",
        "missing",
    ),
    (
        "rules-digest-number",
        Damage(header={**OWN_FILE, "rules_digest": 5}),
        "rules_digest",
        "must be non-empty text, not 5",
    ),
    (
        "variant-file-gone",
        Damage(header=OWN_FILE),
        "variant_file",
        "no such file /nowhere/own.toml; the policy was trained on the variant file "
        "/nowhere/own.toml (content digest ab, rules digest cd): put that file back",
    ),
    ("header-fallback-number", Damage(header={"fallback": 5}), "fallback", "not 5"),
    (
        "overrides-deal-no-game",
        Damage(header={"overrides": {"mafia": 9}}),
        "players",
        "7 players with the header's overrides: ",
    ),
    ("layers-huge-float", Damage(header={"layers": 1e9}), "layers", "whole number"),
    ("layers-huge", Damage(header={"layers": 10**9}), "layers", "the archive holds 7"),
    ("layers-negative", Damage(header={"layers": -1}), "layers", "not -1"),
    ("layers-zero", Damage(header={"layers": 0}), "layers", "not 0"),
    ("layers-text", Damage(header={"layers": "3"}), "layers", "not '3'"),
]

ARRAY_CASES: list[tuple[str, Damage, str, str]] = [
    (
        "w0-columns",
        Damage(arrays=replaced("w0", RNG.normal(size=(128, 494)).astype(np.float32))),
        "w0",
        "494 columns, but the observation size is 495",
    ),
    (
        "w1-columns",
        Damage(arrays=replaced("w1", RNG.normal(size=(128, 127)).astype(np.float32))),
        "w1",
        "127 columns, but 'w0' has 128 rows",
    ),
    (
        "action-rows",
        Damage(header={"actions": None}, arrays=cut_actions),
        "w2",
        "39 rows (one per action), but the action table has 40",
    ),
    ("actions-other", Damage(header={"actions": 41}), "w2", "but the header says actions = 41"),
    (
        "action-rows-and-key",
        Damage(arrays=cut_actions),
        "w2",
        "39 rows (one per action), but the header says actions = 40",
    ),
    ("b0-length", Damage(arrays=replaced("b0", np.zeros(100, np.float32))), "b0", "(100,)"),
    ("b1-matrix", Damage(arrays=replaced("b1", np.zeros((1, 128), np.float32))), "b1", "(1, 128)"),
    ("w1-0d", Damage(arrays=replaced("w1", np.array(1.0, np.float32))), "w1", "not 0-d"),
    ("w1-3d", Damage(arrays=replaced("w1", np.zeros((2, 128, 128), np.float32))), "w1", "3-d"),
    ("w0-nan", Damage(arrays=nan_in("w0")), "w0", "NaN or infinite"),
    ("b2-infinite", Damage(arrays=replaced("b2", np.full(40, np.inf, np.float32))), "b2", "NaN"),
    (
        "w0-complex",
        Damage(arrays=lambda a: {**a, "w0": a["w0"].astype(np.complex64)}),
        "w0",
        "not real numbers",
    ),
    ("w0-text", Damage(arrays=replaced("w0", np.array(["a", "b"]))), "w0", "not real numbers"),
    (
        "w2-missing",
        Damage(arrays=lambda a: {k: v for k, v in a.items() if k != "w2"}),
        "w2",
        "missing",
    ),
    (
        "w3-extra",
        Damage(arrays=replaced("w3", np.zeros((40, 40), np.float32))),
        "w3",
        "not one of the 3 layers",
    ),
]

# (id, damage, the file named: "agent" or "policy", the key (an agent file's, a policy
# header's or an array's name), reason)
CASES: list[tuple[str, Damage, str, str, str]] = [
    *[(i, d, "agent", k, r) for i, d, k, r in AGENT_FILE_CASES],
    *[(i, d, "policy", k, r) for i, d, k, r in HEADER_CASES],
    *[(i, d, "policy", k, r) for i, d, k, r in ARRAY_CASES],
]


@pytest.mark.parametrize(
    ("case", "damage", "named", "where", "reason"), CASES, ids=[c[0] for c in CASES]
)
def test_make_agent_refuses_the_file_naming_file_key_and_reason(
    tmp_path: Path, case: str, damage: Damage, named: str, where: str, reason: str
) -> None:
    agent, policy = write_copy(tmp_path, damage)
    with pytest.raises(ValueError) as caught:
        make_agent(str(agent))
    message = str(caught.value)
    assert message.startswith(f"{agent if named == 'agent' else policy}: {where}: "), message
    assert reason in message, message


@pytest.mark.parametrize(
    ("case", "damage", "named", "where", "reason"), CASES, ids=[c[0] for c in CASES]
)
def test_the_command_line_refuses_it_in_one_paragraph(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    case: str,
    damage: Damage,
    named: str,
    where: str,
    reason: str,
) -> None:
    agent, policy = write_copy(tmp_path, damage)
    args = ["run", "--players", "7", "--agents", f"town={agent},mafia=heuristic"]
    code, err = run_cli([*args, "--games", "2", "--seed", "1"], capsys)
    assert code == 2, err
    named_file = agent if named == "agent" else policy
    assert err.startswith(f"error: --agents: {named_file}: {where}: "), err
    assert_one_paragraph(err, reason)


@pytest.mark.parametrize("command", ["play", "run"])
def test_play_and_run_refuse_weights_that_do_not_chain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Before, these files loaded and the game crashed at the policy's first vote."""
    _, damage, array, reason = ARRAY_CASES[0]
    agent, policy = write_copy(tmp_path, damage)
    args = [command, "--players", "7", "--agents", f"town={agent},mafia=heuristic", "--seed", "1"]
    log = tmp_path / "game.jsonl"
    code, err = run_cli([*args, "--log", str(log)] if command == "play" else args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"--agents: {policy}: {array}: {reason}")
    assert not log.exists()  # refused before the game started


def test_a_tournament_refuses_a_broken_policy_in_its_pool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, the spec was accepted and every game with the agent failed mid-way."""
    _, damage, array, reason = ARRAY_CASES[1]
    agent, policy = write_copy(tmp_path, damage)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f"""name = "broken-policy"
base_seed = 3
games = 2
seating = "balanced"
pool = ["heuristic", "{agent.as_posix()}"]
[concurrency]
workers = 1
batch_size = 2
max_retries = 0
[[variants]]
variant = "standard"
players = 7
"""
    )
    results = tmp_path / "results"
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(spec), "pool", f"{policy}: {array}: {reason}")
    assert not (results / "games.jsonl").exists()


def test_a_policy_whose_variant_file_has_other_rules_names_the_rules_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The refusal docs/rl.md shows ("A policy trained on a variant file of your own"),
    as the command line prints it: the policy file, its header key, the reason. Before,
    it read ``FILE: key 'rules_digest': ...``."""
    own = tmp_path / "my-variants" / "two-doctors.toml"
    own.parent.mkdir()
    standard = (REPO / "envs" / "standard.toml").read_text()
    assert "discussion_rounds = 2 " in standard
    own.write_text(standard.replace("discussion_rounds = 2 ", "discussion_rounds = 3 "))
    recorded = {"variant_digest": "3d1990d5502d131a", "rules_digest": "a8a5ae7f872e8cbf"}
    agent, policy = write_copy(tmp_path, Damage(header={"variant_file": str(own), **recorded}))
    args = ["run", "--players", "7", "--agents", f"town={agent},mafia=heuristic", "--games", "1"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert err == (
        f"error: --agents: {policy}: rules_digest: {own} has other rules (rules digest "
        f"{rules_digest(load_variant(own))}), and a policy is not seated with other rules; "
        f"the policy was trained on the variant file {own} (content digest 3d1990d5502d131a, "
        "rules digest a8a5ae7f872e8cbf): put that file back, or give where it is now in the "
        'agent file: variant = "FILE", or retrain it\n'
    )


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty", b""),
        ("truncated", SHIPPED_POLICY.read_bytes()[:5000]),
        ("npy", None),
    ],
)
def test_a_file_that_is_no_npz_archive_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes | None
) -> None:
    agent, policy = write_copy(tmp_path, Damage())
    if content is None:
        with policy.open("wb") as handle:
            np.save(handle, np.zeros(3, np.float32))
    else:
        policy.write_bytes(content)
    code, err = run_cli(["run", "--players", "7", "--agents", str(agent), "--games", "1"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"--agents: {policy}: -: not a policy file")


def test_a_stable_baselines3_checkpoint_is_named_and_the_policy_file_beside_it_advised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A training run writes model.zip beside policy.npz; seated by mistake, the
    checkpoint (a zip archive, as an npz file is) was "header: missing (not a policy
    file)". Its members are the ones Stable-Baselines3's `save` writes."""
    agent, policy = write_copy(tmp_path, Damage())
    checkpoint = policy.with_name("model.zip")
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for member in ("data", "pytorch_variables.pth", "policy.pth", "policy.optimizer.pth"):
            archive.writestr(member, b"{}")
        archive.writestr("_stable_baselines3_version", "2.3.2")
    agent.write_text(agent.read_text().replace(POLICY, "policies/model.zip"))
    code, err = run_cli(["run", "--players", "7", "--agents", str(agent), "--games", "1"], capsys)
    assert code == 2, err
    assert_one_paragraph(
        err,
        "--agents",
        f"{checkpoint}: header: missing",
        "a Stable-Baselines3 checkpoint",
        "seat the policy.npz",
    )
    with zipfile.ZipFile(checkpoint, "w") as archive:  # "data" alone is no checkpoint
        archive.writestr("data", b"{}")
    with pytest.raises(ValueError, match=r": header: missing \(not a policy file\)$"):
        PolicyFile.load(checkpoint)


def declared_only(shape: tuple[int, ...]) -> bytes:
    """An npy member that declares float32 `shape` and holds no data: what a compressed
    archive of zeros declares, without writing them."""
    buffer = io.BytesIO()
    header = {"descr": "<f4", "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


@pytest.mark.parametrize("member", ["header", "w0"])
def test_arrays_that_declare_more_than_a_policy_may_hold_are_refused_unread(
    tmp_path: Path, member: str
) -> None:
    """A few bytes may declare gigabytes (a zip bomb): the declared sizes are refused
    before anything is read."""
    _, policy = write_copy(tmp_path, Damage())
    header, arrays = shipped_arrays()
    width = MAX_WEIGHTS // header["observation_size"] + 1
    shapes = {"header": (MAX_HEADER_BYTES + 1,), "w0": (width, header["observation_size"])}
    with zipfile.ZipFile(policy, "w") as archive:
        raw = json.dumps(header).encode()
        members = {"header": np.frombuffer(raw, np.uint8), **arrays}
        for name, array in members.items():
            if name == member:
                data = declared_only(shapes[name])
            else:
                buffer = io.BytesIO()
                np.save(buffer, array)
                data = buffer.getvalue()
            archive.writestr(f"{name}.npy", data)
    with pytest.raises(
        ValueError, match=rf": {member}: declares|: layers: the arrays declare"
    ) as err:
        PolicyFile.load(policy)
    assert "more than" in str(err.value) and str(err.value).startswith(f"{policy}: ")


def test_fallbacks_that_lead_back_to_the_agent_file_are_refused(tmp_path: Path) -> None:
    agent, _ = write_copy(tmp_path, Damage(header={"advice": None}))
    agent.write_text(
        SHIPPED_AGENT.read_text().replace('fallback = "heuristic"', f'fallback = "{agent}"')
    )
    with pytest.raises(ValueError, match=": fallback: the fallbacks go round") as caught:
        make_agent(str(agent))
    assert str(caught.value).startswith(f"{agent}: ")


def test_an_agent_built_in_memory_is_checked_against_its_action_table() -> None:
    """`PolicyAgent` checks a `PolicyFile` that was never saved the same way."""
    header, arrays = shipped_arrays()
    layers = [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(3)]
    header.pop("actions")
    layers[-1] = (layers[-1][0][:-1], layers[-1][1][:-1])
    with pytest.raises(ValueError, match="in-memory: w2: 39 rows") as caught:
        PolicyAgent("in-memory", PolicyFile(layers, header), make_agent("heuristic"))
    assert str(caught.value).startswith("in-memory: ")


def test_an_undamaged_copy_still_loads_and_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The copies above differ from the shipped files only in what each case breaks."""
    agent, policy = write_copy(tmp_path, Damage())
    built = make_agent(str(agent))
    assert isinstance(built, PolicyAgent) and built.policy.source == policy
    shipped = PolicyFile.load(SHIPPED_POLICY)
    for (w, b), (sw, sb) in zip(built.policy.layers, shipped.layers, strict=True):
        np.testing.assert_array_equal(w, sw)
        np.testing.assert_array_equal(b, sb)
    args = ["run", "--players", "7", "--agents", f"town={agent},mafia=heuristic"]
    code, err = run_cli([*args, "--games", "2", "--seed", "1"], capsys)
    assert code == 0, err


def test_a_policy_trained_on_every_kind_plays_every_decision_of_its_side(tmp_path: Path) -> None:
    """``kinds = ["*"]`` (every request kind, as a training spec may say) was compared
    with each request's kind literally, so such a policy never played: every decision
    went to its fallback. Now the team env's rule (`policy_file.answers`) decides both."""
    from tests.host_key import FIXED_HOST_KEY

    from mafia_arena.rules import load_variant
    from mafia_arena.runner import play_match_sync

    agent_path, _ = write_copy(tmp_path, Damage(header={"kinds": ["*"]}))
    header, _arrays = shipped_arrays()
    rules = load_variant(header["variant"], header.get("overrides", {}))
    agents = [make_agent(str(agent_path)) for _ in range(header["players"])]
    play_match_sync(rules, agents, 11, host_key=FIXED_HOST_KEY)
    assert all(isinstance(a, PolicyAgent) for a in agents)
    played = [a.stats.decisions - a.stats.extra.get("fallback_decisions", 0) for a in agents]
    assert sum(played) > 0, "no decision was the policy's"
