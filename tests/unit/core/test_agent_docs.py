"""Each agent's spec lives in docs/agents/<name>.md, its diagram drawn from the compiled graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.agents import BUILTIN, get_agent

DOCS = Path(__file__).resolve().parents[3] / "docs" / "agents"
SECTIONS = ("## Graph", "## State", "## Nodes", "## Limits", "## LLM calls")


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_the_checked_in_diagram_is_the_compiled_graph(name: str) -> None:
    doc = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert f"```mermaid\n{get_agent(name).mermaid()}```\n" in doc, (
        f"docs/agents/{name}.md has drifted from the graph: run scripts/agent-docs.py"
    )


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_spec_has_its_sections(name: str) -> None:
    doc = (DOCS / f"{name}.md").read_text(encoding="utf-8")
    assert [s for s in SECTIONS if s not in doc] == []


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_named_branch_is_drawn(name: str) -> None:
    """A branch named as the spec names it shows up as an edge label in the diagram."""
    drawn = get_agent(name).mermaid()
    for edge in get_agent(name).edges:
        for branch, target in getattr(edge, "paths", {}).items():
            if branch != target:
                assert f"&nbsp;{branch}&nbsp;" in drawn
