"""How often the assistant's router rules decide without an LLM call, and whether rightly.

A labelled set of 48 questions (a collection is configured, so `rag` is possible): the route
a careful reader would choose. Baseline: the seed's router, which calls the LLM for every
question (48 calls). Reported: questions the rules decide, LLM calls saved, and wrong rule
decisions (target 0 — a rule must never be wrong; the unsure ones go to the LLM).
"""

from __future__ import annotations

from typing import Any

from dure.korean.route import rule_route

#: (question, the right route)
LABELLED = [
    # documents
    ("회사 휴가 정책이 뭐야?", "rag"),
    ("출장비 규정 알려줘", "rag"),
    ("사내 보안 지침에서 외부 메일 관련 내용", "rag"),
    ("취업 규칙상 지각 기준은?", "rag"),
    ("복리후생 제도에 뭐가 있어?", "rag"),
    ("재택근무 정책 정리해줘", "rag"),
    ("신입 온보딩 매뉴얼 요약해줘", "rag"),
    ("개인정보 처리 지침 알려줘", "rag"),
    ("연차는 며칠이야?", "rag"),
    ("병가 쓰려면 어떤 절차가 필요해?", "rag"),
    ("우리 회사 경조사 지원은 어떻게 돼?", "rag"),
    ("법인카드 사용 규정에서 회식비 한도", "rag"),
    # tools and conversation
    ("안녕하세요", "agent"),
    ("고마워요!", "agent"),
    ("ㅋㅋㅋ", "agent"),
    ("123 * 456 계산해줘", "agent"),
    ("(15+27)^2는 얼마야", "agent"),
    ("3.5 곱하기 12는?", "agent"),
    ("서울 날씨 어때?", "agent"),
    ("부산 기온 알려줘", "agent"),
    ("지금 몇 시야?", "agent"),
    ("오늘이 무슨 요일이지", "agent"),
    ("뉴욕은 지금 몇 시야?", "agent"),
    ("파이썬으로 1부터 100까지 소수 구해줘", "agent"),
    ("이 코드 실행해줘: print(2**100)", "agent"),
    ("위키에서 세종대왕 찾아봐", "agent"),
    ("오늘 주요 뉴스 검색해줘", "agent"),
    ("달러 환율 얼마야?", "agent"),
    ("리스트 정렬하는 파이썬 코드 짜줘", "agent"),
    ("미세먼지 어때", "agent"),
    # left to the LLM (mixed, conversational or context-dependent)
    ("회사 규정대로 연차 남은 일수 계산해줘", "rag"),
    ("출장 규정 기준으로 2박 3일 비용 계산", "rag"),
    ("회사 근처 날씨 어때?", "agent"),
    ("내 이름은 철수야", "agent"),
    ("아까 말한 프로젝트 마감일이 언제라고 했지?", "agent"),
    ("오늘 기분이 참 좋네", "agent"),
    ("응, 그건 어떻게 신청해?", "rag"),
    ("안녕하세요, 휴가 신청은 어떻게 해요?", "rag"),
    ("네이버 주가", "agent"),
    ("팀장님께 보낼 메일 초안 써줘", "agent"),
    ("문서에 있는 내용 말고 일반적인 조언을 줘", "agent"),
    ("LangGraph가 뭐야?", "agent"),
    ("회의록 정리하는 팁 알려줘", "agent"),
    ("업무 시간은 몇 시부터야?", "rag"),
    ("육아휴직은 얼마나 쓸 수 있어?", "rag"),
    ("좋은 하루 보내", "agent"),
    ("오늘 저녁 뭐 먹지?", "agent"),
    ("그럼 그건 누구한테 물어봐야 해?", "rag"),
]


def run() -> dict[str, Any]:
    """Rule decisions over the labelled set; prints a table and returns the numbers."""
    decided = wrong = 0
    mistakes: list[str] = []
    by_route = {"rag": 0, "agent": 0}
    for question, right in LABELLED:
        decision = rule_route(question, has_collection=True)
        if decision is None:
            continue
        decided += 1
        by_route[decision.route] += 1
        if decision.route != right:
            wrong += 1
            mistakes.append(f"{question} → {decision.route} (정답 {right})")
    total = len(LABELLED)
    result = {
        "questions": total,
        "decided_by_rules": decided,
        "share_decided": round(decided / total, 3),
        "rule_decisions_by_route": by_route,
        "wrong_rule_decisions": wrong,
        "mistakes": mistakes,
        "router_llm_calls": {"seed": total, "ours": total - decided},
    }
    print("\n어시스턴트 라우터: 규칙이 LLM 없이 결정한 질문")
    print(
        f"  {decided}/{total} ({decided / total:.0%}) — rag {by_route['rag']}, agent {by_route['agent']}"
    )
    print(f"  라우터 LLM 호출: 시드 {total}회 → {total - decided}회, 규칙 오판 {wrong}건")
    for m in mistakes:
        print(f"  ✗ {m}")
    return result


if __name__ == "__main__":
    run()
