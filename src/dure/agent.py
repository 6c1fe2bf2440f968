"""The agent kit: the one shape every Dure agent has, and all that the rest of Dure sees of one.

An agent is a package with the same files for the same roles (docs/agents/README.md):

- `state.py`  — its state (a `TypedDict`), `make_input(turn, deps)` and `output(values)`;
- `deps.py`   — `Deps`, what its nodes work with, built once per graph from an `AgentContext`;
- `nodes.py`  — one function per node, `async def name(state, *, deps) -> State` (an update);
- `graph.py`  — `NODES` (name → function) and `EDGES` (edges and named branches);
- `prompts.py`, and `__init__.py` with `AGENT = AgentSpec(...)`.

The CLI, the HTTP server, the OpenAI-compatible API and the public `dure.run_stream` take an
`AgentSpec` and nothing else: `bind(ctx)` compiles the graph, `make_input` starts a turn,
`output` reads its answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, Literal, NamedTuple, TypedDict, TypeVar

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source

S = TypeVar("S")
D = TypeVar("D")


@dataclass
class AgentContext:
    """What an agent graph is built with: settings, models by role, checkpointer, options.

    `options` are per-run choices from the caller (a contract file, a collection, a pinned
    clock, injected tools in tests); each agent's `Deps.from_context` reads the ones it knows.
    """

    settings: Settings
    models: ModelSet
    checkpointer: BaseCheckpointSaver | None = None
    options: dict[str, Any] = field(default_factory=dict)


class ChatMessage(TypedDict):
    """One message of an explicit previous turn."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class UserTurn:
    """What the user said this turn, and (optionally) the previous turn given explicitly.

    Without `previous_turn` an agent reads the previous turn from the thread's checkpoint.
    With it, contract and pte use the given turn in place of the checkpoint's, the assistant
    adds it to the conversation before the message, and tasks (whose state is its slots)
    does not use it.
    """

    message: str
    previous_turn: Sequence[ChatMessage] | None = None


class Answer(NamedTuple):
    """An agent's answer for a turn: the text and the sources it cites."""

    text: str
    sources: list[Source]


@dataclass(frozen=True)
class Edge:
    """An unconditional edge `source → target` (`__start__` / `__end__` included)."""

    source: str
    target: str


@dataclass(frozen=True)
class Branch(Generic[S, D]):
    """A conditional edge: `route(state, deps)` names a branch, `paths` maps it to a node.

    Branch names are the ones the agent's spec uses (`in_scope`, `execute_parallel`, …), so
    the graph's diagram reads like the spec.
    """

    source: str
    route: Callable[[S, D], str]
    paths: Mapping[str, str]


Node = Callable[..., Awaitable[Any]]
#: What an agent waits for before its graph is built for a turn (the MCP servers' tools): the
#: context with what it found in `options`, and notes for the user (shown as thinking steps).
Prepare = Callable[[AgentContext], Awaitable[tuple[AgentContext, list[str]]]]


def _bound(route: Callable[[S, D], str], deps: D) -> Callable[[S], str]:
    def branch(state: S) -> str:
        return route(state, deps)

    branch.__name__ = getattr(route, "__name__", "branch")
    return branch


def _drawing_only(state: object) -> str:
    raise RuntimeError("a graph compiled for its diagram does not run")


@dataclass(frozen=True)
class BoundAgent(Generic[S, D]):
    """An agent compiled for one context: its graph and its dependencies."""

    spec: AgentSpec[S, D]
    deps: D
    graph: CompiledStateGraph

    def make_input(self, turn: UserTurn) -> S:
        """The graph input for a new turn."""
        return self.spec.make_input(turn, self.deps)


@dataclass(frozen=True)
class AgentSpec(Generic[S, D]):
    """How to build, feed and read one agent (see the module docstring for the layout)."""

    name: str
    title: str
    state: type[S]
    deps: Callable[[AgentContext], D]
    nodes: Mapping[str, Node]
    edges: Sequence[Edge | Branch[S, D]]
    make_input: Callable[[UserTurn, D], S]
    output: Callable[[S], Answer]
    prepare: Prepare | None = None

    def bind(self, ctx: AgentContext) -> BoundAgent[S, D]:
        """Build the dependencies once and compile the graph on `ctx.checkpointer`."""
        deps = self.deps(ctx)
        graph = self._graph(lambda node: partial(node, deps=deps), lambda r: _bound(r, deps))
        compiled = graph.compile(checkpointer=ctx.checkpointer, name=self.name)
        return BoundAgent(self, deps, compiled)

    def drawing(self) -> CompiledStateGraph:
        """The graph compiled for its shape and schemas only (no deps are built; it does not
        run): the Mermaid diagram, and what LangGraph clients read about an assistant."""
        return self._graph(lambda node: node, lambda route: _drawing_only).compile(name=self.name)

    def mermaid(self) -> str:
        """The graph as a Mermaid diagram (docs/agents/<name>.md holds it)."""
        return self.drawing().get_graph().draw_mermaid()

    def _graph(
        self,
        node_of: Callable[[Node], Callable[..., Awaitable[Any]]],
        route_of: Callable[[Callable[[S, D], str]], Callable[[S], str]],
    ) -> StateGraph:
        graph: StateGraph = StateGraph(self.state)
        for name, node in self.nodes.items():
            graph.add_node(name, node_of(node))
        for edge in self.edges:
            if isinstance(edge, Edge):
                graph.add_edge(edge.source, edge.target)
            else:
                paths: dict[Hashable, str] = {k: v for k, v in edge.paths.items()}
                graph.add_conditional_edges(edge.source, route_of(edge.route), paths)
        return graph

    def build(self, ctx: AgentContext) -> CompiledStateGraph:
        """The compiled graph alone (for reading a thread's state)."""
        return self.bind(ctx).graph
