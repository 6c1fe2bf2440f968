"""A figure taken from documents must come from a line about what its sentence says."""

from __future__ import annotations

from dure.korean.anchors import unanchored

WELFARE = "복리후생 규정 > 2. 복지포인트\n- 입사 첫해에는 월 10만 포인트를 나누어 지급한다."
LEAVE = "복리후생 규정 > 3. 경조휴가\n- 조부모 사망: 경조휴가 3일\n- 본인 결혼: 경조휴가 5일"
PARKING = "예식장 이용 안내 > 4. 주차\n- 하객 차량은 2시간 무료이며, 이후 30분마다 3,000원이다."
PASSES = "회원권 요금 > 2. 기간권\n- 6개월권: 요금 300,000원, 일시정지 2회"


def surfaces(sentence: str, passages: list[str], said: tuple[str, ...] = ()) -> list[str]:
    return [f.surface for f in unanchored(sentence, passages, said)]


def test_a_figure_from_a_line_about_something_else_is_caught() -> None:
    assert surfaces("야근수당은 시간당 10만 원입니다.", [WELFARE, LEAVE]) == ["10만"]
    assert surfaces("축의금은 3,000원이에요.", [PARKING]) == ["3,000"]


def test_a_line_sharing_a_noun_or_its_heading_anchors_the_figure() -> None:
    assert surfaces("복지포인트는 월 10만 포인트예요.", [WELFARE]) == []
    # One noun inside the other (휴가 — 경조휴가) is shared.
    assert surfaces("할머니 돌아가시면 휴가 3일 나와요.", [LEAVE]) == []
    # The heading names what a row is about: 주차.
    assert surfaces("주차는 2시간까지 공짜예요.", [PARKING]) == []


def test_a_line_holding_every_figure_of_the_sentence_anchors_them() -> None:
    assert surfaces("반년짜리는 30만 원이고 2회 멈출 수 있어요.", [PASSES]) == []
    assert surfaces("반년짜리는 30만 원이에요.", [PASSES]) == ["30만"]


def test_the_users_figures_list_markers_and_unheld_figures_are_not_its_business() -> None:
    said = ("예식장에서 30분 더 있으면 얼마예요?",)
    assert surfaces("30분 넘으면 추가 요금이 있어요.", [PARKING], said) == []
    assert surfaces("2.", [PARKING]) == []
    assert surfaces("축의금은 7만 원입니다.", [PARKING]) == []  # no line holds it


def test_a_sentence_without_nouns_is_about_the_question() -> None:
    said = ("조부모상 경조휴가 며칠이에요?",)
    assert surfaces("3일이에요.", [LEAVE], said) == []
    assert surfaces("3일이에요.", [PARKING, LEAVE], ("축의금 얼마 줘요?",)) == ["3"]
