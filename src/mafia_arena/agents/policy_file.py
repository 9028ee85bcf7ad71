"""The numpy policy file: a trained actor exported so it plays without PyTorch.

A file holds the actor network of a masked PPO policy (dense layers with tanh between
them, then the action layer) as arrays, plus a JSON header saying what it was trained
for: variant, player count, switches, side, request kinds, the observation size and
the action table (keys in order, hashed), the fallback player and the training spec's
hash. `PolicyFile.act` is a forward pass and an argmax over the legal actions, so Ray
workers, the web app and the CLI can seat a trained policy with numpy alone.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "mafia-arena-policy/1"


def table_hash(keys: list[str]) -> str:
    """A short hash of an action table's keys, in order: a policy only fits its table."""
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


@dataclass
class PolicyFile:
    """Weights (`layers`: list of (W, b), hidden first, action layer last) and header."""

    layers: list[tuple[np.ndarray, np.ndarray]]
    header: dict[str, Any] = field(default_factory=dict)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        hidden = np.asarray(observation, dtype=np.float32)
        for weight, bias in self.layers[:-1]:
            hidden = np.tanh(weight @ hidden + bias)
        weight, bias = self.layers[-1]
        return weight @ hidden + bias

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action (deterministic play, as in evaluation)."""
        logits = np.where(mask.astype(bool), self.logits(observation), -np.inf)
        return int(np.argmax(logits))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for index, (weight, bias) in enumerate(self.layers):
            arrays[f"w{index}"] = weight.astype(np.float32)
            arrays[f"b{index}"] = bias.astype(np.float32)
        header = {"format": FORMAT, "layers": len(self.layers), **self.header}
        arrays["header"] = np.frombuffer(json.dumps(header, sort_keys=True).encode(), np.uint8)
        with path.open("wb") as handle:
            np.savez_compressed(handle, allow_pickle=False, **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> PolicyFile:
        """Read a policy file; `ValueError` naming the file when it is not one."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(bytes(data["header"]).decode())
                if header.get("format") != FORMAT:
                    raise ValueError(f"format {header.get('format')!r}, expected {FORMAT!r}")
                layers = [
                    (data[f"w{i}"].astype(np.float32), data[f"b{i}"].astype(np.float32))
                    for i in range(int(header["layers"]))
                ]
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a policy file ({exc})") from None
        return cls(layers, header)
