"""The documented Stable-Baselines3 route (docs/rl.md, *Masked training with
Stable-Baselines3*) runs as written: `MaskablePPO` on `TeamEnv`s in an SB3 `VecEnv`
trains for a few hundred steps and then plays 200 vector steps, and no step is ever an
illegal move (the snippet asserts it at every step)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def snippet() -> str:
    text = DOC.read_text()
    section = text.split("## Masked training with Stable-Baselines3", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "the section has a python snippet"
    return found.group(1)


def test_the_documented_maskable_ppo_route_never_makes_an_illegal_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SB3's default logger makes a folder in the temporary folder at `learn`: keep the
    # snippet's in this test's own
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    namespace: dict[str, Any] = {}
    exec(compile(snippet(), str(DOC), "exec"), namespace)
    model, vec = namespace["model"], namespace["vec"]
    assert model.num_timesteps >= 512
    # the masks MaskablePPO reads are the envs' own, and they do restrict the choice
    from sb3_contrib.common.maskable.utils import get_action_masks

    masks = get_action_masks(vec)
    assert (masks == np.stack(vec.env_method("action_masks"))).all()
    assert not masks.all()
