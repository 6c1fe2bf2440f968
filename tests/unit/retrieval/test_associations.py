"""Learned everyday → contract words: how they are learned, and where search adds them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from dure.retrieval import open_collection
from dure.retrieval.associations import associated_terms
from dure.settings import Settings

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "search-associations.py"

ARTICLES = """제1조(흡연 금지) 임차인은 목적물 안에서 흡연하여서는 아니 된다.
제2조(관리비) 임차인은 매월 관리비를 낸다. 흡연 구역 안내판 비용은 임대인이 낸다.
제3조(소음) 임차인은 밤에 소음을 내어서는 아니 된다.
"""
QUERY = "베란다에서 담배 피우면 안 돼?"


def _learner():  # the script's module (its file name has a hyphen)
    spec = importlib.util.spec_from_file_location("search_associations", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def test_a_pair_is_kept_when_several_writers_saw_it_and_it_beats_the_base_rate() -> None:
    script = _learner()
    script.PER_WORD = 3  # room for every word that passes
    articles = [["흡연", "금지", "2024", "항"], ["관리비", "납부"], ["소음", "금지"]]

    def q(writer: str, words: list[str], gold: int):
        return script.Question(writer, words, [], articles, gold)

    questions = [
        q("a", ["담배", "피우"], 0),
        q("a", ["담배", "베란다"], 0),
        q("b", ["담배", "되"], 0),
        q("a", ["시끄럽", "밤"], 2),  # one writer only, though three times
        q("a", ["시끄럽", "음악"], 2),
        q("a", ["시끄럽"], 2),
    ]
    table = script.learn(questions)
    # 흡연 is in every 담배 answer and in a third of the articles; 금지 in two thirds: lower
    # lift, second. A number and a one-syllable word are never kept.
    assert table["담배"] == ["흡연", "금지"]
    assert "시끄럽" not in table  # seen by one writer
    assert associated_terms(["담배", "흡연"], table) == ["금지"]  # not what the question says
    assert associated_terms(["담배", "피우"], table) == ["흡연", "금지"]


def test_search_adds_the_shipped_words_to_the_keyword_list_of_contracts_only(
    tmp_path: Path,
) -> None:
    assert "흡연" in associated_terms(["담배"])  # the shipped table knows the everyday word

    def first(title: str, **search: bool) -> str | None:
        settings = Settings(data_dir=tmp_path / title / str(search))
        settings.search = settings.search.model_copy(update={"thesaurus": False, **search})
        col = open_collection("c", settings, store="memory")
        doc = col.add_document(f"# {title}\n\n{ARTICLES}", kind="contract", name=f"{title}.md")
        found = col.ranked_lists(QUERY, 3, doc_id=doc, mode="keyword")["keyword"]
        col.close()
        return found[0][0].split(":")[1] if found else None

    assert first("원룸 임대차 계약서") == "제1조"
    assert first("원룸 임대차 계약서", associations=False) != "제1조"
    assert first("공동주택관리법") != "제1조"  # a statute: the words are left as said
