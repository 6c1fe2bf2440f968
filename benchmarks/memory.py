"""Seed 002's hybrid memory: what it saves, and what it keeps.

1. Tokens. A scripted 50-turn conversation runs through the real assistant graph twice, with
   the memory (MAX_MESSAGES=10, KEEP_RECENT=5, MAX_SUMMARIES=3) and without it (baseline: the
   whole history every turn). Reported: the agent's prompt tokens at turns 10, 25 and 50, the
   share saved (the seed claims about 90% at 50), and every prompt token of the run including
   the summariser's own calls (the price of the saving). Messages are sized like the seed's
   example (~1,000 tokens each); tokens are counted with the local model's tokenizer when
   its file is present, else estimated (3 characters a token).
2. Facts. With the real local model as the summariser, a 30-turn conversation plants 20
   facts (names, dates, amounts, decisions); reported: how many are still in the memory (the
   summaries plus the kept messages) at the end. Baselines in the same run: the window alone
   (no summaries) and, time permitting, the seed's plain summariser ("요약해 주세요", no
   previous summaries shown). Each of the two local runs is bounded by
   `DURE_BENCH_MEMORY_SECONDS` (default 1200 s) and reports how far it got.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.memory import (
    KEEP_RECENT,
    add_summary_to_window,
    compact,
    cut_index,
    needs_summary,
    render_transcript,
)
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel

MEASURED_TURNS = (10, 25, 50)
TURNS = 50
MESSAGE_TOKENS = 1_000  # the seed's assumption per message
SUMMARY_TOKENS = 500  # the seed's assumption per summary
FACT_TURNS = 30
DEFAULT_BUDGET_SECONDS = 1_200

_SENTENCES = [
    "이번 분기 프로젝트 진행 상황을 정리해 보면 일정은 대체로 계획대로 가고 있습니다.",
    "다만 외부 협력사와의 인터페이스 협의가 늦어져서 통합 테스트가 일주일 정도 밀릴 수 있습니다.",
    "예산 집행률은 현재 62퍼센트이고 남은 항목은 장비 구매와 교육 비용입니다.",
    "고객사 담당자는 다음 주 화요일에 중간 점검 회의를 요청했습니다.",
    "품질 기준은 결함 밀도와 응답 시간 두 가지로 관리하기로 했습니다.",
    "배포 자동화는 이미 적용되어 있어서 릴리스 준비 시간이 크게 줄었습니다.",
]


# --- 1. tokens -------------------------------------------------------------------------------


def token_counter(settings: Settings) -> tuple[Callable[[str], int], str]:
    """Count with the local model's tokenizer (vocabulary only) if its file is present."""
    path = settings.model_path
    if path.exists():
        try:
            from llama_cpp import Llama

            vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)
            return (lambda text: len(vocab.tokenize(text.encode(), add_bos=False))), "qwen2.5"
        except Exception as e:  # an unloadable file: fall back, and say so
            print(f"(tokenizer unavailable: {e}; estimating)")
    return (lambda text: max(1, len(text) // 3)), "estimate(chars/3)"


def filler(count: Callable[[str], int], label: str, tokens: int) -> str:
    """Korean business prose of about `tokens` tokens, labelled so messages differ."""
    parts = [label]
    i = 0
    while count(" ".join(parts)) < tokens:
        parts.append(_SENTENCES[i % len(_SENTENCES)])
        i += 1
    return " ".join(parts)


def _prompt_tokens(call: Call, count: Callable[[str], int]) -> int:
    # Each message's text plus a few tokens of chat-template framing.
    return sum(count(str(m.content)) + 4 for m in call.messages)


async def _conversation(settings: Settings, memory: bool, count: Callable[[str], int]) -> dict:
    user = {t: filler(count, f"[{t}번째 질문]", MESSAGE_TOKENS) for t in range(1, TURNS + 1)}
    reply = {t: filler(count, f"[{t}번째 답변]", MESSAGE_TOKENS) for t in range(1, TURNS + 1)}
    summary = filler(count, "핵심 사실: 이름 철수, 마감 3월 15일, 예산 1억원.", SUMMARY_TOKENS)
    turn_no = 0

    def respond(call: Call) -> str:
        return summary if call.node == "memory" else reply[turn_no]

    model = ScriptedChatModel(respond)
    cfg = settings.assistant.model_copy(update={"max_messages": 10 if memory else 10**9})
    run_settings = settings.model_copy(update={"assistant": cfg})
    ctx = AgentContext(run_settings, ModelSet(run_settings, model), InMemorySaver(), {})
    agent_tokens: dict[int, int] = {}
    for turn_no in range(1, TURNS + 1):
        before = len(model.calls)
        async for _ in stream_turn(AGENT, ctx, "bench", user[turn_no]):
            pass
        agent_call = next(c for c in model.calls[before:] if c.node == "agent")
        agent_tokens[turn_no] = _prompt_tokens(agent_call, count)
    return {
        "agent_prompt_tokens": {t: agent_tokens[t] for t in MEASURED_TURNS},
        "all_prompt_tokens": sum(_prompt_tokens(c, count) for c in model.calls),
        "llm_calls": len(model.calls),
        "summaries": sum(c.node == "memory" for c in model.calls),
    }


def token_savings(settings: Settings) -> dict[str, Any]:
    """The same conversation with and without the memory."""
    count, tokenizer = token_counter(settings)
    with_memory = asyncio.run(_conversation(settings, True, count))
    without = asyncio.run(_conversation(settings, False, count))
    saved = {
        t: round(1 - with_memory["agent_prompt_tokens"][t] / without["agent_prompt_tokens"][t], 3)
        for t in MEASURED_TURNS
    }
    return {
        "tokenizer": tokenizer,
        "message_tokens": MESSAGE_TOKENS,
        "with_memory": with_memory,
        "without_memory": without,
        "agent_prompt_saved": saved,
        "all_prompt_saved": round(
            1 - with_memory["all_prompt_tokens"] / without["all_prompt_tokens"], 3
        ),
    }


# --- 2. facts --------------------------------------------------------------------------------

#: (what the user says, the words that must survive)
FACTS = [
    ("제 이름은 김민수입니다.", "김민수"),
    ("이번 프로젝트 이름은 한빛이에요.", "한빛"),
    ("최종 마감일은 3월 15일이에요.", "3월 15일"),
    ("총 예산은 1억 2천만 원으로 확정됐어요.", "1억 2천만"),
    ("디자인 담당은 박지영 과장이에요.", "박지영"),
    ("주간 회의는 매주 화요일 오전 10시에 해요.", "화요일"),
    ("회의 장소는 본사 7층 대회의실이에요.", "7층"),
    ("고객사는 대한물산입니다.", "대한물산"),
    ("계약 금액은 8천5백만 원으로 결정했어요.", "8천5백만"),
    ("출시일은 6월 1일로 잡았어요.", "6월 1일"),
    ("QA 담당은 이수진 대리예요.", "이수진"),
    ("베타 테스터는 50명을 모집하기로 했어요.", "50명"),
    ("서버는 AWS 서울 리전을 쓰기로 결정했어요.", "서울 리전"),
    ("데이터베이스는 PostgreSQL로 정했어요.", "PostgreSQL"),
    ("중간 보고는 4월 20일이에요.", "4월 20일"),
    ("유지보수 계약 기간은 2년이에요.", "2년"),
    ("외주 개발사는 누리소프트예요.", "누리소프트"),
    ("사무실 주소는 테헤란로 152예요.", "테헤란로 152"),
    ("팀 회식은 5월 9일로 정했어요.", "5월 9일"),
    ("보안 점검은 외부 업체 없이 내부에서 하기로 했어요.", "내부"),
]
CHAT = [
    "오늘 날씨가 정말 좋네요.",
    "점심 메뉴 추천해 줄 수 있어요?",
    "요즘 너무 바빠서 정신이 없어요.",
    "커피를 너무 많이 마신 것 같아요.",
    "주말에 뭐 할지 고민이에요.",
    "아까 말한 것들 잘 정리해 주세요.",
    "그럼 다음 단계는 뭘까요?",
    "좋아요, 계속 진행해 봅시다.",
    "일정이 빠듯하긴 하네요.",
    "고마워요, 도움이 됐어요.",
]
REPLY = "네, 알겠습니다. 기억해 두겠습니다."

SEED_SUMMARY_PROMPT = "다음 대화를 간결하게 요약해 주세요."


def script() -> list[str]:
    """30 user messages: the 20 facts, with small talk between them."""
    facts, chat = iter(FACTS), iter(CHAT)
    return [next(chat) if t % 3 == 2 else next(facts)[0] for t in range(FACT_TURNS)]


def _norm(text: str) -> str:
    return "".join(text.split()).lower()


def recalled(memory_text: str) -> list[str]:
    """The facts whose words are still in `memory_text` (spacing ignored)."""
    text = _norm(memory_text)
    return [key for _, key in FACTS if _norm(key) in text]


async def _seed_summary(model: Any, old: list[BaseMessage], summary: str) -> str:
    """The seed's plain summariser: only the old messages, no earlier summaries, no rules."""
    prompt = [SystemMessage(SEED_SUMMARY_PROMPT), HumanMessage(render_transcript(old))]
    reply = await model.ainvoke(prompt)
    return add_summary_to_window(summary, reply.text.strip())


async def _remember(model: Any, plain: bool, budget: float) -> dict[str, Any]:
    """Run the 30 turns through the memory step; what survives at the end."""
    messages: list[BaseMessage] = []
    summary = ""
    calls = 0
    started = time.perf_counter()
    for turn, text in enumerate(script(), 1):
        if time.perf_counter() - started > budget:
            return {"finished": False, "turns": turn - 1, "summaries": calls}
        messages.append(HumanMessage(text, id=f"h{turn}"))
        if needs_summary(messages):
            calls += 1
            elapsed = time.perf_counter() - started
            print(
                f"  ({'seed' if plain else 'dure'}) summary {calls} at turn {turn}, {elapsed:.0f}s"
            )
            if plain:
                cut = cut_index(messages, KEEP_RECENT)
                summary = await _seed_summary(model, messages[:cut], summary)
                messages = messages[cut:]
            else:
                result = await compact(model, messages, summary)
                if result is not None:
                    summary = result.summary
                    messages = messages[len(result.removed) :]
        messages.append(AIMessage(REPLY, id=f"a{turn}"))
    kept = summary + "\n" + "\n".join(str(m.content) for m in messages)
    found = recalled(kept)
    return {
        "finished": True,
        "turns": FACT_TURNS,
        "summaries": calls,
        "recalled": len(found),
        "missing": [k for _, k in FACTS if k not in found],
        "seconds": round(time.perf_counter() - started, 1),
        "final_summary": summary,
    }


def window_only_recall() -> int:
    """Baseline without summaries: what the last KEEP_RECENT messages still say."""
    messages = [m for text in script() for m in (text, REPLY)]
    return len(recalled("\n".join(messages[-KEEP_RECENT:])))


def fact_recall(settings: Settings) -> dict[str, Any]:
    """Planted facts recalled after 30 turns, with the local model summarising."""
    out: dict[str, Any] = {"facts": len(FACTS), "turns": FACT_TURNS}
    out["window_only"] = window_only_recall()
    if not settings.model_path.exists():
        out["skipped"] = f"local model not found: {settings.model_path} (run `dure models pull`)"
        return out
    from dure.llm import chat_model

    local = settings.model_copy(
        update={
            "provider": "local",
            "enable_cache": False,
            "local": settings.local.model_copy(update={"max_tokens": 512}),
        }
    )
    model = chat_model("fast", local)
    budget = float(os.environ.get("DURE_BENCH_MEMORY_SECONDS", DEFAULT_BUDGET_SECONDS))
    out["ours"] = asyncio.run(_remember(model, plain=False, budget=budget))
    out["seed_plain"] = asyncio.run(_remember(model, plain=True, budget=budget))
    return out


# --- report ----------------------------------------------------------------------------------


def _print(tokens: dict[str, Any], facts: dict[str, Any]) -> None:
    print(
        f"\n메모리: 에이전트 프롬프트 토큰 (메시지당 ~{MESSAGE_TOKENS} 토큰, {tokens['tokenizer']})"
    )
    print(f"{'턴':>4} {'메모리 없음':>12} {'하이브리드':>12} {'절약':>8}")
    for t in MEASURED_TURNS:
        without = tokens["without_memory"]["agent_prompt_tokens"][t]
        with_ = tokens["with_memory"]["agent_prompt_tokens"][t]
        print(f"{t:>4} {without:>12,} {with_:>12,} {tokens['agent_prompt_saved'][t]:>8.1%}")
    w, wo = tokens["with_memory"], tokens["without_memory"]
    print(
        f"50턴 전체 프롬프트 토큰(요약 호출 포함): {wo['all_prompt_tokens']:,} → "
        f"{w['all_prompt_tokens']:,} ({tokens['all_prompt_saved']:.1%} 절약, 요약 {w['summaries']}회)"
    )
    print(f"\n사실 기억: {facts['facts']}개를 {facts['turns']}턴에 심은 뒤 남은 개수")
    print(f"  최근 창만(요약 없음): {facts['window_only']}")
    for key, label in (("ours", "두레 요약기(로컬 모델)"), ("seed_plain", "시드식 단순 요약")):
        r = facts.get(key)
        if r is None:
            continue
        if r["finished"]:
            print(f"  {label}: {r['recalled']} (요약 {r['summaries']}회, {r['seconds']}초)")
        else:
            print(f"  {label}: 시간 한도로 {r['turns']}턴에서 중단")
    if "skipped" in facts:
        print(f"  로컬 모델: 건너뜀 — {facts['skipped']}")


def run() -> dict[str, Any]:
    """Both measurements; prints a table and returns the numbers."""
    settings = Settings()
    tokens = token_savings(settings)
    facts = fact_recall(settings)
    _print(tokens, facts)
    return {"tokens": tokens, "facts": facts}


if __name__ == "__main__":
    run()
