"""LLM calls per turn of the task agent, by node, over scripted conversations.

TO-BE (measured on the real graph, scripted model, no network): the Q&A gate makes 0 LLM calls
when the required slots are filled; a turn that needs a question makes exactly 1 call (the
phrasing); a lunch that reaches its workers makes one more (the menu ranking, in `worker`).
Baseline, in the same run: the seed's AS-IS Q&A, where an LLM judges each turn
whether more information is needed and then phrases the question — once with a judge that is
always right (the cost floor of that design: 1 call in the gate per turn, even when everything
was given) and once with a cautious judge (the seed's failure: it keeps asking while the user
repeats the same information).
"""

from __future__ import annotations

import asyncio
import re
from datetime import datetime
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.tasks import AGENT
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import LUNCH
from dure.agents.tasks.prompts import GATE_MESSAGE
from dure.agents.tasks.state import ConversationState
from dure.events import Done, Question, Thinking, stream_turn
from dure.korean.slots.parser import parse_slots
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel

NOW = "2025-03-05T10:00:00+09:00"
AS_IS_TURNS = 5
SCENARIOS: dict[str, list[str]] = {
    "모두 한 번에 (점심)": ["을지로, 2명, 12시 30분"],
    "시드 1~4단계": ["을지로에서 2명", "12시 30분"],
    "빈 요청에서 시작": ["점심 추천해줘", "을지로 2명 12시 반"],
    "잘못된 값 다시 묻기": ["을지로 2명 저녁 7시", "12시"],
    "대기 중 정정": ["을지로 3명", "아 3명 말고 4명, 12시"],
    "완료 후 정정": ["을지로 2명 12시", "5명으로 바꿔줘"],
    "회의실 + 확인": ["내일 오후 2시 회의실 6명", "네"],
    "일반 대화": ["안녕하세요"],
}
_HINT = re.compile(r"빠진 정보: [^(]*\((?P<hint>[^)]*)\)")


def respond(call: Call) -> Any:
    """A scripted model that always answers well (the question reuses the slot's hint)."""
    if call.node == "qa_agent":
        hint = _HINT.search(call.prompt)
        return {
            "pattern": "ASK",
            "acknowledgement": "",
            "question": hint.group("hint") if hint else "무엇을 도와드릴까요?",
        }
    if call.node == "planner":
        return {"intent": "general"}
    if call.node == "worker":  # the lunch menu ranking: the first dish it was offered
        offered = [line[2:].split(" (")[0] for line in call.prompt.splitlines() if line[:2] == "- "]
        return {"dishes": offered[:1]}
    return "결과를 정리해 드렸어요."


def _asked(events: list[Any], gate: list[str]) -> str:
    """ "question" (the gate asked for missing slots), "confirm" (rule-based), or ""."""
    if not any(isinstance(e, Question) for e in events):
        return ""
    return "confirm" if GATE_MESSAGE in gate else "question"


async def _conversation(settings: Settings, messages: list[str]) -> list[dict[str, Any]]:
    model = ScriptedChatModel(respond)
    ctx = AgentContext(settings, ModelSet(settings, model), InMemorySaver(), {"now": NOW})
    turns = []
    for message in messages:
        before = len(model.calls)
        events = [e async for e in stream_turn(AGENT, ctx, "bench", message)]
        calls = [c.node for c in model.calls[before:]]
        gate = [e.content for e in events if isinstance(e, Thinking) and e.step == "qa_agent"]
        turns.append(
            {
                "message": message,
                "llm_calls": len(calls),
                "by_node": {n: calls.count(n) for n in dict.fromkeys(calls)},
                "qa_agent_calls": calls.count("qa_agent"),
                "asked": _asked(events, gate),
                "gate_passed": gate.count(GATE_MESSAGE),
                "waiting": isinstance(events[-1], Done) and events[-1].waiting,
            }
        )
    return turns


def _as_is(messages: list[str], judge_is_cautious: bool) -> dict[str, Any]:
    """The seed's AS-IS Q&A: every turn an LLM decides "추가 정보가 필요한가?" (then phrases)."""

    def judge(call: Call) -> str:
        if not call.prompt.startswith("판단"):
            return "예산은 어떻게 되시나요?"  # the seed: "예산도 물어보는 게 좋을 것 같아요"
        return "네" if judge_is_cautious or "빠짐" in call.prompt else "아니오"

    model = ScriptedChatModel(judge)
    conv = ConversationState.for_intent(LUNCH)
    now = datetime.fromisoformat(NOW)
    for turn in range(1, AS_IS_TURNS + 1):
        message = messages[min(turn, len(messages)) - 1]  # the user repeats the last message
        apply_parse(conv, parse_slots(message, LUNCH, now), LUNCH, now)
        state = "빠짐" if conv.get_missing_required_slots(now) else "채움"
        verdict = model.invoke([HumanMessage(f"판단: 추가 정보가 필요한가? 슬롯 {state}")]).text
        if verdict == "아니오":
            return {
                "turns_to_worker": turn,
                "gate_calls": len(model.calls),
                "gate_calls_per_turn": len(model.calls) / turn,
            }
        model.invoke([HumanMessage("질문을 만들어 주세요")])
    return {
        "turns_to_worker": None,
        "gate_calls": len(model.calls),
        "gate_calls_per_turn": len(model.calls) / AS_IS_TURNS,
    }


async def _run(settings: Settings) -> dict[str, Any]:
    scenarios = {name: await _conversation(settings, msgs) for name, msgs in SCENARIOS.items()}
    turns = [t for scenario in scenarios.values() for t in scenario]
    all_given = [t for t in turns if t["gate_passed"]]
    asking = [t for t in turns if t["asked"] == "question"]
    checks = {
        "gate_calls_when_all_given": sum(t["qa_agent_calls"] for t in all_given),
        "turns_all_given": len(all_given),
        "calls_per_question_turn": sorted({t["llm_calls"] for t in asking}),
        "turns_asking": len(asking),
    }
    checks["pass"] = checks["gate_calls_when_all_given"] == 0 and checks[
        "calls_per_question_turn"
    ] == [1]
    baseline = {
        "perfect_judge": _as_is(["을지로, 2명, 12시 30분"], judge_is_cautious=False),
        "cautious_judge": _as_is(["을지로, 2명, 12시 30분"], judge_is_cautious=True),
    }
    return {"scenarios": scenarios, "checks": checks, "as_is_baseline": baseline}


def run() -> dict[str, Any]:
    """Run every scenario, print a table, return the results."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        results = asyncio.run(_run(Settings(data_dir=tmp, enable_cache=False)))
    print("tasks_llm_calls — LLM calls per turn (scripted model)")
    print(f"{'scenario':20} {'turn':28} {'calls':>5} {'gate':>5} {'asks':>8}  by node")
    for name, turns in results["scenarios"].items():
        for t in turns:
            print(
                f"{name:20} {t['message'][:26]:28} {t['llm_calls']:>5} {t['qa_agent_calls']:>5} "
                f"{t['asked'] or '-':>8}  {t['by_node']}"
            )
    c = results["checks"]
    print(
        f"gate LLM calls when all slots given: {c['gate_calls_when_all_given']} over {c['turns_all_given']} turns · "
        f"LLM calls in a turn that asks: {c['calls_per_question_turn']} over {c['turns_asking']} turns"
    )
    for judge, b in results["as_is_baseline"].items():
        reached = b["turns_to_worker"] or f"never in {AS_IS_TURNS}"
        print(
            f"AS-IS ({judge}): gate calls/turn {b['gate_calls_per_turn']:.1f}, turns to worker: {reached}"
        )
    print(
        f"targets (0 in the gate when all given, exactly 1 per question): {'PASS' if c['pass'] else 'FAIL'}"
    )
    return results


if __name__ == "__main__":
    run()
