"""The sources' own words beside an answer: the line nearest the question, quoted verbatim.

A 1.5B model reading retrieved passages sometimes answers with the wrong sentence ("출장 다녀와서
정산 언제까지 해야 돼?" → "출발 3영업일 전까지", the application rule, where the passage said
"돌아온 날부터 7일 이내에"). The contract agent quotes the nearest paragraph of the article its
answer cites (`agents.contract.grounding`); the assistant quotes the nearest sentence of the
document passages it found (`document_quote`). Either way, a line the answer already says is not
quoted again (`says`), and a quote line the model writes itself is left out (`honest.QUOTED`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from dure.embeddings import Embedder, EmbeddingError, get_embedder
from dure.focus import sentences
from dure.honest import trigrams
from dure.korean.figures import figures, unsupported
from dure.settings import Settings
from dure.sources import Source

__all__ = ["document_quote", "nearest_sentence", "says"]

log = logging.getLogger(__name__)

#: A line whose character trigrams the answer holds this much of is not quoted again; nor one
#: that has figures, all of them in the answer, and this much of its trigrams (an answer that
#: restates the line in its own ending: "…까지입니다" for "…까지로 한다").
SAID = 0.8
SAID_WITH_FIGURES = 0.7
#: A sentence shorter than this (a heading, a table's header) says too little to quote.
MIN_CHARS = 12


def says(answer: str, line: str) -> bool:
    """Whether `answer` already says `line` (see `SAID`, `SAID_WITH_FIGURES`)."""
    own = trigrams(line)
    held = len(own & trigrams(answer)) / max(len(own), 1)
    return held >= SAID or (
        held >= SAID_WITH_FIGURES and bool(figures(line)) and not unsupported(line, [answer])
    )


def nearest_sentence(
    question: str, sources: Sequence[Source], embedder: Embedder
) -> tuple[Source, str] | None:
    """The sentence of `sources` nearest `question` (e5 cosine), with its source."""
    owners: list[Source] = []
    lines: list[str] = []
    for source in sources:
        # The heading path a chunk opens with names the section; it says nothing (split as
        # sentences, "… > 2. 자유수영 1회 이용 요금" was quoted as "자유수영 1회 이용 요금").
        for line in sentences(source):
            if len(line) >= MIN_CHARS:
                owners.append(source)
                lines.append(line)
    if not lines:
        return None
    best = int(np.argmax(embedder.embed_documents(lines) @ embedder.embed_query(question)))
    return owners[best], lines[best]


def document_quote(
    question: str, answer: str, passages: Sequence[Source], settings: Settings
) -> tuple[str, Source] | None:
    """After an answer from documents: the passages' sentence nearest the question, as written
    ("\\n\\n문서 원문 — 출장 여비 규정 (5. 정산): “…”"), with its passage — whichever passage the
    answer rested on, since a misread answer may rest on the wrong one; None when the answer says
    it, or without document passages or an embedder."""
    documents = [s for s in passages if s.kind == "document" and s.text]
    if not documents or not answer.strip():
        return None
    try:
        found = nearest_sentence(question, documents, get_embedder(settings))
    except EmbeddingError as e:  # no quote is better than no answer
        log.warning("no quote: the embedder failed (%s)", e)
        return None
    if found is None or says(answer, found[1]):
        return None
    return f"\n\n문서 원문 — {found[0].label()}: “{found[1]}”", found[0]
