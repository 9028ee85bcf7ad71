"""The tree stays formatted, lint-free and type-checked (the README's test command runs
these, so CI checks them too)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TREE = ["src", "tests", "benchmarks"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=600
    )


def test_ruff_format_leaves_the_tree_unchanged() -> None:
    result = run("ruff", "format", "--check", *TREE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_is_clean() -> None:
    result = run("ruff", "check", *TREE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    result = run("mypy")  # src, tests and benchmarks: [tool.mypy] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
