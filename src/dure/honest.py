"""Answers that say plainly what could not be done, written by rule (no model call).

When every tool a turn ran failed, or the user asks about their documents and none is
registered, a small model answers from its own memory as if it had looked (measured:
"LangGraph는 한글 자연어 처리를 위한 라이브러리입니다." after a failed search; a made-up
temperature with no weather key). These answers replace that call: they name what failed, why
(the tool's own Korean message, which says what would fix it), and that nothing was guessed.
`Gate` keeps any sentence with a figure the sources do not hold from reaching the user, and,
given the question, any sentence that only says the question again: measured on a blind set
(answers3), the local model opened a third of its contract answers with "제13조에 따르면" and
the user's own words ("… 그냥 들어와도 되는거야?", "벽에 못 박아서 액자 걸어도 돼요."), an
article made to say what it does not. Given the cited `articles`, it also mends a sentence
that says it comes from one article while its words are another's (`misattributed`), and
names the second article a sentence's figures come from (`also_from`). An answer nothing was
looked up for says which of its figures are the model's own (`unchecked`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from dure.events import Thinking, Token, emit
from dure.korean.anchors import unanchored
from dure.korean.figures import (
    SMALL_COUNT,
    figures,
    unheld,
    unsupported,
    values,
    without_clock,
)
from dure.korean.text import SENTENCE
from dure.sources import Source
from dure.untrusted import as_found, without_delimiters

NO_DOCUMENTS = (
    "등록된 문서가 없어 찾아볼 수 없습니다. 문서를 추가하면 그 내용에 근거해 답하겠습니다 "
    "(CLI: `dure documents add 파일 --kind document`, 웹 화면: 왼쪽 아래 '내 문서')."
)


def _listed(reasons: Sequence[str]) -> str:
    return "\n".join(f"- {reason.strip()}" for reason in dict.fromkeys(reasons) if reason.strip())


def tools_failed(reasons: Sequence[str]) -> str:
    """The answer when every tool of the turn failed; `reasons` are the tools' messages."""
    lines = _listed(reasons)
    return (
        "필요한 정보를 도구로 확인하지 못했습니다.\n"
        f"{lines}\n"
        "확인되지 않은 내용은 추측해서 답하지 않겠습니다."
    )


#: The tools that look something up: a later success of one makes good an earlier failed lookup
#: (a failed weather call, then a web search for the weather).
SEARCHES = ("web_search", "search_wikipedia", "search_documents")


@dataclass(frozen=True)
class Attempt:
    """One tool call of a turn: which tool, whether it worked, its message, and what it was for
    (`slot`: a plan step's id; None when calls are not labelled)."""

    tool: str
    ok: bool
    message: str
    slot: object = None


def unrecovered(attempts: Sequence[Attempt]) -> list[str]:
    """The messages of the failed attempts that no later one made good: a later success for the
    same slot with the same tool or a search. An unrelated tool that reused a failed step's id
    (the date after a failed document search) makes nothing good."""

    def made_good(failed: Attempt, later: Attempt) -> bool:
        return later.ok and later.slot == failed.slot and later.tool in (failed.tool, *SEARCHES)

    return [
        a.message
        for i, a in enumerate(attempts)
        if not a.ok and not any(made_good(a, later) for later in attempts[i + 1 :])
    ]


def partly_failed(reasons: Sequence[str]) -> str:
    """The note after an answer built on some tools while others failed."""
    return f"\n\n다음 내용은 도구가 실패해 확인하지 못했습니다.\n{_listed(reasons)}"


#: Code the answer shows (its numbers are the program's, not claims) and the small counts that
#: shape an answer ("3가지", "2단계"): neither is a figure recalled from memory.
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)


def unchecked(answer: str, read: Sequence[str]) -> str:
    """The note after an answer no tool or document informed: the figures of `answer` that
    nothing the model read (`read`: the conversation) holds, said to be unchecked; "" when there
    are none. Measured: asked to answer without the failed search, the local model said
    "세종대왕은 1910년에 한글을 만든 것입니다." as a fact."""
    recalled = [
        f.surface
        for f in unsupported(_CODE.sub(" ", answer), list(read))
        if not all(v.is_integer() and v <= SMALL_COUNT for v in f.values)
    ]
    if not recalled:
        return ""
    shown = ", ".join(list(dict.fromkeys(recalled))[:3])
    return (
        f"\n\n※ 도구나 문서로 확인하지 않은 수치가 있습니다({shown}). 모델이 직접 답한 것이라 "
        "틀릴 수 있으니, 중요하면 검색하거나 계산해 달라고 해 주세요."
    )


#: A sentence rests on the source that holds this share of its character trigrams or more.
CITED_SHARE = 0.3


def cited(answer: str, sources: Sequence[Source]) -> list[Source]:
    """The sources `answer` rests on, in their order: for each sentence the one holding the
    largest share of its trigrams (at least `CITED_SHARE`) — among those that hold every figure
    of the sentence, when one does: a figure is what a sentence claims ("통신비는 월 30,000원"
    rests on the table row, not on the section that shares its words); the first source when no
    sentence rests on one. Listing every passage searched named five sections as the sources of
    "재택은 주 2회까지 가능하다." (measured)."""
    held = [trigrams(s.text) for s in sources]
    known: list[set[float]] = []  # each source's figure values, read once, when first needed
    chosen: set[int] = set()
    for sentence in SENTENCE.split(answer):
        own = trigrams(sentence)
        if len(own) < 3 or not held:
            continue
        if claimed := figures(sentence):
            known = known or [values([s.text]) for s in sources]
            holding = [i for i, k in enumerate(known) if not unheld(claimed, k)]
            if holding and len(holding) < len(sources):  # some sources hold them, not all
                chosen.add(max(holding, key=lambda i: len(own & held[i])))
                continue
        share = [len(own & h) / len(own) for h in held]
        best = max(range(len(share)), key=share.__getitem__)
        if share[best] >= CITED_SHARE:
            chosen.add(best)
    return [s for i, s in enumerate(sources) if i in chosen] or list(sources[:1])


#: How much of each result `only_results` shows.
RESULT_CHARS = 300


def only_results(results: Sequence[str]) -> str:
    """The answer when every sentence the model wrote had a figure nothing supports (or one the
    documents hold about something else): what the tools or documents returned, as returned
    (labelled, without the data delimiters the model read them in)."""
    shown = [as_found(r).strip() for r in results if r.strip()]
    lines = "\n".join(f"- {r[:RESULT_CHARS]}{'…' if len(r) > RESULT_CHARS else ''}" for r in shown)
    return (
        f"답변의 문장마다 근거로 확인되지 않는 수치가 있어, 확인된 결과만 그대로 전합니다.\n{lines}"
    )


def show(sentence: str) -> str:
    """Show an answer sentence as it is (where no `Gate` applies)."""
    emit(Token(content=sentence))
    return sentence


#: A sentence's lead that names where it comes from ("제5조 2항에 따르면,", "제3조와 제7조에서는").
_LEAD = re.compile(
    r"^\s*(?:결론\s*:\s*)?(?:제\s*\d+\s*조(?:의\s*\d+)?(?:\s*제?\s*\d+\s*항)?(?:\([^)]*\))?"
    r"\s*(?:와|과|및|,)?\s*)*(?:에\s*따르면|에\s*의하면|에서는|에는|을\s*보면|를\s*보면)?\s*,?\s*"
)
#: Measured on answers3's answers: a sentence whose character trigrams come ≥ 0.8 from the
#: question and < 0.3 from the sources restates the question; real answers that reuse its
#: words ("자막 작업을 외주 주면 그 사람도 3년 동안 비밀을 지켜야 합니다") stay below 0.8.
ECHO_FROM_QUESTION = 0.8
ECHO_FROM_SOURCES = 0.3


def trigrams(text: str) -> set[str]:
    """Character trigrams of `text` without spaces and punctuation."""
    bare = re.sub(r"[\W_]+", "", text)
    return {bare[i : i + 3] for i in range(len(bare) - 2)}


def source_lead(sentence: str) -> str:
    """The lead that names where `sentence` comes from ("제10조에 따르면"), or ""."""
    lead = _LEAD.match(sentence)
    text = lead.group(0).strip().rstrip(",").strip() if lead else ""
    return text if re.search(r"제\s*\d+\s*조", text) else ""


#: A frame that claims an article says what follows ("이는 … 라는 내용입니다"): the words framed
#: are what is weighed (the 1.5B model wrote "이는 벽에 못 박은 거 다 메워야 돼라는 내용입니다.").
_FRAME = re.compile(
    r"^\s*(?:이는|이것은|즉|이\s*조항은)?\s*(?P<said>.+?)\s*(?:이?라는|다는|라고\s*하는)\s*"
    r"(?:내용|뜻|의미|말|취지)(?:입니다|이에요|예요|이다|이야)?\s*[.!]?\s*$"
)


def echoes(sentence: str, question: set[str], sources: set[str]) -> bool:
    """Whether `sentence` only says the question (its trigrams `question`) again, with nothing
    from the `sources` trigrams; too short a sentence ("네, 가능합니다.") never does."""
    body = _LEAD.sub("", sentence)
    if framed := _FRAME.match(body):
        body = framed.group("said")
    own = trigrams(body)
    if len(own) < 4:
        return False
    return len(own & question) >= ECHO_FROM_QUESTION * len(own) and len(
        own & sources
    ) < ECHO_FROM_SOURCES * len(own)


#: A sentence whose character trigrams come ≥ 0.6 from another article and ≤ 0.35 from the one
#: it is attributed to says what that other article says (the 1.5B model wrote "제3조에 따르면
#: … 이 보증금은 연체 차임, 관리비, 원상회복 비용 등 … 공제할 수 있다", 제15조's words).
FROM_ANOTHER = 0.6
FROM_CITED = 0.35
_ARTICLE = re.compile(r"제\s*\d+\s*조(?:의\s*\d+)?")


def misattributed(text: str, cited: str, articles: dict[str, str]) -> str | None:
    """The article (of `articles`, label → text) that `text` really says, when it is attributed
    to `cited` but its words are another's (see `FROM_ANOTHER`); else None."""
    own = trigrams(text)
    if cited not in articles or len(own) < 6:
        return None
    share = {no: len(own & trigrams(body)) / len(own) for no, body in articles.items()}
    best = max(share, key=lambda no: share[no])
    if best != cited and share[best] >= FROM_ANOTHER and share[cited] <= FROM_CITED:
        return best
    return None


def also_from(text: str, cited: str, articles: dict[str, str]) -> str | None:
    """The one other article (of `articles`, label → text) that holds the figures of `text` its
    `cited` article does not ("제6조에 따르면 … 삼백이십만원의 100분의 90": the 90 is 제2조's,
    which sets the probation pay); None when `cited` holds them all, or when no other article,
    or more than one, holds them."""
    if cited not in articles:
        return None
    missing = unsupported(text, [articles[cited]])
    if not missing:
        return None
    asked = " ".join(f.surface for f in missing)
    holders = [
        no for no, body in articles.items() if no != cited and not unsupported(asked, [body])
    ]
    return holders[0] if len(holders) == 1 else None


#: How a rule-written quote line opens ("문서 원문 — …", "조항 원문 — …", `dure.quotes`): a
#: model that writes one copies an earlier answer's quote (the 1.5B model did, under "친척 집에서
#: 자면?"), so the Gate leaves it out with the prompt's echoes.
QUOTED = re.compile(r"^\s*(?:문서|조항)\s*원문\s*—")


@dataclass
class Gate:
    """Passes answer sentences whose figures the `sources` texts support (by value: "1천분의
    1.5" = "0.15%"), emitting them as tokens; a sentence with a figure no source, question or
    tool output holds never reaches the user, nor (given the `question`) one that only says
    the question again (`echoes`); the data delimiters a sentence copied from the prompt
    (`dure.untrusted`) are taken out of it; `report` says what was left out."""

    sources: list[str]
    step: str = "respond"
    question: str = ""
    #: The answer's instructions: a sentence that says them again (the 1.5B model sometimes
    #: writes "질문에 답하는 금액·비율·기간·날짜는 제3조에 적힌 그대로 쓰세요.") is left out.
    instructions: str = ""
    #: The prompt's own labels ("질문:", "## 직전 대화"): a line that opens with one repeats the
    #: prompt and is left out with the instructions' echoes.
    labels: re.Pattern[str] | None = None
    #: The current date-time: a date or time it holds is supported, its other numbers are not.
    clock: str = ""
    #: The user's articles (label → text) an answer may say it comes from (`misattributed`).
    articles: dict[str, str] = field(default_factory=dict)
    #: The document passages the answer read, and what the user said (last the question): a
    #: figure only the passages hold must come from a line about what its sentence says
    #: (`dure.korean.anchors`).
    passages: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    misplaced: list[str] = field(default_factory=list)
    echoed: list[str] = field(default_factory=list)
    parroted: list[str] = field(default_factory=list)
    #: Bookkeeping while an answer streams: a sentence was shown; a left-out echo's lead.
    passed: bool = field(default=False, init=False)
    carried: str = field(default="", init=False)
    #: The article the paragraph so far says it comes from.
    cited: str = field(default="", init=False)

    @cached_property
    def _trigrams(self) -> tuple[set[str], set[str]]:
        sources = set().union(*(trigrams(s) for s in self.sources if s != self.question))
        return trigrams(self.question), sources

    @cached_property
    def _instruction_trigrams(self) -> set[str]:
        return trigrams(self.instructions)

    def __call__(self, sentence: str) -> str:
        bare = without_delimiters(sentence)
        if bare != sentence and not bare.strip():  # a copied delimiter alone
            return ""
        sentence = bare
        checked = without_clock(sentence, self.clock) if self.clock else sentence
        if unsupported(checked, self.sources):
            self.dropped.append(sentence.strip())
            return ""
        if self.passages and unanchored(checked, self.passages, self.said):
            self.misplaced.append(sentence.strip())
            return ""
        if (
            QUOTED.match(sentence)
            or (self.labels and self.labels.match(sentence))
            or (
                self.instructions
                and echoes(sentence, self._instruction_trigrams, self._trigrams[1])
            )
        ):
            self.parroted.append(sentence.strip())
            return ""
        if self.question and echoes(sentence, *self._trigrams):
            self.echoed.append(sentence.strip())
            # Where it said it came from ("제10조에 따르면") goes on to the next sentence shown.
            self.carried = self.carried or source_lead(sentence)
            return ""
        if not self.passed:  # what follows a left-out opening starts the answer
            sentence = sentence.lstrip()
        if self.carried and not source_lead(sentence):
            body = sentence.lstrip()
            sentence = f"{sentence[: len(sentence) - len(body)]}{self.carried} {body}"
        self.carried = ""
        sentence = self._attributed(sentence)
        self.passed = self.passed or bool(sentence)
        emit(Token(content=sentence))
        return sentence

    def _attributed(self, sentence: str) -> str:
        """`sentence` with the article it says it comes from made the one whose words it has
        (a lead of its own mended, or, under another article's lead, one added)."""
        lead = source_lead(sentence)
        named = _ARTICLE.findall(lead)
        if len(named) == 1:
            self.cited = re.sub(r"\s+", "", named[0])
        elif named or "표준" in lead:  # several articles, or the standard contract's: as said
            self.cited = ""
        if self.articles and self.cited:
            body = _LEAD.sub("", sentence) if lead else sentence
            if right := misattributed(body, self.cited, self.articles):
                sentence = self._led_by(sentence, named[0] if lead else "", right)
                self.cited = right
            elif extra := also_from(body, self.cited, self.articles):
                both = f"{self.cited}, {extra}"
                sentence = self._led_by(sentence, named[0] if lead else "", both)
        if "\n" in sentence:  # a paragraph or line ends: its lead ends with it
            self.cited = ""
        return sentence

    @staticmethod
    def _led_by(sentence: str, named: str, articles: str) -> str:
        """`sentence` saying it comes from `articles`: its lead's `named` article replaced, or,
        with no lead of its own, a lead added."""
        if named:
            return sentence.replace(named, articles, 1)
        text = sentence.lstrip()
        return f"{sentence[: len(sentence) - len(text)]}{articles}에 따르면 {text}"

    def settle(self, answer: str, results: Sequence[str]) -> str:
        """The answer to keep: `answer`, or, when every sentence of it was left out, the
        `results` themselves by rule (an empty answer would say nothing of what was found)."""
        left_out = self.dropped or self.misplaced
        if answer.strip() or not left_out or not any(r.strip() for r in results):
            return answer
        text = only_results(results)
        emit(Token(content=text))
        return text

    def report(self) -> None:
        """Say that sentences were left out (never a silent change)."""
        why = (
            (self.echoed, "근거 없이 질문을 되풀이한"),
            (self.parroted, "답변 지침을 그대로 옮긴"),
            (self.dropped, "근거 자료에서 확인되지 않는 수치가 있는"),
            (self.misplaced, "문서의 다른 항목에 적힌 수치를 쓴"),
        )
        for left_out, what in why:
            if left_out:
                content = f"{what} 문장 {len(left_out)}개를 답변에서 뺐습니다."
                emit(Thinking(step=self.step, content=content))
