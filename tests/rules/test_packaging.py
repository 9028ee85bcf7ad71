"""A wheel carries the variant files: an installed copy, far from any checkout, plays
every bundled variant.

The wheel is built from a copy of the sources in a temporary folder (so the build
writes nothing into the checkout) and installed without dependencies into a fresh
virtual environment without the system's site packages. The dependencies (pydantic,
...) come from this interpreter's site packages, appended after the fresh
environment's own through a `.pth` file, so the only `mafia_arena` importable is the
installed wheel's. The game runs from a folder outside the checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLAY_EVERY_VARIANT = """
import json, sys
from pathlib import Path
import mafia_arena
from mafia_arena.agents import RandomAgent
from mafia_arena.rules import available_variants, load_variant
from mafia_arena.rules.loader import envs_dir
from mafia_arena.runner import play_match_sync

played = {}
for name in available_variants():
    variant = load_variant(name)
    players = max(variant.min_players, 8)
    result = play_match_sync(variant, [RandomAgent() for _ in range(players)], 1)
    played[name] = result.log.result is not None
print(json.dumps({"package": mafia_arena.__file__, "envs": str(envs_dir()), "played": played}))
"""


def test_an_installed_wheel_plays_every_bundled_variant(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("src", "envs"):
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(source)],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("mafia_arena-*.whl")

    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=False, with_pip=False)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        cwd=tmp_path,
    )
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    run = subprocess.run(
        [str(python), "-c", PLAY_EVERY_VARIANT],
        check=True,
        capture_output=True,
        text=True,
        cwd=outside,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": "", "HOME": str(tmp_path)},
    )
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(report["package"]).is_relative_to(env_dir)
    assert Path(report["envs"]) == Path(report["package"]).parent / "envs"
    expected = sorted(p.stem for p in (ROOT / "envs").glob("*.toml"))
    assert sorted(report["played"]) == expected
    assert all(report["played"].values())
