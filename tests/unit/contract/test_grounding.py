"""Contract answers say only figures the sources hold, and keep the figures the question needs."""

from __future__ import annotations

from contract_harness import types

from dure.events import Thinking


def test_a_sentence_with_an_invented_figure_never_reaches_the_user(make_harness):
    h = make_harness(
        {"respond": ["제5조에 따르면 1일당 계약금액의 0.1%입니다. 최대 한도는 30%입니다."]}
    )
    events = h.turn("제5조 지체상금은 얼마야?")
    shown = "".join(e.content for e in events if e.type == "token")
    assert "0.1%" in shown  # 1천분의 1 = 0.1%: the same figure written another way
    assert "30%" not in shown and "30%" not in events[-1].content
    notes = [e.content for e in events if isinstance(e, Thinking) and e.step == "respond"]
    assert notes and "1개" in notes[0]  # the left-out sentence is announced, not swapped
    assert types(events).index("sources") < types(events).index("token")


def test_the_figure_the_question_needs_is_quoted_when_the_answer_left_it_out(make_harness):
    h = make_harness({"respond": ["제5조에 따라 지체상금은 대금에서 공제할 수 있습니다."]})
    events = h.turn("제5조 지체상금은 얼마야?")
    answer = events[-1].content
    assert answer.startswith("제5조에 따라 지체상금은 대금에서 공제할 수 있습니다.")
    assert "조항 원문 — 제5조: “① 을이 납기를 지키지 못한 경우" in answer
    assert "1천분의 1" in answer
    assert answer == "".join(e.content for e in events if e.type == "token")


def test_an_answer_with_the_figures_gets_no_quote(make_harness):
    reply = "제5조에 따르면 지체일수 1일당 계약금액의 1천분의 1입니다."
    h = make_harness({"respond": [reply]})
    assert h.turn("제5조 지체상금은 얼마야?")[-1].content == reply


def test_an_article_asked_about_in_other_words_gets_its_figures_quoted(make_harness):
    # No sentence of 제5조 shares a word with the question, and the answer gave none of its
    # figures: the article's first figure-bearing sentences stand in.
    h = make_harness({"respond": ["제5조에 따라 늦어지면 돈을 물어야 합니다."]})
    answer = h.turn("제5조 기한 넘기면 벌금 내?")[-1].content
    assert "조항 원문 — 제5조: “① 을이 납기를 지키지 못한 경우" in answer
    assert answer.count("제5조: “") <= 2  # at most two sentences, never the whole article


def test_an_answer_left_with_no_sentence_gives_the_article_in_its_own_words(make_harness):
    # Every sentence had a figure the article does not hold: the best-matching article's
    # figure-bearing sentences, verbatim, instead of an empty answer.
    h = make_harness({"respond": ["하루에 30%를 내야 합니다."]})
    events = h.turn("제5조 지체상금은 얼마야?")
    answer = events[-1].content
    assert answer.startswith("답변 문장마다 조항에 없는 수치가 있어, 가장 관련 있는 제5조의 원문을")
    assert "1천분의 1" in answer and "30%" not in answer
    assert answer == "".join(e.content for e in events if e.type == "token")
    assert [s.article_no for s in events[-1].sources] == ["제5조"]
