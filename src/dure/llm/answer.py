"""Free-text answers: streamed to the user as they decode, capped, and cut when they loop.

A small local model sometimes falls into a loop, writing the same sentence until its token
limit (measured: "제5조 내용이 뭐야?" → the same 120-character sentence four times, 100 s).
`stream_answer` stops the generation as soon as the text repeats a stretch of
`LOOP_SPAN` characters it already wrote, and keeps the answer up to the last full sentence
before the repetition.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessageChunk, BaseMessage, SystemMessage, ToolCall
from langchain_core.runnables import Runnable

from dure.llm.constrained import ToolReplyError
from dure.tags import ANSWER_TAG

#: Where a sentence ends: a full stop after a word (not a list marker such as "1."), or a line.
_SENTENCE_BREAK = re.compile(r"(?<=[^\d\s])[.!?](?=\s)|\n")
#: A repeated stretch this long (characters, not all blank) is a loop, not a quotation.
LOOP_SPAN = 48


def loop_start(text: str, span: int = LOOP_SPAN) -> int | None:
    """Where the repetition begins when `text` ends with a stretch it already contains."""
    if len(text) < 2 * span:
        return None
    tail = text[-span:]
    if len(tail.split()) < 3:  # a rule line or blank padding, not words
        return None
    earlier = text.find(tail, 0, len(text) - span)
    return None if earlier < 0 else len(text) - span


def _keep(text: str, cut: int) -> str:
    """The text before the repetition at `cut`, with the sentence in progress there completed
    (its end lies in the repeated stretch, a copy of what was written before)."""
    ends = [m.end() for m in _SENTENCE_BREAK.finditer(text, 0, cut)]
    if ends and cut - ends[-1] <= 1:
        return text[: ends[-1]].rstrip()
    following = _SENTENCE_BREAK.search(text, cut)
    return text[: following.end() if following else cut].rstrip()


#: A chat model, or one with tools bound (`bind_tools`).
ChatRunnable = Runnable[Any, Any]


@dataclass
class Reply:
    """What an answer call produced: the text kept, and tool calls when tools were bound."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    #: The streamed message's id: a node that returns the reply under it is not streamed twice
    #: (LangGraph's `messages` mode skips a returned message whose id it already streamed).
    id: str | None = None


async def stream_answer(
    model: ChatRunnable,
    messages: Sequence[BaseMessage],
    max_tokens: int,
    sentence: Callable[[str], str] | None = None,
) -> str:
    """Stream `model`'s answer, at most `max_tokens`, stopping at a loop; returns the answer kept.

    Without `sentence` the call is tagged `ANSWER_TAG`: the user sees its tokens as they decode.
    With it, the answer goes out a sentence at a time: each finished sentence is passed to
    `sentence`, which shows it (or not) and returns what of it the answer keeps.
    """
    return (await _stream(model, messages, max_tokens, sentence)).text


async def _stream(
    model: ChatRunnable,
    messages: Sequence[BaseMessage],
    max_tokens: int,
    sentence: Callable[[str], str] | None,
) -> Reply:
    raw = kept = ""
    done = 0  # how much of `raw` went through `sentence`
    tags = [] if sentence else [ANSWER_TAG]
    bound = model.bind(max_tokens=max_tokens)
    looped = False
    message: AIMessageChunk | None = None
    async for chunk in bound.astream(list(messages), config={"tags": tags}):
        message = chunk if message is None else message + chunk
        if looped:
            continue  # read to the end (the local model has stopped), so usage is counted
        raw += chunk.text
        cut = loop_start(raw)
        if cut is not None:
            raw, looped = _keep(raw, cut), True
            continue
        if sentence:
            ends = [m.end() for m in _SENTENCE_BREAK.finditer(raw, done)]
            if ends:
                kept += sentence(raw[done : ends[-1]])
                done = ends[-1]
    calls = list(message.tool_calls) if message is not None else []
    ident = message.id if message is not None else None
    if not sentence:
        return Reply(raw.strip(), calls, ident)
    if raw[done:].strip():
        kept += sentence(raw[done:])
    return Reply(kept.strip(), calls, ident)


#: Told after the (Korean) prompts when the question is English (`in_english`).
IN_ENGLISH = "사용자가 영어로 물었습니다. 위 지침과 달리 영어로 답하세요 (answer in English)."
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}[.,!?'\"]*")


def in_english(question: str) -> bool:
    """Two words or more in Latin letters alone, and more of them than words with Hangul: "What
    does 제5조 say?" is English, "LangGraph가 뭐야?" is not."""
    words = question.split()
    latin = sum(1 for w in words if _LATIN_WORD.fullmatch(w))
    hangul = sum(1 for w in words if any("가" <= c <= "힣" for c in w))
    return latin >= 2 and latin > hangul


#: The reminder for the second attempt, and the fixed answer when that one is not Korean either.
KOREAN_AGAIN = "방금 답변은 한국어가 아니었습니다. 반드시 한국어로만 답하세요."
NOT_KOREAN = "죄송합니다. 한국어로 답변을 만들지 못했습니다. 질문을 조금 바꾸어 다시 물어봐 주세요."


def is_korean(text: str) -> bool:
    """Half the words or more carry Hangul ("LangGraph는 LangChain 기반의 …" is Korean; names
    in Latin letters do not make it English); text of fewer than three words passes."""
    words = [w for w in text.split() if any(c.isalpha() for c in w)]
    korean = sum(any("가" <= c <= "힣" for c in w) for w in words)
    return len(words) < 3 or korean / len(words) >= 0.5


class _Foreign(Exception):
    """The answer opened in another language."""


async def answer_in_kind(
    question: str,
    model: ChatRunnable,
    messages: Sequence[BaseMessage],
    max_tokens: int,
    show: Callable[[str], str],
    notice: Callable[[str], None],
) -> Reply:
    """`stream_answer` a sentence at a time through `show`, in Korean when the question is.

    A Korean question's answer that opens in another language is not shown: it is written once
    more with a reminder (`notice` says so), then replaced by `NOT_KOREAN`. A later sentence in
    another language is left out. A reply of tool calls (tools bound) shows nothing; one that
    never closes (its arguments looped, measured: "'网球', '高尔夫', …" until the token limit) is
    asked once more with no tool to call, so the turn still gets an answer.
    """
    try:
        return await _in_kind(question, model, messages, max_tokens, show, notice)
    except ToolReplyError:
        notice("도구 호출을 끝맺지 못해 도구 없이 답합니다.")
        no_tools = model.bind(tool_choice="none")
        return await _in_kind(question, no_tools, messages, max_tokens, show, notice)


async def _in_kind(
    question: str,
    model: ChatRunnable,
    messages: Sequence[BaseMessage],
    max_tokens: int,
    show: Callable[[str], str],
    notice: Callable[[str], None],
) -> Reply:
    if in_english(question):  # the prompts ask for Korean: an English question is told otherwise
        return await _stream(model, [*messages, SystemMessage(IN_ENGLISH)], max_tokens, show)
    if not any("가" <= c <= "힣" for c in question):
        return await _stream(model, messages, max_tokens, show)
    shown = False
    held: list[str] = []  # short Latin sentences ("Hello!") before the answer's language shows

    def korean_only(sentence: str) -> str:
        nonlocal shown
        hangul = any("가" <= c <= "힣" for c in sentence)
        if not shown and not hangul and is_korean(sentence):
            held.append(sentence)  # too short to tell: wait for the next sentence
            return ""
        if is_korean(sentence):
            kept = "".join(show(s) for s in held) + show(sentence)
            held.clear()
            shown = shown or bool(kept.strip())
            return kept
        if not shown:
            raise _Foreign
        return ""

    for reminder in ([], [SystemMessage(KOREAN_AGAIN)]):
        held.clear()
        try:
            reply = await _stream(model, [*messages, *reminder], max_tokens, korean_only)
        except _Foreign:
            notice(
                "다시 쓴 답변도 한국어가 아니어서 정해진 안내로 답합니다."
                if reminder
                else "답변이 한국어가 아니어서 다시 작성합니다."
            )
            continue
        if held:  # the whole answer was too short to tell ("OK.")
            reply.text = "".join(show(s) for s in held).strip()
        return reply
    return Reply(show(NOT_KOREAN))
