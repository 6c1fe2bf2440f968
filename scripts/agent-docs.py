"""Write each built-in agent's graph into docs/agents/<name>.md (between the graph markers).

    .venv/bin/python scripts/agent-docs.py          # rewrite the diagrams
    .venv/bin/python scripts/agent-docs.py --check  # exit 1 when a diagram has drifted

The diagram comes from the compiled graph (`AgentSpec.mermaid()`); the rest of each file is
written by hand. tests/unit/core/test_agent_docs.py fails when a diagram has drifted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dure.agents import BUILTIN, get_agent

DOCS = Path(__file__).resolve().parents[1] / "docs" / "agents"
BEGIN, END = "<!-- graph:begin (scripts/agent-docs.py) -->", "<!-- graph:end -->"


def main() -> int:
    check = "--check" in sys.argv[1:]
    drifted = []
    for name in BUILTIN:
        path = DOCS / f"{name}.md"
        text = (
            path.read_text(encoding="utf-8") if path.exists() else f"# {name}\n\n{BEGIN}\n{END}\n"
        )
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        new = f"{head}{BEGIN}\n```mermaid\n{get_agent(name).mermaid()}```\n{END}{tail}"
        if new != text:
            drifted.append(name)
            if not check:
                path.write_text(new, encoding="utf-8")
    if drifted:
        print(("drifted: " if check else "updated: ") + ", ".join(drifted))
    return 1 if check and drifted else 0


if __name__ == "__main__":
    raise SystemExit(main())
