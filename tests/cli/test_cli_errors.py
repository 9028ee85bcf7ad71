"""Issue 18 item 12 (and item 4's ``run --games 0`` and ``games = true``): every error
path of the spec reader and of the command line prints one paragraph naming the file
(or option), the key and the reason — no traceback — and exits with code 2; ``--debug``
shows the traceback. Ctrl-C of a tournament says how many games are stored and exits 130.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.cli.support import assert_one_paragraph, run_cli, run_cli_output
from tests.host_key import FIXED_HOST_KEY

from mafia_arena.cli import main
from mafia_arena.results_file import read_records

REPO = Path(__file__).resolve().parents[2]

BASE = """name = "bad"
base_seed = 1
pool = ["random"]
[[variants]]
variant = "simple"
players = 5
"""

#: (id, spec text, key, reason): each is written to bad.toml and run by `tournament`.
SPEC_ERRORS = [
    ("unknown-top-key", "gmaes = 3\n" + BASE, "gmaes", "unknown key"),
    ("unknown-entry-key", BASE + "gmaes = 3\n", "variants.0.gmaes", "unknown key"),
    ("missing-name", BASE.replace('name = "bad"\n', ""), "name", "required key is missing"),
    ("games-true", "games = true\n" + BASE, "games", "valid integer, got true"),
    ("games-zero", "games = 0\n" + BASE, "games", "greater than or equal to 1"),
    (
        "players-true",
        BASE.replace("players = 5", "players = true"),
        "variants.0.players",
        "got true",
    ),
    (
        "players-empty",
        BASE.replace("players = 5", "players = []"),
        "variants.0.players",
        "at least one",
    ),
    (
        "players-outside",
        BASE.replace("players = 5", "players = 99"),
        "variants.0.players",
        "outside",
    ),
    (
        "no-such-variant",
        BASE.replace('"simple"', '"nope"'),
        "variants.0.variant",
        "unknown variant 'nope' (bundled: classic, club,",
    ),
    (
        "players-not-distinct",
        BASE.replace("players = 5", "players = [5, 5]"),
        "variants.0.players",
        "player counts must be positive and distinct",
    ),
    ("seats-zero", BASE + "seats = { random = 0 }\n", "variants.0.seats", "at least 1"),
    ("void-threshold-true", "void_threshold = true\n" + BASE, "void_threshold", "got true"),
    (
        "void-threshold-above-one",
        "void_threshold = 1.5\n" + BASE,
        "void_threshold",
        "less than or equal to 1",
    ),
    (
        "variants-empty",
        'name = "bad"\npool = ["random"]\nvariants = []\n',
        "variants",
        "at least 1 item",
    ),
    (
        "set-not-dealable",
        BASE.replace("players = 5", 'players = 7\nset = { mafia = "n/3" }'),
        "variants.0.set.mafia",
        "'n/3' is not a whole number",
    ),
    (
        "variant-file-not-dealable",
        BASE.replace('"simple"', '"variants/thirds.toml"'),
        "variants.0.players",
        "at 5 players: ",
    ),
    (
        "variant-file-keeps-a-bundled-name",
        BASE.replace('"simple"', '"variants/fifths.toml"'),
        "variants.0.variant",
        "is named 'simple', as the bundled envs/simple.toml is, but their rules differ",
    ),
    (
        "variant-file-broken",
        BASE.replace('"simple"', '"variants/broken.toml"'),
        "variants.0.variant",
        "not valid TOML",
    ),
    (
        "variant-file-missing",
        BASE.replace('"simple"', '"variants/none.toml"'),
        "variants.0.variant",
        "no such file 'variants/none.toml'",
    ),
    (
        "variant-file-as-spec",
        '[composition]\nformula = { villager = "rest" }\n',
        "-",
        "this is a variant file, not an experiment spec",
    ),
    ("unknown-switch", BASE + "set = { mafai = 2 }\n", "variants.0.set.mafai", "unknown switch"),
    ("unknown-agent", BASE.replace('["random"]', '["randon"]'), "pool.0", "unknown agent"),
    (
        "missing-agent-file",
        BASE.replace('["random"]', '["agents/none.toml"]'),
        "pool.0",
        "unknown agent",
    ),
    (  # it is there: "unknown agent" sent one looking for a file that exists
        "agent-folder",
        BASE.replace('["random"]', '["agents/folder.toml"]'),
        "pool.0",
        "'agents/folder.toml': it is a folder, not an agent file",
    ),
    ("agent-twice", BASE.replace('["random"]', '["random", "random"]'), "pool", "listed twice"),
    ("empty-pool", BASE.replace('["random"]', "[]"), "pool", "empty"),
    ("seats-overflow", BASE + "seats = { random = 9 }\n", "variants.0.seats", "cannot fill"),
    (
        "seats-stranger",
        BASE + "seats = { heuristic = 1 }\n",
        "variants.0.seats.heuristic",
        "not an agent",
    ),
    ("bad-seating", BASE + 'seating = "fair"\n', "variants.0.seating", "random"),
    ("label-twice", BASE + BASE.split("\n", 3)[3], "variants.1.label", "appears twice"),
    ("workers-zero", BASE + "[concurrency]\nworkers = 0\n", "concurrency.workers", "greater than"),
    (
        "more-games-than-a-store-holds",
        "games = 10000001\n" + BASE,
        "games",
        "10000001 games in all; a results store holds at most 10000000",
    ),
    ("not-toml", "name = \n", "-", "not valid TOML"),
    (
        "agent-cannot-be-built",
        BASE.replace('["random"]', '["random", "agents/broken.toml"]'),
        "pool",
        "agent 'agents/broken.toml' (matchup 0, entry 1) cannot be built",
    ),
]
BROKEN_AGENT = "foo = 1\n"
"""An agent file that exists (so the spec reader accepts it) but cannot be built."""


def write_inputs(tmp: Path) -> None:
    """The agent and variant files next to bad.toml that the SPEC_ERRORS cases name."""
    (tmp / "agents").mkdir()
    (tmp / "agents" / "broken.toml").write_text(BROKEN_AGENT)
    (tmp / "agents" / "folder.toml").mkdir()
    (tmp / "variants").mkdir()
    simple = (REPO / "envs" / "simple.toml").read_text()
    thirds = simple.replace('mafia = "max(1, round(n/4))"', 'mafia = "n/3"')
    assert thirds != simple  # loads (n/3 is computable) but deals at multiples of 3 only
    (tmp / "variants" / "thirds.toml").write_text(thirds)
    fifths = simple.replace('mafia = "max(1, round(n/4))"', 'mafia = "max(1, round(n/5))"')
    assert fifths != simple  # deals at 5 players as simple does, but its rules differ
    (tmp / "variants" / "fifths.toml").write_text(fifths)
    (tmp / "variants" / "broken.toml").write_text("name = \n")


@pytest.mark.parametrize(
    ("body", "key", "reason"), [c[1:] for c in SPEC_ERRORS], ids=[c[0] for c in SPEC_ERRORS]
)
def test_spec_errors_name_file_key_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, key: str, reason: str
) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text(body)
    write_inputs(tmp_path)
    code, err = run_cli(
        ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(tmp_path / "r")],
        capsys,
    )
    assert code == 2
    assert_one_paragraph(err, str(spec), f": {key}: ", reason)
    assert "Value error" not in err and ": -: " not in err.replace(f"{spec}: -: ", "")
    assert not (tmp_path / "r").exists()


SPEC_READER = [REPO / "src" / "mafia_arena" / "experiments" / n for n in ("spec.py", "plan.py")]


def spec_error_sites() -> set[tuple[str, int]]:
    """(file, line) of every ``SpecError(`` the spec reader and planner build."""
    sites = set()
    for source in SPEC_READER:
        for number, line in enumerate(source.read_text().splitlines(), 1):
            if re.search(r"\b(raise|return) SpecError\(", line):
                sites.add((source.name, number))
    return sites


def validator_messages() -> set[str]:
    """The reasons the spec's own field validators give (``raise ValueError("...")``)."""
    text = (REPO / "src" / "mafia_arena" / "experiments" / "spec.py").read_text()
    return set(re.findall(r'raise ValueError\("([^"]+)"\)', text))


def test_every_error_site_of_the_spec_reader_has_a_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new ``SpecError`` or validator message in spec.py / plan.py without a row in
    SPEC_ERRORS fails here (the missing-file case stands for the unreadable spec)."""
    from mafia_arena.experiments.errors import SpecError
    from mafia_arena.experiments.spec import load_spec

    built: set[tuple[str, int]] = set()
    original = SpecError.__init__

    def recording(self: SpecError, source: str, key: str, reason: str) -> None:
        caller = sys._getframe(1)
        built.add((Path(caller.f_code.co_filename).name, caller.f_lineno))
        original(self, source, key, reason)

    monkeypatch.setattr(SpecError, "__init__", recording)
    write_inputs(tmp_path)
    reasons = []
    for case, body, _key, _reason in SPEC_ERRORS:
        spec = tmp_path / f"{case}.toml"
        spec.write_text(body)
        try:
            load_spec(spec)
        except SpecError as error:
            reasons.append(str(error))
    with pytest.raises(SpecError):
        load_spec(tmp_path / "none.toml")
    sites = spec_error_sites()
    assert len(sites) > 10  # the search itself still finds the construction sites
    assert sites - built == set(), "SpecError sites without a case in SPEC_ERRORS"
    messages = validator_messages()
    assert len(messages) >= 3
    unreached = {m for m in messages if not any(m in reason for reason in reasons)}
    assert unreached == set(), "validator messages without a case in SPEC_ERRORS"


def test_a_missing_spec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(["tournament", str(tmp_path / "none.toml")], capsys)
    assert code == 2
    assert_one_paragraph(err, str(tmp_path / "none.toml"), "cannot read the spec")


def test_a_spec_that_is_not_utf8_is_named_with_the_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "latin1.toml"
    spec.write_bytes(BASE.replace('"bad"', '"b\xe4d"').encode("latin-1"))
    code, err = run_cli(["tournament", str(spec), "--results", str(tmp_path / "r")], capsys)
    assert code == 2
    assert_one_paragraph(err, f"{spec}: -: cannot read the spec: not UTF-8 text (byte 0xe4")
    assert not (tmp_path / "r").exists()


GOOD = BASE.replace('name = "bad"', 'name = "good"') + "games = 2\n"


GOLDEN_TRANSCRIPT = REPO / "tests" / "golden" / "files" / "simple-7p-seed1.txt"


def write_bad_logs(tmp: Path) -> None:
    """A real 5-player log (game.jsonl) and files that are not logs, for `replay`."""
    from mafia_arena.agents.random_agent import RandomAgent
    from mafia_arena.rules import load_variant
    from mafia_arena.runner.match import play_match_sync

    result = play_match_sync(
        load_variant("simple"), [RandomAgent() for _ in range(5)], 1, host_key=FIXED_HOST_KEY
    )
    result.log.save(tmp / "game.jsonl")
    header, first, *_ = (tmp / "game.jsonl").read_text().splitlines()
    (tmp / "bad.jsonl").write_text(header + "\nnot json\n")
    (tmp / "other.json").write_text('{"name": "not a log"}\n')
    headless = json.loads(header)
    del headless["seed"]
    (tmp / "headless.jsonl").write_text(json.dumps(headless) + "\n" + first + "\n")
    (tmp / "bad-event.jsonl").write_text(header + '\n{"fact": 3}\n')
    (tmp / "binary.jsonl").write_bytes(b"\xff\xfe\x00 not text")
    (tmp / "train.toml").write_text('name = "t"\n[train]\nside = "twon"\n')


def cli_cases(tmp: Path) -> list[tuple[str, list[str], tuple[str, ...]]]:
    """(id, arguments, parts of the message) of command-line errors."""
    spec = tmp / "good.toml"
    if tmp.is_dir():
        spec.write_text(GOOD)
        write_bad_logs(tmp)
    results = ["--results", str(tmp / "r")]
    return [
        ("run-games-zero", ["run", "--games", "0"], ("--games", "greater than or equal to 1")),
        (
            "run-unknown-agent",
            ["run", "--agents", "nobody", "--games", "1"],
            ("--agents", "unknown agent 'nobody'"),
        ),
        (
            "run-too-many-agents",
            ["run", "--agents", "random,random", "--players", "1"],
            ("players",),
        ),
        ("run-set-no-value", ["run", "--set", "mafia", "--games", "1"], ("--set", "KEY=VALUE")),
        (
            "run-unknown-switch",
            ["run", "--set", "mafai=2", "--games", "1"],
            ("standard.toml", "mafai", "unknown switch"),
        ),
        (
            "run-no-such-variant",
            ["run", "--variant", "nope", "--games", "1"],
            ("--variant: no variant 'nope'", "simple, standard", "nope.toml"),
        ),
        (
            "play-no-such-variant-file",
            ["play", "--variant", "missing/house.toml"],
            ("--variant: no such file", "missing/house.toml", "the path of a variant file"),
        ),
        ("play-unknown-agent", ["play", "--agents", "nobody"], ("--agents", "unknown agent")),
        (
            "run-players-below-variant",
            ["run", "--players", "2", "--games", "1"],
            (
                "standard.toml",
                ": players: ",
                "2 players is too few: at least 5 (from --players, 7 unless given)",
            ),
        ),
        (
            "play-default-players-below-variant",
            ["play", "--variant", "dictator"],
            ("dictator.toml", "7 players is too few: at least 12 (from --players, 7 unless given)"),
        ),
        (
            "run-players-below-club",
            ["run", "--variant", "club", "--players", "7", "--games", "1"],
            ("club.toml", ": players: ", "7 players is too few: at least 8"),
        ),
        (
            "run-set-not-dealable",
            ["run", "--variant", "simple", "--set", "mafia=n/3", "--games", "1"],
            (
                "simple.toml",
                ": composition.formula.mafioso: ",
                "'n/3' is not a whole number",
                "(from --set mafia=n/3)",
            ),
        ),
        (
            "run-set-division-by-zero",
            ["run", "--set", "mafia=n/0", "--games", "1"],
            ("standard.toml", "division by zero", "(from --set mafia=n/0)"),
        ),
        (
            "play-set-not-dealable",
            ["play", "--variant", "simple", "--set", "mafia=n/3"],
            ("simple.toml", "not a whole number", "(from --set mafia=n/3)"),
        ),
        (
            "play-log-unwritable",
            ["play", "--players", "5", "--log", "/proc/nope/x.jsonl"],
            ("/proc/nope: cannot be made or written", "(the folder of --log /proc/nope/x.jsonl)"),
        ),
        (
            "replay-missing-log",
            ["replay", str(tmp / "none.jsonl")],
            (str(tmp / "none.jsonl"), "cannot read"),
        ),
        (
            "run-side-without-agent",
            ["run", "--agents", "town=heuristic", "--games", "1"],
            ("--agents", "no agent for side 'mafia'", "mafia=NAME"),
        ),
        (
            "run-side-twice",
            ["run", "--agents", "town=heuristic,mafia=random,town=random", "--games", "1"],
            ("--agents", "side 'town' is given twice", "(heuristic, random)"),
        ),
        (
            "run-unknown-side",
            ["run", "--agents", "twon=heuristic,mafia=random", "--games", "1"],
            ("--agents", "unknown side 'twon'", "mafia, town"),
        ),
        ("run-players-zero", ["run", "--players", "0", "--games", "1"], ("--players",)),
        ("play-seat-outside", ["play", "--players", "5", "--seat", "6"], ("--seat", "1..5")),
        ("play-human-outside", ["play", "--players", "5", "--human", "0"], ("--human", "1..5")),
        (
            "play-seed-too-large",
            ["play", "--players", "5", "--seed", str(10**400)],
            ("--seed", "less than or equal to 9007199254740992"),
        ),
        ("play-seed-negative", ["play", "--players", "5", "--seed", "-1"], ("--seed", "0")),
        (
            "run-seed-too-large",
            ["run", "--players", "5", "--games", "1", "--seed", str(10**400)],
            ("--seed", "less than or equal to 9007199254740992"),
        ),
        (
            "run-seed-negative",
            ["run", "--players", "5", "--games", "1", "--seed", "-1"],
            ("--seed", "0"),
        ),
        (
            "run-last-seed-too-large",
            ["run", "--players", "5", "--games", "3", "--seed", str(2**53 - 1)],
            (
                "--seed",
                "the last game's seed",
                "above 9007199254740992",
                "at most 9007199254740990",
            ),
        ),
        (
            "run-set-count-true",
            ["run", "--variant", "simple", "--set", "mafia=true", "--games", "1"],
            ("simple.toml", "composition.formula.mafioso", "not true"),
        ),
        (
            "replay-not-json",
            ["replay", str(tmp / "bad.jsonl")],
            (str(tmp / "bad.jsonl"), ": line 2: ", "not JSON"),
        ),
        (
            "replay-json-not-a-log",
            ["replay", str(tmp / "other.json")],
            (str(tmp / "other.json"), ": line 1: ", "not a mafia-arena-log/2 file"),
        ),
        (
            "replay-header-key-missing",
            ["replay", str(tmp / "headless.jsonl")],
            (str(tmp / "headless.jsonl"), ": line 1: seed: ", "required header key is missing"),
        ),
        (
            "replay-bad-event",
            ["replay", str(tmp / "bad-event.jsonl")],
            (str(tmp / "bad-event.jsonl"), ": line 2: ", "not a game event"),
        ),
        (
            "replay-transcript",
            ["replay", str(GOLDEN_TRANSCRIPT)],
            (str(GOLDEN_TRANSCRIPT), ": line 1: ", "not JSON"),
        ),
        (
            "replay-binary",
            ["replay", str(tmp / "binary.jsonl")],
            (str(tmp / "binary.jsonl"), "not a text file"),
        ),
        (
            "replay-seat-too-high",
            ["replay", str(tmp / "game.jsonl"), "--seat", "99"],
            ("--seat", "seat 99 is out of range 1..5", "has 5 players"),
        ),
        (
            "replay-seat-negative",
            ["replay", str(tmp / "game.jsonl"), "--seat", "-1"],
            ("--seat", "seat -1 is out of range 1..5"),
        ),
        ("serve-port-too-high", ["serve", "--port", "99999999"], ("--port", "65535")),
        ("serve-port-zero", ["serve", "--port", "0"], ("--port",)),
        (
            "train-side-unknown",
            ["train", str(tmp / "train.toml"), "--no-tracking", "--out", str(tmp / "r")],
            (str(tmp / "train.toml"), "train.side: ", "'twon' is not a side of standard"),
        ),
        (
            "leaderboard-no-records",
            ["leaderboard", str(tmp / "empty")],
            (str(tmp / "empty"), "no game records"),
        ),
        (
            "leaderboard-bad-view",
            ["leaderboard", str(tmp / "empty"), "--view", "robots"],
            ("--view", "robots"),
        ),
        (
            "both-resume-flags",
            ["tournament", str(spec), "--no-resume", "--force-resume"],
            ("--no-resume/--force-resume", "not both"),
        ),
        (
            "address-without-ray",
            ["tournament", str(spec), "--no-ray", "--address", "auto"],
            ("--address", "--no-ray"),
        ),
        (
            "unreachable-tracking",
            ["tournament", str(spec), "--no-ray", *results, "--tracking-uri", "http://127.0.0.1:9"],
            ("http://127.0.0.1:9", "not reachable", "--no-tracking"),
        ),
        (
            "unreachable-ray",
            ["tournament", str(spec), "--no-tracking", *results, "--address", "127.0.0.1:9"],
            ("127.0.0.1:9", "not reachable"),
        ),
        (
            "unwritable-tracking",
            [
                "tournament",
                str(spec),
                "--no-ray",
                *results,
                "--tracking-uri",
                f"sqlite:///{spec}/mlflow.db",
            ],
            (f"sqlite:///{spec}/mlflow.db", "cannot write"),
        ),
        (
            "play-seat-beside-another-human-seat",
            ["play", "--players", "5", "--seat", "2", "--human", "3"],
            ("--seat", "with --human 3 you see seat 3's view only", "--human 2"),
        ),
        (
            "tournament-empty-tracking-uri",
            ["tournament", str(spec), "--no-ray", "--no-tracking", *results, "--tracking-uri", ""],
            ("'--tracking-uri'", "is empty"),
        ),
        (
            "tournament-empty-address",
            ["tournament", str(spec), "--no-ray", "--no-tracking", *results, "--address", " "],
            ("'--address'", "is empty"),
        ),
        (
            "tournament-empty-results",
            ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", ""],
            ("'--results'", "is empty"),
        ),
        (
            "leaderboard-empty-out",
            ["leaderboard", str(tmp / "empty"), "--out", ""],
            ("'--out'", "is empty"),
        ),
        ("replay-empty-log", ["replay", ""], ("'log'", "is empty")),
        ("play-empty-log", ["play", "--players", "5", "--log", ""], ("'--log'", "is empty")),
        (
            "run-empty-key-dir",
            ["run", "--games", "1", "--key-dir", ""],
            ("'--key-dir'", "is empty"),
        ),
        (
            "leaderboard-out-a-file-before-playing",
            ["leaderboard", str(spec), "--no-ray", "--no-tracking", *results, "--out", str(spec)],
            (f"{spec}: is a file, not a folder", "(--out)"),
        ),
        (
            "run-key-dir-a-file",
            ["run", "--games", "1", "--key-dir", str(spec)],
            (f"{spec}: is a file, not a folder", "(--key-dir)"),
        ),
    ]


CASE_IDS = [c[0] for c in cli_cases(Path("/nonexistent"))]


def edited_log(tmp: Path, edit: str) -> Path:
    """game.jsonl (`write_bad_logs`) hand-edited: its seed, or its first plain choice
    (also with another code digest in its header, for ``other-code``)."""
    lines = [json.loads(line) for line in (tmp / "game.jsonl").read_text().splitlines()]
    if edit == "seed":
        lines[0]["seed"] += 1
    else:
        payload = next(
            e["payload"]
            for e in lines[1:]
            if e["kind"] == "decision" and "choice" in e["payload"] and "text" not in e["payload"]
        )
        choices = {"illegal": "target:99", "not-a-string": {"x": 1}, "other-code": "target:99"}
        payload["choice"] = choices[edit]
    if edit == "other-code":  # a log another version of the package wrote
        lines[0]["meta"]["code"]["digest"] = "0123456789abcdef"
    path = tmp / f"{edit}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ("seed", "IllegalDecision: seat"),
        ("illegal", "'target:99' is not a legal choice"),
        ("not-a-string", "AttributeError: "),
        ("other-code", "'target:99' is not a legal choice"),
    ],
)
def test_a_log_whose_decisions_the_game_refuses_is_reported_as_differing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str, reason: str
) -> None:
    """A hand-edited seed or choice makes the rebuilt game refuse a logged decision: the
    command says the log differs (exit 1), naming the file, the decision and the error."""
    write_bad_logs(tmp_path)
    path = edited_log(tmp_path, edit)
    code, out, err = run_cli_output(["replay", str(path)], capsys)
    assert code == 1, (out, err)
    assert "Traceback" not in out + err and not err, err
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"replay DIFFERS FROM the stored log: {path}: decision "), last
    assert "cannot be submitted again" in last and reason in last, last
    if edit == "other-code":
        assert "played by other code" in last and "0123456789abcdef" in last, last
    else:
        assert last.endswith("(it is damaged)"), last


@pytest.mark.parametrize("case", CASE_IDS)
def test_item12_command_line_errors_are_one_paragraph_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    (tmp_path / "empty").mkdir()
    _, args, parts = next(c for c in cli_cases(tmp_path) if c[0] == case)
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, *parts)
    assert "it/s" not in err, "a progress bar started before the error"
    assert "cannot read" not in err or args[0] == "replay", err
    assert not (tmp_path / "r").exists()


def test_item12_a_refused_resume_names_what_changed_and_the_flag_that_exists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "good.toml"
    spec.write_text(GOOD)
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(tmp_path / "r")]
    assert run_cli(args, capsys)[0] == 0
    spec.write_text(GOOD.replace("games = 2", "games = 3"))
    code, err = run_cli(args, capsys)
    assert code == 2
    assert_one_paragraph(err, str(tmp_path / "r"), "another version", "--no-resume")
    code, _ = run_cli([*args, "--no-resume"], capsys)  # the recommended flag exists
    assert code == 0
    assert len(read_records(tmp_path / "r" / "games.jsonl")) == 3


def test_item12_debug_shows_the_traceback_and_keeps_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "bad.toml"
    spec.write_text("gmaes = 3\n" + BASE)
    with pytest.raises(SystemExit) as exit_:
        main(["--debug", "tournament", str(spec), "--no-ray", "--no-tracking"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):"), err
    assert "SpecError" in err and "gmaes" in err, err


def test_a_full_file_system_names_the_folder_and_the_next_run_plays_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up while a batch is stored: one paragraph naming the folder the
    write failed in and the reason (exit 2), the games stored before it intact, and the
    same command, once there is room, plays exactly the rest."""
    from mafia_arena.experiments import store

    spec = tmp_path / "full.toml"
    spec.write_text(
        GOOD.replace('name = "good"', 'name = "full"').replace("games = 2", "games = 4")
        + "[concurrency]\nbatch_size = 1\n"
    )
    results = tmp_path / "r"
    args = ["tournament", str(spec), "--no-ray", "--no-tracking", "--results", str(results)]
    write_all = store._write_all
    logs_written: list[int] = []

    def fills_up(fd: int, data: bytes) -> None:
        if len(logs_written) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        logs_written.append(fd)
        write_all(fd, data)

    monkeypatch.setattr(store, "_write_all", fills_up)
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, f"{results / 'logs'}: {os.strerror(errno.ENOSPC)}")
    assert [r["game_index"] for r in read_records(results / "games.jsonl")] == [0, 1]
    monkeypatch.setattr(store, "_write_all", write_all)
    code, err = run_cli(args, capsys)
    assert code == 0, err
    assert [r["game_index"] for r in read_records(results / "games.jsonl")] == [0, 1, 2, 3]


def stopped_driver(tmp_path: Path, stop: signal.Signals, *options: str) -> tuple[int, str, int]:
    """A slow in-process tournament run as a user runs it, sent `stop` once two games
    are stored: its exit code, its stderr and the games stored after it exited."""
    spec = tmp_path / "slow.toml"
    spec.write_text(
        GOOD.replace('name = "good"', 'name = "slow"').replace("games = 2", "games = 40")
        + "[concurrency]\nbatch_size = 1\n"
    )
    results = tmp_path / "r"
    env = {**os.environ, "MAFIA_ARENA_FAULT": json.dumps({"sleep_per_game_s": 0.2})}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    command = [
        sys.executable,
        "-m",
        "mafia_arena.cli",
        "tournament",
        str(spec),
        "--no-ray",
        *options,
        "--results",
        str(results),
    ]
    driver = subprocess.Popen(
        command,
        env=env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    deadline = time.monotonic() + 90
    while len(read_records(results / "games.jsonl")) < 2:
        assert driver.poll() is None, driver.stderr.read() if driver.stderr else ""
        assert time.monotonic() < deadline, "nothing stored in 90 s"
        time.sleep(0.02)
    driver.send_signal(stop)
    _, err = driver.communicate(timeout=60)
    return driver.returncode, err, len(read_records(results / "games.jsonl"))


def test_item12_ctrl_c_says_how_many_games_are_stored_and_exits_130(tmp_path: Path) -> None:
    code, err, stored = stopped_driver(tmp_path, signal.SIGINT, "--no-tracking")
    assert code == 130, err
    assert 2 <= stored < 40
    assert f"{stored} games stored; run the same command to resume" in err
    assert "Traceback" not in err


@pytest.mark.filterwarnings("ignore:The ``noload`` loader strategy")  # MLflow's
def test_sigterm_stops_a_tournament_as_ctrl_c_does_and_ends_its_runs(tmp_path: Path) -> None:
    """`kill`, `timeout` and process managers stop a driver with SIGTERM: its MLflow runs
    end KILLED instead of staying RUNNING, and it says what Ctrl-C says."""
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    code, err, stored = stopped_driver(tmp_path, signal.SIGTERM, "--tracking-uri", uri)
    assert code == 130, err
    assert f"{stored} games stored; run the same command to resume" in err
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("slow")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert runs and {run.info.status for run in runs} == {"KILLED"}


#: (id, training spec text, key, reason): each is written to train.toml and run by `train`.
TRAIN_ERRORS = [
    ("no-train-table", 'name = "t"\n', "train", "a [train] table is required"),
    (
        "unknown-key",
        "[train]\nstepz = 10\n",
        "train.stepz",
        "unknown key (typo?); a training spec's [train] keys: ",
    ),
    ("wrong-type", "[train]\nplayers = 'seven'\n", "train.players", 'not an integer: got "seven"'),
    ("steps-zero", "[train]\nsteps = 0\n", "train.steps", "must be positive"),
    ("negative", "[train]\nimitate_games = -1\n", "train.imitate_games", "must not be negative"),
    ("no-opponents", "[train]\nopponents = []\n", "train.opponents", "at least one opponent"),
    ("flag-not-bool", "[train]\nadvice = 1\n", "train.advice", "not true or false: got 1"),
    ("bad-observation", "[train]\nobservation = 'v9'\n", "train.observation", "v9"),
    ("not-toml", "[train\n", "-", "not valid TOML"),
    ("unknown-variant", "[train]\nvariant = 'nope'\n", "train.variant", "no variant 'nope'"),
    (
        "unknown-switch",
        "[train]\noverrides = { mafai = 2 }\n",
        "train.overrides.mafai",
        "unknown switch",
    ),
    ("too-few-players", "[train]\nplayers = 2\n", "train.players", "too few"),
    ("unknown-side", "[train]\nside = 'twon'\n", "train.side", "not a side of standard"),
    ("unknown-co-player", "[train]\nco_player = 'nobody'\n", "train.co_player", "unknown agent"),
    (
        "unknown-opponent",
        "[train]\nopponents = ['random', 'nobody']\n",
        "train.opponents.1",
        "unknown agent 'nobody'",
    ),
    ("unknown-fallback", "[train]\nfallback = 'nobody'\n", "train.fallback", "unknown agent"),
]


@pytest.mark.parametrize(
    ("body", "key", "reason"), [c[1:] for c in TRAIN_ERRORS], ids=[c[0] for c in TRAIN_ERRORS]
)
def test_training_spec_errors_name_file_key_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, key: str, reason: str
) -> None:
    spec = tmp_path / "train.toml"
    spec.write_text(body)
    code, err = run_cli(["train", str(spec), "--no-tracking", "--out", str(tmp_path / "r")], capsys)
    assert code == 2, err
    where = f"{spec}: -: not valid TOML" if key == "-" else f"{spec}: {key}: "
    assert_one_paragraph(err, where, reason)
    assert not (tmp_path / "r").exists()


def test_a_missing_training_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(["train", str(tmp_path / "none.toml"), "--no-tracking"], capsys)
    assert code == 2
    assert_one_paragraph(err, str(tmp_path / "none.toml"), "no such training spec")


@pytest.mark.parametrize(
    ("case", "old", "new", "parts"),
    [
        (
            "kind",
            'kind = "rl"',
            'kind = "rll"',
            (": kind: ", '"rll" is no agent kind', "llm, rl"),
        ),
        (
            "fallback",
            'fallback = "heuristic"',
            'fallback = "heuristc"',
            (": fallback: ", "unknown agent 'heuristc'"),
        ),
    ],
)
def test_an_agent_file_with_a_bad_key_is_named_with_its_key(
    case: str,
    old: str,
    new: str,
    parts: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the file exists: calling it an unknown agent sent the user looking for a path
    shipped = (REPO / "agents" / "rl-town-votes.toml").read_text()
    assert old in shipped
    agent = tmp_path / f"bad-{case}.toml"
    agent.write_text(shipped.replace(old, new))
    (tmp_path / "policies").symlink_to(REPO / "agents" / "policies")
    args = ["run", "--players", "7", "--agents", str(agent), "--games", "1"]
    code, err = run_cli(args, capsys)
    assert code == 2, err
    assert_one_paragraph(err, "--agents", str(agent), *parts)


def test_a_switch_without_a_name_is_named_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_cli(["run", "--set", "=3", "--games", "1"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, "--set", "needs a switch name before '='", "'=3'")


def test_a_key_folder_that_cannot_be_made_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, err = run_cli(["run", "--key-dir", str(blocker / "keys"), "--games", "1"], capsys)
    assert code == 2, err
    assert_one_paragraph(
        err, f"{blocker / 'keys'}: cannot be made: {blocker} is a file", "--key-dir"
    )


@pytest.mark.parametrize("damage", [b"not hex\n", b"\xff\xfe binary"], ids=["text", "binary"])
def test_a_damaged_host_key_names_its_file_in_one_paragraph(
    damage: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A host key file that holds no key, in a ``--key-dir`` folder or in a tournament's
    results folder, is the user's to restore: one paragraph naming the file, exit 2, and
    the file is left as it is."""
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "host_key").write_bytes(damage)
    code, err = run_cli(["run", "--key-dir", str(keys), "--games", "1"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(keys / "host_key"), "not a host key")
    results = tmp_path / "results"
    results.mkdir()
    (results / "host_key").write_bytes(damage)
    spec = tmp_path / "bad.toml"
    spec.write_text(f"games = 1\nresults = {json.dumps(str(results))}\n" + BASE)
    code, err = run_cli(["tournament", str(spec), "--no-ray", "--no-tracking"], capsys)
    assert code == 2, err
    assert_one_paragraph(err, str(results / "host_key"), "not a host key")
    assert (results / "host_key").read_bytes() == damage


def test_a_system_error_names_its_file_and_reason_without_guessing_read_or_write() -> None:
    """An `OSError` reaching the command line may come from a write (a results or log
    file): its paragraph says the file and the system's reason, not "cannot read"."""
    from mafia_arena.cli import _paragraph

    error = PermissionError(13, "Permission denied", "/srv/out/results.jsonl")
    assert _paragraph(error) == "/srv/out/results.jsonl: Permission denied"
