"""The passages a prompt carries: the sentences nearest the question, up to a budget."""

from __future__ import annotations

from dure.focus import focus, sentences
from dure.settings import Settings
from dure.sources import Source

FEES = "요가센터 안내 > 3. 요금"
FEE_ROWS = [
    "평일 오전반: 월 8만 원, 주 3회",
    "평일 저녁반: 월 10만 원, 주 3회",
    "토요일반: 월 6만 원, 주 1회",
    "개인 레슨: 1회 7만 원, 예약제",
]
PARKING = "요가센터 안내 > 5. 주차"
PARKING_ROWS = [
    "건물 지하 주차장을 2시간까지 무료로 이용할 수 있습니다.",
    "2시간을 넘으면 10분마다 500원이 추가됩니다.",
]
LOCKER = "요가센터 안내 > 6. 사물함"
LOCKER_ROWS = ["개인 사물함은 월 1만 원이며 수건은 무료로 빌려 드립니다."]


def _chunk(heading: str, rows: list[str]) -> Source:
    return Source(doc="yoga", article_title=heading, text="\n".join([heading, *rows]))


def _passages() -> list[Source]:
    return [_chunk(FEES, FEE_ROWS), _chunk(PARKING, PARKING_ROWS), _chunk(LOCKER, LOCKER_ROWS)]


def test_passages_that_fit_the_budget_are_kept_whole(settings: Settings) -> None:
    passages = _passages()
    assert focus("토요일반 얼마예요?", passages, settings) == passages
    settings.search.prompt_chars = 0
    assert focus("토요일반 얼마예요?", passages, settings) == passages


def test_the_sentences_nearest_the_question_fill_the_budget(settings: Settings) -> None:
    settings.search.prompt_chars = 60
    kept = focus("주차 몇 시간 공짜야?", _passages(), settings)
    text = "\n".join(s.text for s in kept)
    assert PARKING_ROWS[0] in text  # the nearest sentence, under its own passage
    assert sum(len(line) for s in kept for line in sentences(s)) <= 60
    assert all(s.article_title for s in kept) and FEES not in text and PARKING not in text
    # A passage keeps its order, and one with nothing kept is left out.
    assert len(kept) < 3
    for source in kept:
        whole = next(p for p in _passages() if p.article_title == source.article_title)
        lines = source.text.split("\n")
        assert lines == [line for line in sentences(whole) if line in lines]


def test_the_nearest_sentence_is_kept_even_when_it_is_longer_than_the_budget(
    settings: Settings,
) -> None:
    settings.search.prompt_chars = 10
    kept = focus("사물함 비용은?", _passages(), settings)
    assert [s.text for s in kept] == [LOCKER_ROWS[0]]


def test_without_an_embedder_the_passages_stay_whole(settings: Settings) -> None:
    settings.search.prompt_chars = 60
    settings.search.embedder = "openai"
    settings.search.embedding_base_url = "http://127.0.0.1:9/v1"  # nothing listens there
    passages = _passages()
    assert focus("주차 몇 시간 공짜야?", passages, settings) == passages
