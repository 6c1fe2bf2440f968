"""Contract answers say only figures the sources hold, and keep the figures the question needs."""

from __future__ import annotations

from typing import Any

import pytest
from contract_harness import said, types

from dure.agents.contract.context import answer_context
from dure.agents.contract.grounding import missing_quotes, named_focus
from dure.agents.contract.prompts import ONLY_THE_ARTICLE
from dure.agents.contract.rules import leading_articles, named_sources
from dure.agents.contract.state import ContractState
from dure.embeddings import get_embedder
from dure.events import Thinking
from dure.honest import Gate, echoes, misattributed, trigrams
from dure.settings import Settings
from dure.sources import Source


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
    assert answer.startswith("제5조에 따라 지체상금은 대금에서 공제할 수 있습니다.\n\n조항 원문 — ")
    assert "제5조: “① 을이 납기를 지키지 못한 경우" in answer
    assert "1천분의 1" in answer
    assert answer == "".join(e.content for e in events if e.type == "token")


def test_the_paragraph_nearest_the_question_is_quoted_unless_the_answer_says_it(make_harness):
    # The answer has the gist but not the condition a reader needs.
    reply = "제7조에 따르면 계약을 해지할 수 있습니다."
    h = make_harness({"respond": [reply, reply]})
    answer = h.turn("제7조 보면 상대가 계약을 어기면 바로 끝낼 수 있어?")[-1].content
    assert answer.startswith(reply + "\n\n조항 원문 — 제7조: “① 갑 또는 을은 상대방이")
    assert "14일의 기간을 정하여 시정을 요구하고" in answer
    assert answer.count("“") <= 2  # at most two lines, never the whole article
    # An answer that already says that paragraph gets no quote of it.
    said = (
        "제7조에 따르면 갑 또는 을은 상대방이 이 계약을 위반한 경우 14일의 기간을 정하여 "
        "시정을 요구하고, 그 기간 내에 시정하지 아니하면 계약을 해지할 수 있다고 합니다."
    )
    h = make_harness({"respond": [said]})
    assert h.turn("제7조 보면 상대가 계약을 어기면 바로 끝낼 수 있어?")[-1].content == said
    # Nor one that gives every figure of it in its own ending.
    period = "제2조에 따르면 계약기간은 2024년 1월 1일부터 2024년 12월 31일까지입니다."
    h = make_harness({"respond": [period]})
    assert h.turn("제2조 보면 계약 기간이 언제까지야?")[-1].content == period


def test_an_article_asked_about_in_other_words_gets_its_figures_quoted(make_harness):
    # No sentence of 제5조 shares a word with the question, and the answer gave none of its
    # figures: the article's first figure-bearing sentences stand in.
    h = make_harness({"respond": ["제5조에 따라 늦어지면 돈을 물어야 합니다."]})
    answer = h.turn("제5조 기한 넘기면 벌금 내?")[-1].content
    assert "제5조: “① 을이 납기를 지키지 못한 경우" in answer
    assert answer.count("제5조: “") <= 2  # at most two sentences, never the whole article


def test_an_answer_left_with_no_sentence_gives_the_article_in_its_own_words(make_harness):
    # Every sentence had a figure the article does not hold: the best-matching article's
    # figure-bearing sentences, verbatim, instead of an empty answer.
    h = make_harness({"respond": ["하루에 30%를 내야 합니다."]})
    events = h.turn("제5조 지체상금은 얼마야?")
    answer = events[-1].content
    assert answer.startswith("조항으로 뒷받침되는 답변 문장이 없어, 가장 관련 있는 제5조의 원문을")
    assert "1천분의 1" in answer and "30%" not in answer
    assert answer == "".join(e.content for e in events if e.type == "token")
    assert [s.article_no for s in events[-1].sources] == ["제5조"]


def article(no: str, text: str, **more: str) -> Source:
    """An article of the user's contract, as search returns it."""
    return Source(doc="계약서", kind="contract", article_no=no, text=text, **more)


def test_the_article_the_question_names_is_quoted_when_the_answer_cites_another() -> None:
    # The small model sometimes writes a neighbouring article's content for "제N조 보면 …".
    review = article("제6조", "갑은 납품일로부터 14일 이내에 검수를 완료한다.")
    other = article("제7조", "7일의 기간을 정하여 시정을 요구한다.")
    question = "제육조가 무슨 내용이에요?"
    answer = "제7조에 따라 상대방에게 7일 안에 시정을 요구할 수 있습니다."
    assert named_sources(question, [other, review]) == [review]
    quotes = missing_quotes(question, answer, [other], named=[review])
    assert quotes == "\n\n조항 원문 — 제6조: “갑은 납품일로부터 14일 이내에 검수를 완료한다.”"
    assert missing_quotes(question, answer, [other]) == ""  # named by the answer, figures given


def test_a_party_shared_with_the_question_does_not_make_a_sentence_bear_on_it() -> None:
    leaving = article(
        "제13조",
        "① 근로자는 퇴직 예정일의 30일 전까지 회사에 사직서를 제출한다. "
        "② 회사는 근로자가 퇴직한 경우 14일 이내에 금품을 지급한다.",
    )
    answer = "제13조에 따르면 퇴직 예정일의 30일 전까지 말해야 합니다."
    assert missing_quotes("회사 그만두려면 언제까지 말해야 돼?", answer, [leaving]) == ""
    # A word of the question's own still finds the sentence it bears on.
    quotes = missing_quotes("그만두면 금품은 언제 받아?", answer, [leaving])
    assert (
        quotes
        == "\n\n조항 원문 — 제13조: “② 회사는 근로자가 퇴직한 경우 14일 이내에 금품을 지급한다.”"
    )


def test_an_answer_that_only_names_two_articles_quotes_each(settings: Settings) -> None:
    restore = article(
        "제14조",
        "① 임대차가 종료된 경우 임차인은 임대목적물을 인도받은 당시의 상태로 원상회복하여 "
        "임대인에게 반환한다.\n② 다만, 통상의 사용으로 생긴 마모는 그러하지 아니하다.",
    )
    deposit = article(
        "제15조",
        "① 임대인은 임대차가 종료되면 보증금을 임차인에게 반환한다.\n② 임대인은 연체 차임, "
        "관리비, 원상회복 비용 등 임차인이 부담할 금액을 보증금에서 공제할 수 있다.",
    )
    question = "이사 나갈 때 벽에 못 박은 거 다 메워야 돼?"
    answer = ONLY_THE_ARTICLE.format(article="제15조와 제14조")
    embedder = get_embedder(settings)
    quotes = missing_quotes(question, answer, [deposit, restore], embedder=embedder, each=True)
    assert "제15조: “" in quotes and "제14조: “" in quotes
    alone = missing_quotes(question, answer, [deposit, restore], embedder=embedder)
    assert alone.count("“") == 1  # without `each`: the one nearest paragraph


def test_the_searchs_first_article_is_quoted_when_the_answer_rests_on_another(
    settings: Settings,
) -> None:
    rent = article("제4조", "① 월 차임은 금 이백오십만원으로 하며, 임차인은 매월 1일에 지급한다.")
    increase = article(
        "제5조",
        "① 임대인 또는 임차인은 경제 사정의 변동으로 차임의 증감을 청구할 수 있다.\n"
        "② 증액 청구는 약정한 차임의 100분의 5를 초과하지 못한다.",
    )
    question = "월세 얼마까지 올릴 수 있어?"
    answer = "제4조에 따르면 월 차임은 금 이백오십만원입니다."
    embedder = get_embedder(settings)
    quotes = missing_quotes(question, answer, [rent], embedder=embedder, leading=increase)
    assert "\n제5조: “" in quotes  # the paragraph of 제5조 nearest the question
    # An answer that rests on the first article, or a question that names one: nothing added.
    said = "제5조에 따르면 증액 청구는 약정한 차임의 100분의 5를 초과하지 못합니다."
    on_it = missing_quotes(question, said, [increase], embedder=embedder, leading=increase)
    assert on_it == missing_quotes(question, said, [increase], embedder=embedder)
    named = missing_quotes("제4조 월세 얼마야?", answer, [rent], [rent], embedder, leading=increase)
    assert named == missing_quotes("제4조 월세 얼마야?", answer, [rent], [rent], embedder)


@pytest.mark.parametrize("heading", ["제5조의2 (선급금의 반환)", "제5조의2(선급금의 반환)"])
def test_an_articles_heading_alone_is_never_the_quote(settings: Settings, heading: str) -> None:
    refund = article(
        "제5조의2",
        f"{heading}\n① 계약이 해지된 경우 을은 선급금 중 기성부분이 아닌 금액을 반환한다.",
        article_title="선급금의 반환",
    )
    quotes = missing_quotes(
        "선급금 반환", "제5조의2에 해당합니다.", [refund], embedder=get_embedder(settings)
    )
    assert quotes.endswith(
        "제5조의2: “① 계약이 해지된 경우 을은 선급금 중 기성부분이 아닌 금액을 반환한다.”"
    )


def test_two_articles_too_close_to_call_both_lead() -> None:
    searched = [
        {
            "tool": "hybrid_search",
            "ok": True,
            "sources": [
                {"kind": "contract", "article_no": f"제{i}조", "score": s}
                for i, s in enumerate((4.8, 4.0, 1.0), 1)
            ],
        }
    ]
    assert leading_articles(searched, 1.2) == ["제1조", "제2조"]
    assert leading_articles(searched, 0.5) == ["제1조"]
    assert leading_articles(searched, None) == ["제1조"]
    assert leading_articles([], 1.2) == []


LATE = "① 을이 납기를 지키지 못한 경우 지체일수 1일당 계약금액의 1천분의 1을 지체상금으로 지급한다."
PAY = "갑은 을에게 용역 대금으로 금 5천만 원을 지급한다. 대금은 검수 완료 후 30일 이내에 지급한다."
COLLECTED: list[dict[str, Any]] = [
    {
        "tool": "hybrid_search",
        "ok": True,
        "content": "",
        "articles": [
            {"doc": "계약서", "kind": "contract", "article_no": "제5조", "text": LATE},
            {"doc": "계약서", "kind": "contract", "article_no": "제3조", "text": PAY},
        ],
    }
]


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("제5조 지체상금은 얼마야?", ["제5조"]),
        ("제오조 보면 하루 늦으면 얼마 내?", ["제5조"]),
        ("제5조 지체상금이랑 검수 끝나고 대금 언제 받는지 알려줘", []),  # 제3조 holds the rest
        ("제7조 내용", []),  # not collected
    ],
)
def test_the_answer_rests_on_the_named_articles_when_they_cover_the_question(
    question: str, focus: list[str]
) -> None:
    assert named_focus(question, COLLECTED) == focus


def test_the_answer_context_holds_only_the_focus_articles() -> None:
    state: ContractState = {"user_message": "제5조 지체상금은 얼마야?", "collected_info": COLLECTED}
    assert PAY in answer_context(state)
    focused = answer_context({**state, "focus_articles": ["제5조"]})
    assert LATE in focused and PAY not in focused


@pytest.mark.parametrize(
    ("sentence", "echo"),
    [
        ("제7조에 따르면 갑자기 밤에 집 보러 와도 되는 거야?", True),
        ("제7조에 따르면, 갑자기 밤에 집 보러 와도 돼요.", True),
        ("결론: 갑자기 밤에 집 보러 와도 돼요.", True),
        ("제7조에 따르면 임대인은 하루 전에 알리고 낮에만 들어올 수 있습니다.", False),
        ("밤에 집 보러 오려면 하루 전에 알리고 낮에만 들어올 수 있습니다.", False),
        ("네, 됩니다.", False),  # too short to tell
        # a frame that claims the article says the question
        ("이는 갑자기 밤에 집 보러 와도 되는 거라는 내용입니다.", True),
        ("이는 임대인이 하루 전에 알려야 한다는 뜻입니다.", False),
    ],
)
def test_a_sentence_that_only_says_the_question_again_is_an_echo(sentence: str, echo: bool) -> None:
    question = trigrams("집주인이 갑자기 밤에 집 보러 와도 되는 거야?")
    sources = trigrams("제7조(출입) 임대인은 하루 전에 알리고 낮에만 목적물에 들어올 수 있다.")
    assert echoes(sentence, question, sources) is echo


@pytest.mark.parametrize(
    ("after", "shown"),
    [
        # The next sentence names its article itself.
        (
            "제5조에 따르면 지체일수 1일당 계약금액의 1천분의 1입니다.",
            "제5조에 따르면 지체일수 1일당",
        ),
        # It does not: the article the left-out echo named goes on to it.
        (
            "지체일수 1일당 계약금액의 1천분의 1입니다.",
            "제5조에 따르면 지체일수 1일당 계약금액의 1천분의 1입니다.",
        ),
    ],
)
def test_an_answer_that_says_the_question_again_is_not_shown(make_harness, after, shown):
    h = make_harness({"respond": [f"제5조에 따르면 납품 늦으면 돈 물어야 돼? {after}"]})
    events = h.turn("제5조 보면 납품 늦으면 돈 물어야 돼?")
    answer = events[-1].content
    assert answer.startswith(shown)
    assert answer == "".join(e.content for e in events if e.type == "token")
    notes = [e.content for e in events if isinstance(e, Thinking)]
    assert any("질문을 되풀이한 문장 1개" in n for n in notes)


def _article(no: str, text: str) -> dict[str, Any]:
    return {"doc": "계약서", "kind": "contract", "article_no": no, "text": text}


def test_with_no_focus_the_answer_sees_the_searchs_top_two_and_what_other_tools_read() -> None:
    texts = {no: f"{no} 본문 {i}" for i, no in enumerate(["제5조", "제3조", "제9조", "제2조"])}
    search = {
        "tool": "hybrid_search",
        "ok": True,
        "content": "",
        "articles": [_article(no, t) for no, t in texts.items()],
        "sources": [
            {"kind": "contract", "article_no": no, "score": 3.0 - i} for i, no in enumerate(texts)
        ],
    }
    read = {"tool": "get_article", "ok": True, "content": "", "articles": [_article("제2조", "")]}
    state: ContractState = {"user_message": "돈 언제 줘?", "collected_info": [search, read]}
    context = answer_context(state)
    assert texts["제5조"] in context and texts["제3조"] in context
    assert texts["제9조"] not in context  # the search's third hit, read by nothing else
    assert texts["제2조"] in context  # another tool read it too


def test_a_sentence_that_says_the_answer_instructions_again_is_not_shown(make_harness):
    parrot = "질문에 답하는 금액·비율·기간·날짜는 제5조에 적힌 그대로 쓰세요."
    reply = "제5조에 따르면 지체일수 1일당 계약금액의 1천분의 1입니다."
    h = make_harness({"respond": [f"{reply} {parrot}"]})
    events = h.turn("제5조 지체상금은 얼마야?")
    assert said(events) == reply
    notes = [e.content for e in events if isinstance(e, Thinking)]
    assert any("답변 지침을 그대로 옮긴 문장 1개" in n for n in notes)


DEPOSIT = "제3조(보증금) 보증금은 오천만원으로 하며, 계약금 오백만원은 계약 시에, 잔금은 인도일에 지급한다."
RETURN = (
    "제15조(보증금의 반환) 임대인은 임대차가 끝나면 보증금을 반환한다. 임대인은 연체 차임, "
    "관리비, 원상회복 비용 등 임차인이 부담할 금액을 보증금에서 공제할 수 있다."
)


@pytest.mark.parametrize(
    ("pieces", "shown"),
    [
        # A sentence under 제3조's lead that says 제15조's words gets 제15조's lead.
        (
            [
                "제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다.",
                " 임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다.",
            ],
            "제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다. 제15조에 따르면 임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다.",
        ),
        # A lead of its own that names the wrong article is mended.
        (
            [
                "제3조에 따르면 임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다."
            ],
            "제15조에 따르면 임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다.",
        ),
        # Said as the article says it, or in words of neither: as written.
        (
            ["제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다.", " 그러니 미리 준비하세요."],
            "제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다. 그러니 미리 준비하세요.",
        ),
        # A new paragraph has no lead until it says one.
        (
            [
                "제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다.",
                "\n",
                "\n",
                "임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다.",
            ],
            "제3조에 따르면 계약금 오백만원은 계약 시에 지급합니다.\n\n임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다.",
        ),
    ],
)
def test_a_sentence_is_attributed_to_the_article_whose_words_it_has(
    pieces: list[str], shown: str
) -> None:
    gate = Gate([DEPOSIT, RETURN], articles={"제3조": DEPOSIT, "제15조": RETURN})
    assert "".join(gate(p) for p in pieces) == shown


def test_an_article_that_was_not_collected_is_left_as_said() -> None:
    said = (
        "제9조에 따르면 임대인은 연체 차임, 관리비, 원상회복 비용을 보증금에서 공제할 수 있습니다."
    )
    assert misattributed(said[len("제9조에 따르면 ") :], "제9조", {"제15조": RETURN}) is None


PROBATION = (
    "제2조 (근로계약기간) ① 근로계약기간은 2025년 5월 1일부터 기간의 정함이 없는 것으로 한다. "
    "② 입사일부터 3개월은 수습기간으로 하며, 수습기간 중의 임금은 제6조에 따른 임금의 100분의 90으로 한다."
)
WAGE = "제6조 (임금) ① 월 기본급은 금 삼백이십만원으로 한다. ② 임금은 다음 달 10일에 지급한다."
HOURS = "제4조 (근로시간) ① 소정근로시간은 1일 8시간으로 한다. ② 휴게시간은 1시간으로 한다."


@pytest.mark.parametrize(
    ("pieces", "shown"),
    [
        # The 90 is 제2조's: the lead names it beside 제6조.
        (
            ["제6조에 따르면 수습 때 월급은 금 삼백이십만원의 100분의 90입니다."],
            "제6조, 제2조에 따르면 수습 때 월급은 금 삼백이십만원의 100분의 90입니다.",
        ),
        # Under 제6조's lead, a sentence with 제2조's figure gets a lead of its own.
        (
            [
                "제6조에 따르면 월 기본급은 삼백이십만원입니다.",
                " 수습기간 3개월은 100분의 90입니다.",
            ],
            "제6조에 따르면 월 기본급은 삼백이십만원입니다. 제6조, 제2조에 따르면 수습기간 3개월은 100분의 90입니다.",
        ),
        # Every figure is the cited article's: as written.
        (
            ["제6조에 따르면 임금은 다음 달 10일에 지급합니다."],
            "제6조에 따르면 임금은 다음 달 10일에 지급합니다.",
        ),
        # The 1 is 제2조's and 제4조's alike: which one is not ours to guess.
        (
            ["제6조에 따르면 임금은 1일 기준입니다."],
            "제6조에 따르면 임금은 1일 기준입니다.",
        ),
    ],
)
def test_a_figure_from_a_second_article_names_it_in_the_lead(pieces: list[str], shown: str) -> None:
    articles = {"제2조": PROBATION, "제6조": WAGE, "제4조": HOURS}
    gate = Gate([PROBATION, WAGE, HOURS], articles=articles)
    assert "".join(gate(p) for p in pieces) == shown
