"""Codes a question names, against the codes the user's documents list."""

from __future__ import annotations

from dure.korean.codes import absent_answer, codes, listing

MANUAL = (
    "가스보일러 사용 설명서 > 7. 에러 코드\n"
    "| 코드 | 뜻 | 조치 |\n|---|---|---|\n"
    "| H1 | 과열 | 전원을 끄고 30분 뒤 다시 켜기 |\n"
    "| H2 | 팬 정지 | 서비스센터 문의 |\n"
    "| C04 | 급수 부족 | 보충수 밸브 열기 |\n"
)


def test_a_code_is_letters_right_before_digits() -> None:
    found = codes("화면에 h2 뜨고 C4도 떴어요. C04 맞나? 모델은 AF-550, 무게 5kg, A4 용지")
    assert [(c.family, c.number, c.written) for c in found] == [
        ("H", 2, "H2"),
        ("C", 4, "C4"),
        ("A", 4, "A4"),
    ]
    assert codes("E05에러 떴어") and not codes("2호선 5번 출구")


def test_listed_codes_and_the_missing_ones_of_a_listed_family() -> None:
    held = listing("H2 뜨면 어떻게 해요?", [MANUAL])
    assert held is not None and [c.written for c in held.held] == ["H2"] and not held.missing
    missing = listing("H3 에러 떴는데 뭐예요", [MANUAL])
    assert missing is not None and not missing.held
    assert [c.written for c in missing.missing] == ["H3"]
    assert [c.written for c in missing.family] == ["H1", "H2"]
    # One code of a kind is a name, not a list: C9 is not known to be missing.
    assert listing("C9 에러는요?", [MANUAL]) is None
    assert listing("A4로 뽑아도 돼요?", [MANUAL]) is None


async def test_a_code_missing_from_a_listed_family_is_answered_by_rule() -> None:
    searched: list[str] = []

    async def search(text: str) -> list[str]:
        searched.append(text)
        return ["가스보일러 사용 설명서 > 1. 안전\n- 환기를 자주 해 주세요."]

    answer = await absent_answer("H3 에러 떴는데 뭐예요", [MANUAL], search)
    assert answer is not None and searched == ["H3"]
    assert answer.startswith("올려 주신 문서에는 H3에 대한 내용이 없습니다.")
    assert "H1, H2" in answer and "서비스센터" in answer
    assert await absent_answer("H2 뜨면 어떻게 해요?", [MANUAL], search) is None

    async def elsewhere(text: str) -> list[str]:  # listed in a passage the question missed
        return ["가스보일러 사용 설명서 > 9. 기타\n- H3: 온도 센서 이상, 서비스센터 문의"]

    assert await absent_answer("H3 에러 떴는데 뭐예요", [MANUAL], elsewhere) is None
