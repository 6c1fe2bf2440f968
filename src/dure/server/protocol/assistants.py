"""Assistants: one per agent (`graph_id` = the agent's name), read-only."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from dure.agent import AgentSpec
from dure.agents import agent_names, get_agent
from dure.server.deps import Owner
from dure.server.protocol.wire import assistant, assistant_id

router = APIRouter(tags=["langgraph"])

NOT_FOUND = "어시스턴트를 찾을 수 없습니다."
#: What a run takes: the conversation's new messages (the last user message is the turn).
INPUT_SCHEMA = {
    "title": "Input",
    "type": "object",
    "properties": {
        "messages": {
            "type": "array",
            "items": {"type": "object"},
            "description": "새 메시지 (마지막 사용자 메시지가 이번 차례의 질문)",
        }
    },
    "required": ["messages"],
}


def find_agent(assistant: str) -> AgentSpec:
    """The agent an assistant id or graph id names (404 otherwise)."""
    for name in agent_names():
        if assistant in (name, assistant_id(name)):
            return get_agent(name)
    raise HTTPException(404, NOT_FOUND)


def _state_schema(spec: AgentSpec) -> dict[str, Any]:
    fields = getattr(spec.state, "__annotations__", {})
    return {"title": spec.state.__name__, "type": "object", "properties": {k: {} for k in fields}}


class AssistantSearch(BaseModel):
    """`POST /assistants/search`."""

    model_config = ConfigDict(extra="allow")

    graph_id: str | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)


@router.post("/assistants/search", summary="어시스턴트 찾기 (LangGraph)")
async def search_assistants(body: AssistantSearch, owner: Owner) -> list[dict[str, Any]]:
    """Every agent as an assistant, filtered by graph id, name or metadata."""
    found = [assistant(get_agent(n)) for n in agent_names()]
    found = [
        a
        for a in found
        if body.graph_id in (None, a["graph_id"])
        and body.name in (None, a["name"])
        and all(a["metadata"].get(k) == v for k, v in (body.metadata or {}).items())
    ]
    return found[body.offset : body.offset + body.limit]


@router.post("/assistants/count", summary="어시스턴트 수 (LangGraph)")
async def count_assistants(body: AssistantSearch, owner: Owner) -> int:
    """How many assistants the search finds."""
    return len(await search_assistants(body.model_copy(update={"limit": 1000}), owner))


@router.get("/assistants/{assistant_id}", summary="어시스턴트 (LangGraph)")
async def read_assistant(assistant_id: str, owner: Owner) -> dict[str, Any]:
    """One assistant, by id or graph id."""
    return assistant(find_agent(assistant_id))


@router.get("/assistants/{assistant_id}/graph", summary="어시스턴트 그래프 (LangGraph)")
async def read_graph(assistant_id: str, owner: Owner, xray: bool | int = False) -> dict[str, Any]:
    """The graph's nodes and edges, as LangGraph draws them."""
    return find_agent(assistant_id).drawing().get_graph().to_json()


@router.get("/assistants/{assistant_id}/schemas", summary="어시스턴트 스키마 (LangGraph)")
async def read_schemas(assistant_id: str, owner: Owner) -> dict[str, Any]:
    """What a run takes (`messages`) and the fields of the agent's state."""
    spec = find_agent(assistant_id)
    state = _state_schema(spec)
    return {
        "graph_id": spec.name,
        "input_schema": INPUT_SCHEMA,
        "output_schema": state,
        "state_schema": state,
        "config_schema": None,
        "context_schema": None,
    }


@router.get("/assistants/{assistant_id}/subgraphs", summary="하위 그래프 (LangGraph)")
async def read_subgraphs(assistant_id: str, owner: Owner) -> dict[str, Any]:
    """Dure's agents have no subgraphs."""
    find_agent(assistant_id)
    return {}
