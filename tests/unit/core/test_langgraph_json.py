"""`langgraph.json` names Dure's four graphs, and each entry builds its agent's graph."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from dure.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def test_langgraph_json_loads_the_four_graphs(settings: Settings) -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert set(config["graphs"]) == {"contract", "assistant", "tasks", "pte"}
    for name, target in config["graphs"].items():
        path, _, attr = target.partition(":")
        # as LangGraph's server loads it: the file by its path, then the named factory
        spec = importlib.util.spec_from_file_location(f"graphs_{name}", ROOT / path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        graph = getattr(module, attr)()
        assert graph.name == name and graph.checkpointer is None
