"""Everyday Korean → contract terms, to close the paraphrase gap of keyword search.

People ask "하청 줘도 돼?" about an article titled 하도급, or "늦으면 벌금 있어?" about
지체상금. Neither BM25 over Kiwi morphemes nor a small multilingual encoder links those
words reliably. This table adds the contract terms to the query when an everyday expression
is present; the original words stay, so a wrong guess costs little.

Triggers are matched on Kiwi morphemes, not on surface text, so conjugation does not matter
("잘라도", "잘랐어" → 자르; "넘겨서" → 넘기). A trigger of several morphemes ("다른 맡기")
needs all of them somewhere in the question. The vocabulary is general Korean contract
language (용역·임대차·근로·공급) and the clauses most contracts share (면책, 멸실·훼손, 환불·연기,
연체, 장애 대응, 자료 반환, 경업 금지 …), not tuned to one file: the second group was written
from contract practice and measured on the blind4 set before any of its questions was read
(colloquial hit@3 0.75 → 0.80). Search does not use it when every
document searched is a statute (`dure.retrieval.statutes`): there its contract terms mislead.
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["THESAURUS", "expand_query"]

#: (triggers separated by "|", each a set of morphemes that must all occur; terms to add).
THESAURUS: tuple[tuple[str, str], ...] = (
    # 하도급·위탁·양도
    ("하청|외주|재위탁|떠넘기|다른 맡기|다른 넘기|다른 시키|대신 시키", "하도급 재하도급 위탁"),
    ("팔|넘기 권리|넘기 계약|양도|명의", "양도 권리 의무"),
    # 지체·위약·배상
    ("벌금|벌칙|늦|지연|마감 넘|마감 못|기한 넘|기한 못|밀리 일정", "지체상금 지체 지연"),
    ("위약금|위약|약속 어기|약속 안 지키|어기", "위반 위약벌 손해배상"),
    ("물|배상|손해|피해|보상", "손해배상 배상"),
    ("책임 없|책임 안|안 물|탓|잘못 아니|잘못 없", "면책 책임 귀책사유"),
    ("최대 얼마|한도|상한|최고 얼마|다 물어", "한도 상한 총액"),
    (
        "깨지|부서지|망가지|파손|찌그러|긁히|흠집|분실|잃어버리|없어지|도난|도둑",
        "멸실 훼손 파손 분실",
    ),
    ("다치|부상|안전|사고 나|사고", "안전 사고 재해"),
    # 종료
    ("자르|잘리|해고|내보내|쫓아내|짤리", "해고 해지"),
    ("깨|끊|끝내|파기|해약|중단|관두|그만하|중도|물리|무르", "해지 해제 종료"),
    ("없던 일|취소|무효|처음 되돌리", "해제 원상회복"),
    ("미루|연기|날짜 바꾸|일정 바꾸|날짜 옮기|일정 옮기", "연기 변경 일정"),
    ("환불|돈 돌려주|돌려주 돈|물리 돈", "환불 반환"),
    ("계약금|예약금|가계약", "계약금 위약금"),
    ("그만두|퇴사|사직|나가 회사|사표", "퇴직 사직서"),
    ("쫓겨나|비우|나가 달|방 빼", "해지 명도 인도"),
    # 돈
    ("돈|입금|지불|결제|송금|받 언제|정산", "대금 지급 금액"),
    ("선금|착수금|미리 받|미리 주|먼저 받", "선급금"),
    ("추가 요금|추가 비용|돈 더|더 내|별도 비용|웃돈|따로 내|따로 받", "추가 비용 별도"),
    ("누가 내|누가 부담|누가 돈|누가 물|비용 누가|각자", "비용 부담"),
    ("연체|이자|늦게 내|늦게 주|늦게 입금|밀리 돈", "연체 지연이자 지연손해금"),
    ("영수증|청구서|계산서|인보이스|세금계산서", "청구 세금계산서"),
    ("배송비|택배비|운송비|기름값|유류비|톨비|통행료", "운임 운송료 유류비"),
    ("보증서|보증 보험|보증보험|담보", "보증 이행보증"),
    ("월세|집세|방세", "차임 임대료"),
    ("맡기 돈|보증금|돌려받|돌리 받", "보증금 반환"),
    ("월급|급여|봉급|급료|연봉|시급|월급날", "임금 지급"),
    ("수당|야근비|특근비", "가산 임금 통상임금"),
    ("퇴직금", "퇴직급여"),
    ("세금|부가세|공과금", "부가가치세 조세 공과금"),
    ("올리|인상|깎|인하|오르", "증감 조정 증액"),
    ("전기세|수도세|가스비|관리비|공과금", "관리비 요금 부담"),
    # 일·결과물
    ("고장|버그|오류|결함|장애|고치|수리|무상|공짜|에이에스", "하자 보수 하자담보 수선"),
    ("검사|검수|테스트|확인 받|확인 결과물|합격", "검수 검사"),
    ("먹통|다운|에러|멈추|접속 안|안 열리|서버", "장애 오류 긴급"),
    ("얼마나 빨리|몇 시간 안|바로 오|출동|와 주|방문", "대응 시간 방문"),
    ("업데이트|패치|업그레이드|새 버전", "업데이트 개선 유지보수"),
    ("데이터|백업|날아가|복구", "자료 백업 복구"),
    ("가르치|교육|사용법", "교육 지원"),
    ("점검|실사|조사|감사 받|회계 감사", "점검 감사"),  # "감사" alone is also "thanks"
    ("인수인계|넘겨받|이관", "인수인계 이관"),
    ("삭제|폐기|지우|반납", "반환 폐기 삭제"),
    ("경쟁 업체|경쟁사|경쟁 회사|같은 업종|다른 업체 일", "경업 금지 경쟁"),
    ("납품|넘겨주|건네|인도", "납품 인도"),
    ("바뀌|바꾸|변경|추가|늘어나|줄어들|범위", "변경 과업 조정"),
    ("저작권|소유|소유권|누구 거|누구 것|누구 가지|소스", "지식재산권 귀속 저작권"),
    ("비밀|기밀|유출|누설|새 나가|보안|외부 알리", "비밀유지 비밀 누설"),
    ("개인 정보|개인정보|고객 정보", "개인정보 보호"),
    ("담당자|개발자|인력|직원 바꾸|피엠|pm", "인력 교체 관리자"),
    ("보고|진행 상황", "보고 진행"),
    # 기간·근무
    ("연장|늘리 기간|갱신|재계약|계속 장사|계속 쓰|언제 끝나|언제까지|몇 년", "기간 갱신 연장"),
    ("야근|초과 근무|밤|주말|휴일 근무|특근", "연장근로 야간근로 휴일근로 가산"),
    ("휴가|연차|쉬|쉬는 날|놀", "유급휴가 휴가 휴일"),
    ("출근|퇴근|점심|몇 시|근무 시간", "근로시간 휴게시간 시업"),
    ("수습|인턴|처음 몇 달|입사 처음", "수습기간"),
    ("부업|투잡|겸직|다른 회사 취업|알바", "겸업 금지"),
    ("보험|4대 보험|사대 보험|국민연금|건강보험", "사회보험 보험"),
    ("징계|감봉|정직|견책|처벌", "징계"),
    ("근무지|근무 장소|발령|전근", "근무 장소 업무"),
    # 임대차
    ("보일러|누수|배관|수리비|고치 집|고치 건물", "수선 수선의무 설비"),
    ("이사|나가 때|원래 상태|원상|뜯|철거", "원상회복 반환"),
    ("세 놓|다시 세|재임대|빌려주 다른|전세 놓", "전대 양도"),
    ("권리금|바닥 권리|가게 넘기|세입자 다음|다음 세입자", "권리금 신규임차인"),
    ("간판|소음|냄새|특약", "특약사항"),
    ("중개|복비|부동산 수수료", "중개보수"),
    # 분쟁·기타
    ("소송|재판|법원|다투|다툼|분쟁|싸우", "분쟁 해결 관할 법원"),
    ("천재지변|지진|태풍|홍수|전쟁|전염병|감염병|코로나|파업|재난|폭설|폭우|정전|화재", "불가항력"),
    ("통지|알리|연락|통보", "통지"),
    ("협조|도와주|자료 주|자료 제공", "협조 협력 제공"),
)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[tuple[frozenset[str], ...], tuple[str, ...]], ...]:
    out = []
    for triggers, terms in THESAURUS:
        sets = tuple(frozenset(t.lower().split()) for t in triggers.split("|"))
        out.append((sets, tuple(terms.split())))
    return tuple(out)


def expand_query(question: str, morphemes: list[str] | None = None) -> list[str]:
    """Contract terms for the everyday expressions in `question` (unique, in table order).

    `morphemes` are the question's Kiwi morpheme forms (all of them, particles included);
    they are computed when not given.
    """
    if morphemes is None:
        from dure.retrieval.tokenize import kiwi_morphemes

        morphemes = kiwi_morphemes(question)
    have = {m.lower() for m in morphemes}
    # Multi-syllable triggers also match inside compounds Kiwi keeps whole ("하청업체").
    text = question.lower().replace(" ", "")
    out: list[str] = []
    for sets, terms in _compiled():
        if any(s <= have or _in_compound(s, text) for s in sets):
            for term in terms:
                if term not in out:
                    out.append(term)
    return out


def _in_compound(trigger: frozenset[str], text: str) -> bool:
    """A one-word trigger of two or more syllables found inside the unspaced question."""
    if len(trigger) != 1:
        return False
    (word,) = trigger
    return len(word) > 1 and word in text
