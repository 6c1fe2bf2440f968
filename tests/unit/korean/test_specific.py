"""Specific nouns: what a question is about, not the words every question uses."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from dure.korean import specific
from dure.settings import Settings


def test_nouns_written_together_are_one_and_short_ones_are_left_out() -> None:
    assert specific.nouns("셀프도배 해도 돼? 벽 색 바꾸고 싶어") == ["셀프도배"]
    assert specific.nouns("GPS 기능 있어?") == ["gps", "기능"]


def test_a_code_of_letters_and_digits_is_one_noun_and_a_count_is_not_part_of_one() -> None:
    assert specific.nouns("화면에 E06 떴는데 뭐에요ㅠ") == ["화면", "e06"]
    assert specific.nouns("P2 오류") == ["p2", "오류"]
    assert specific.nouns("배터리2개 주세요") == ["배터리"]
    assert specific.nouns("3월 5일") == []


def test_common_nouns_ship_with_the_banks_and_are_read_not_counted(tmp_path: Path) -> None:
    specific._common.clear()
    common = specific.common_nouns(Settings(data_dir=tmp_path))
    assert {"회사", "신청", "계산"} <= common and "머리카락" not in common
    shipped = Path(str(files("dure").joinpath("data", "understanding")))
    assert list(shipped.glob("common-nouns-*.json")), "run scripts/understanding-banks.py"
    assert not (tmp_path / "understanding").exists()  # read from the package, nothing counted


def test_a_specific_noun_held_spaces_aside(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    texts = ["반품 배송비: 단순 변심 6,000원", "교환은 7일 이내"]
    assert specific.held_noun("반품배송비 얼마야?", texts, settings) == "반품배송비"
    assert specific.held_noun("반품 배송비 누가 내?", texts, settings) == "반품"
    assert specific.held_noun("환불 계좌 바꾸려면?", texts, settings) is None
    assert specific.held_noun("회사 근처 맛집", ["회사 근처 주차장 안내"], settings) is None
    codes = ["| E06 | 모터 과열 | 10분 쉬었다가 다시 켜세요 |"]
    assert specific.held_noun("화면에 E06 떴는데 뭐에요", codes, settings) == "e06"
    assert specific.held_noun("E05 에러는 뭐임?", codes, settings) is None
