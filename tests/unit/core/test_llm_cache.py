"""The persistent LLM cache: keyed on messages + parameters, counted in usage, kept on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from dure.events import Done, Token
from dure.llm.cache import SQLiteLLMCache
from dure.tags import ANSWER_TAG
from dure.testing import ScriptedChatModel

from .helpers import line_graph, run_turn


def weather(city: str) -> str:
    """날씨를 알려 줍니다."""
    return city


def calculator(expression: str) -> str:
    """계산합니다."""
    return expression


@pytest.fixture
def cache(tmp_path: Path) -> SQLiteLLMCache:
    return SQLiteLLMCache(tmp_path / "cache" / "llm.sqlite")


def test_identical_call_is_served_from_the_cache(cache: SQLiteLLMCache) -> None:
    model = ScriptedChatModel(["처음 답", "두 번째 답"], cache=cache)
    first = model.invoke([HumanMessage("보증금은 얼마야?")])
    again = model.invoke([HumanMessage("보증금은 얼마야?")])
    assert first.content == again.content == "처음 답"
    assert len(model.calls) == 1 and model.remaining == 1
    assert len(cache) == 1


def test_a_hit_prints_no_beta_notice(tmp_path: Path) -> None:
    # LangChain warns once per process, so a fresh one shows what a user's first hit prints.
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from langchain_core.messages import HumanMessage\n"
        "from dure.llm.cache import SQLiteLLMCache\n"
        "from dure.testing import ScriptedChatModel\n"
        "cache = SQLiteLLMCache(Path(sys.argv[1]))\n"
        "model = ScriptedChatModel(['처음 답'], cache=cache)\n"
        "model.invoke([HumanMessage('월세는?')])\n"
        "print(model.invoke([HumanMessage('월세는?')]).content)\n"
    )
    run = subprocess.run(
        [sys.executable, "-W", "always", "-c", script, str(tmp_path / "llm.sqlite")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.strip() == "처음 답"
    assert "Warning" not in run.stderr


def test_tool_calls_survive_the_cache(cache: SQLiteLLMCache) -> None:
    from dure.testing import tool_call

    model = ScriptedChatModel([tool_call("weather", city="서울")], cache=cache)
    bound = model.bind_tools([weather])
    bound.invoke("서울 날씨")
    cached = bound.invoke("서울 날씨")
    assert [(c["name"], c["args"]) for c in cached.tool_calls] == [("weather", {"city": "서울"})]
    assert len(model.calls) == 1


@pytest.mark.parametrize(
    "second",
    [
        pytest.param(lambda m: m.invoke("다른 질문"), id="other-messages"),
        pytest.param(lambda m: m.bind(temperature=0.7).invoke("질문"), id="other-params"),
        pytest.param(lambda m: m.bind_tools([weather]).invoke("질문"), id="tools"),
        pytest.param(
            lambda m: m.bind(response_format={"type": "json_object"}).invoke("질문"),
            id="response-format",
        ),
    ],
)
def test_a_different_request_misses(cache: SQLiteLLMCache, second: Any) -> None:
    model = ScriptedChatModel(["첫 답", "둘째 답"], cache=cache)
    model.invoke("질문")
    assert second(model).content == "둘째 답"
    assert len(model.calls) == 2


def test_different_tools_miss(cache: SQLiteLLMCache) -> None:
    model = ScriptedChatModel(["첫 답", "둘째 답"], cache=cache)
    model.bind_tools([weather]).invoke("질문")
    assert model.bind_tools([calculator]).invoke("질문").content == "둘째 답"


def test_cache_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    ScriptedChatModel(["저장된 답"], cache=SQLiteLLMCache(path)).invoke("질문")
    fresh = ScriptedChatModel([], cache=SQLiteLLMCache(path))  # would raise if it were called
    assert fresh.invoke("질문").content == "저장된 답"
    assert fresh.calls == []


def test_clear_empties_the_cache(cache: SQLiteLLMCache) -> None:
    model = ScriptedChatModel(["하나", "둘"], cache=cache)
    model.invoke("질문")
    cache.clear()
    assert len(cache) == 0
    assert model.invoke("질문").content == "둘"


async def test_hits_and_misses_are_counted_in_usage(cache: SQLiteLLMCache) -> None:
    model = ScriptedChatModel(["계획", "캐시될 답변"], cache=cache)

    async def plan(state: dict[str, Any]) -> dict[str, Any]:
        await model.ainvoke(f"계획: {state['question']}")
        return {}

    async def respond(state: dict[str, Any]) -> dict[str, Any]:
        reply = await model.ainvoke(f"답: {state['question']}", config={"tags": [ANSWER_TAG]})
        return {"answer": reply.content}

    graph = line_graph(("plan", plan), ("respond", respond))
    first = (await run_turn(graph, "보증금", thread_id="a"))[-1]
    events = await run_turn(graph, "보증금", thread_id="b")
    second = events[-1]
    assert isinstance(first, Done) and isinstance(second, Done)
    assert (first.usage.llm_calls, first.usage.cache_misses, first.usage.cache_hits) == (2, 2, 0)
    assert (second.usage.llm_calls, second.usage.cache_misses, second.usage.cache_hits) == (0, 0, 2)
    assert second.usage.prompt_tokens == second.usage.completion_tokens == 0
    assert second.usage.by_node["respond"].cache_hits == 1
    assert second.content == "캐시될 답변"
    # A cached answer still reaches the user as tokens.
    assert "".join(e.content for e in events if isinstance(e, Token)) == "캐시될 답변"
    assert len(model.calls) == 2
