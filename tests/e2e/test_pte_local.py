"""The real local model compiles seed 004's plans under the plan schema (constrained decoding).

Runs the planner node with the local GGUF model (settings.model_path; `make test` sets
DURE_LOCAL__PATH) over local stand-in tools named as the seed's tools.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from dure.agents.pte.nodes import Deps, planner
from dure.agents.pte.plan import check_plan, plan_schema, step_dependencies
from dure.agents.pte.state import turn_input
from dure.llm import ModelSet
from dure.settings import Settings
from dure.tools.base import Tool, ToolRegistry
from dure.tools.summarize import summarize_tool

pytestmark = pytest.mark.local_model


class Query(BaseModel):
    query: str = Field(description="검색어")


class City(BaseModel):
    city: str = Field(description="도시 이름 (예: 서울)")


class Expression(BaseModel):
    expression: str = Field(description="계산식 (예: 2*(3+4))")


class Zone(BaseModel):
    timezone: str = Field("Asia/Seoul", description="시간대")


def stand_in_tools(models: ModelSet) -> ToolRegistry:
    """The seed's six tools; planning never runs them, so they only echo."""
    return ToolRegistry(
        [
            Tool("web_search", "웹에서 최신 정보를 검색합니다.", Query, lambda query: query),
            Tool("get_weather", "도시의 현재 날씨를 알려 줍니다.", City, lambda city: city),
            Tool("calculator", "수식을 계산합니다.", Expression, lambda expression: expression),
            Tool("search_wikipedia", "위키백과에서 개념을 찾습니다.", Query, lambda query: query),
            Tool("get_current_datetime", "현재 날짜와 시각.", Zone, lambda timezone: timezone),
            summarize_tool(lambda: models("fast")),
        ]
    )


@pytest.fixture
def local_settings(settings: Settings) -> Settings:
    path: Path = settings.model_path
    if not path.is_file():
        pytest.fail(
            f"로컬 모델 파일이 없습니다: {path}. `make model`(dure models pull)로 조립하거나 "
            "DURE_LOCAL__PATH에 GGUF 경로를 지정하세요."
        )
    return settings.model_copy(update={"provider": "local"})


async def plan_for(settings: Settings, request: str) -> list[dict]:
    models = ModelSet(settings)
    tools = stand_in_tools(models)
    state = {**turn_input(request, tools), "rewritten_query": request}
    update = await planner(state, deps=Deps(settings=settings, models=models, tools=tools))
    assert update.get("error") is None, update.get("error")
    steps = update["plan"]
    # Valid against the schema and the allow-list, independently of the node's own check.
    allowed = tuple(tools.names())
    assert check_plan(plan_schema(allowed).model_validate({"plan": steps}), allowed) == steps
    assert steps, "the model planned no step for a request that needs a tool"
    return steps


async def test_weather_plan_validates(local_settings: Settings) -> None:
    steps = await plan_for(local_settings, "서울 날씨 알려줘")
    assert {s["tool"] for s in steps} & {"get_weather", "web_search"}


async def test_search_then_summarize_plan_validates(local_settings: Settings) -> None:
    steps = await plan_for(local_settings, "LangGraph가 뭔지 검색하고 요약해줘")
    tools = [s["tool"] for s in steps]
    assert "summarize" in tools
    summarize = steps[tools.index("summarize")]
    assert step_dependencies(summarize), "summarize should take an earlier step's output"
