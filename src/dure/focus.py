"""The sentences of found passages a question needs: a prompt carries those, up to a budget.

On the local model a prompt token costs about 50 ms (2 cores evaluate 20 tokens/s), and five
passages of a long document ran to 1,800 prompt tokens (blind7: 88 s an answer at p50, facts
found in 0.33 of the answers although the passages held them in 0.97). `focus` keeps, of the
passages' sentences and table rows, those nearest the question (e5 cosine) until
`search.prompt_chars` characters, each under its own passage in document order; a passage with
none kept is left out. Chosen on the dev sets by whether the kept text still holds the gold facts
(documents_dev, answers5-7: 0.975 / 0.956 / 0.931 / 0.967 whole, at 700 characters 0.975 /
0.956 / 0.931 / 0.950, blind7's 1,673 characters at p50 down to 705).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from dure.embeddings import Embedder, EmbeddingError, get_embedder
from dure.korean.text import SENTENCE
from dure.settings import Settings
from dure.sources import Source

log = logging.getLogger(__name__)


def sentences(source: Source) -> list[str]:
    """A passage's sentences and lines, without the heading path it opens with (the label
    names it, `Source.body`)."""
    return [s for s in (line.strip() for line in SENTENCE.split(source.body())) if s]


def focus(question: str, sources: Sequence[Source], settings: Settings) -> list[Source]:
    """`sources` cut to their sentences nearest `question` (see the module doc); as they are
    when they fit the budget, when it is 0, or when the embedder fails."""
    budget = settings.search.prompt_chars
    parts = [sentences(s) for s in sources]
    if budget <= 0 or sum(len(line) for lines in parts for line in lines) <= budget:
        return list(sources)
    try:
        keep = _nearest(question, parts, get_embedder(settings), budget)
    except EmbeddingError as e:  # whole passages cost time, not the answer
        log.warning("passages not focused: the embedder failed (%s)", e)
        return list(sources)
    focused = []
    for i, (source, lines) in enumerate(zip(sources, parts, strict=True)):
        kept = [line for j, line in enumerate(lines) if (i, j) in keep]
        if kept:  # the label names the passage: no heading path before its sentences
            focused.append(source.model_copy(update={"text": "\n".join(kept)}))
    return focused


def _nearest(
    question: str, parts: list[list[str]], embedder: Embedder, budget: int
) -> set[tuple[int, int]]:
    """(passage, sentence) of the sentences kept: nearest first while they fit; the nearest
    always, however long."""
    where = [(i, j) for i, lines in enumerate(parts) for j in range(len(lines))]
    texts = [parts[i][j] for i, j in where]
    order = np.argsort(-(embedder.embed_documents(texts) @ embedder.embed_query(question)))
    keep: set[tuple[int, int]] = set()
    used = 0
    for k in order:
        size = len(texts[k])
        if keep and used + size > budget:
            continue
        keep.add(where[k])
        used += size
    return keep
