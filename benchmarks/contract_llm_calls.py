"""LLM calls per turn of the contract agent, by node, beside the seed's implied counts.

TO-BE: measured on the real graph over the sample contracts in `examples/` (real parser and
Kiwi keyword search, in-memory store), with a scripted model that plays each node's part.
Baseline (the seed's design, same scenarios): every in-scope turn calls the planner (tool
calling), the evaluator once per iteration and the answer; greetings go planner → answer; an
out-of-scope question costs the ScopeValidator's model call; a follow-up without a reference
word also costs check_previous_context's call.

Targets (issue 4): "제5조 내용이 뭐야?" ≤ 2 (seed 3); a paraphrased question answered in one
iteration ≤ 3; a greeting or an out-of-scope question ≤ 1.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.contract import AGENT
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel, tool_call

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "contracts" / "software_dev.md"
STANDARD = ROOT / "examples" / "standard" / "software_dev_standard.md"

SUFFICIENT = {"is_sufficient": True, "reasoning": "충분", "missing_info": None}
MISSING = {"is_sufficient": False, "reasoning": "부족", "missing_info": "손해배상 조항"}

# name → (turns, replies by node, seed's implied calls for the last turn, target)
Scenario = tuple[list[str], dict[str, list[Any]], int, int | None]
SCENARIOS: dict[str, Scenario] = {
    "조 번호 (제5조 내용이 뭐야?)": (
        ["제5조 내용이 뭐야?"],
        {"respond": ["제5조에 따르면 …"]},
        3,
        2,
    ),
    "바꿔 말한 질문, 1회 탐색": (
        ["개발이 늦어지면 벌금 같은 거 물어야 돼?"],
        {
            "planner": [tool_call("hybrid_search", query="납품 지연 지체상금")],
            "evaluator": [SUFFICIENT],
            "respond": ["제15조에 따라 …"],
        },
        3,
        3,
    ),
    "조 제목 (하도급 조항 보여줘)": (
        ["하도급 조항 보여줘"],
        {"respond": ["제11조에 따르면 …"]},
        3,
        None,
    ),
    "인사": (["안녕하세요!"], {"respond": ["안녕하세요! 계약서에 대해 물어보세요."]}, 2, 1),
    "범위 밖 (규칙)": (["오늘 서울 날씨 어때?"], {}, 1, 1),
    "범위 밖 (모델 판단)": (
        ["인생의 의미는 뭘까?"],
        {"scope_validator": [{"in_scope": False, "reasoning": "무관"}]},
        1,
        1,
    ),
    "표준계약서 비교 (제11조)": (
        ["제11조를 표준계약서와 비교해줘"],
        {"respond": ["제11조는 …"]},
        3,
        None,
    ),
    "시드 000 예시: 그 참조항목들": (
        ["제5조의2 내용이 뭐야?", "그 참조항목들 내용 정리해서 보여줘봐"],
        {"respond": ["제5조의2는 제22조를 참조합니다.", "정리하면 …"], "planner": [""]},
        2,
        None,
    ),
    "후속 질문 (참조어 없음)": (
        ["제3조 알려줘", "연장도 가능해?"],
        {
            "respond": ["제3조에 따르면 …", "제3조 제2항에 따라 …"],
            "check_previous_context": [{"need_previous_context": True, "reasoning": "후속"}],
            "planner": [""],
        },
        3,
        None,
    ),
    "2회 탐색 (missing_info)": (
        ["계약을 어기면 해지하고 돈도 받을 수 있어?"],
        {
            "planner": [
                tool_call("hybrid_search", query="계약 해지"),
                tool_call("get_article_by_title", title="손해배상"),
            ],
            "evaluator": [MISSING, SUFFICIENT],
            "respond": ["제22조와 제16조에 따라 …"],
        },
        5,
        None,
    ),
}


def _responder(replies: dict[str, list[Any]]):
    def respond(call: Call) -> Any:
        queue = replies.get(call.node or "")
        if not queue:
            raise AssertionError(f"unscripted call from {call.node}")
        return queue.pop(0)

    return respond


async def _scenario(settings: Settings, turns: list[str], replies: dict[str, list[Any]]) -> dict:
    model = ScriptedChatModel(_responder({k: list(v) for k, v in replies.items()}))
    options = {"contract": CONTRACT, "standard": STANDARD, "collection": "bench-contract"}
    ctx = AgentContext(settings, ModelSet(settings, model), InMemorySaver(), options)
    for message in turns:
        before = len(model.calls)
        events = [e async for e in stream_turn(AGENT, ctx, "bench", message)]
    nodes = [c.node for c in model.calls[before:]]
    return {
        "llm_calls": events[-1].usage.llm_calls,
        "by_node": {n: nodes.count(n) for n in dict.fromkeys(nodes)},
        "sources": [s.label() for s in events[-1].sources],
    }


async def _run(settings: Settings) -> dict[str, Any]:
    rows = {}
    for name, (turns, replies, seed, target) in SCENARIOS.items():
        got = await _scenario(settings, turns, replies)
        ok = target is None or got["llm_calls"] <= target
        rows[name] = {**got, "seed": seed, "target": target, "pass": ok}
    return {"scenarios": rows, "pass": all(r["pass"] for r in rows.values())}


def run() -> dict[str, Any]:
    """Run every scenario, print a table, return the results."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=tmp, enable_cache=False, search={"store": "memory"})
        results = asyncio.run(_run(settings))
    print("contract_llm_calls — LLM calls in the last turn (scripted model, real search)")
    print(f"{'scenario':32} {'seed':>4} {'ours':>4} {'target':>6}  by node")
    for name, r in results["scenarios"].items():
        target = f"≤{r['target']}" if r["target"] is not None else "-"
        print(f"{name:32} {r['seed']:>4} {r['llm_calls']:>4} {target:>6}  {r['by_node']}")
    print(f"targets: {'PASS' if results['pass'] else 'FAIL'}")
    return results


if __name__ == "__main__":
    run()
