"""Contract words learned to answer everyday words, added to the keyword query.

The thesaurus (`dure.retrieval.thesaurus`) is written by hand and covers the clause types most
contracts share; people's words run wider ("담배" for 흡연, "강아지" for 반려동물, "공짜" for 무상,
"돌려주다" for 반환). This table is learned (`scripts/search-associations.py`) from the questions
helpers wrote over contracts of their own (`scripts/search_adapter/`; never a blind set): for a
question word q and an article word t not in the question, the share of q's questions whose
answering article holds t, less the share of that contract's articles holding t. A pair is kept
when it was seen `MIN_COUNT` times from `MIN_WRITERS` writers and its lift is at least
`MIN_LIFT`, at most `PER_WORD` words for each q; numbers are left out either way, and so are
article words shorter than `MIN_CHARS` (하, 되, 전, 항: noise).

Chosen on the writers alone. Five folds by writer (`--folds`: BM25 over each contract's
articles with the thesaurus, hit@1 / hit@3): without the table 0.556 / 0.751; with one word
per q 0.597 / 0.790, two 0.590 / 0.787 (with one-syllable words 0.593 / 0.790); on 28 writers,
lift 0.4 and 0.5 and 5 times from 3 writers were no better. Dure's whole search on five writers
who wrote for it but were kept out of its data (989 questions over 15 contracts): without the
table 0.701 / 0.892, one word per q 0.722 / 0.899, two 0.732 / 0.904. Two words per q lost a
test's cross-document question ("월세 밀리면 쫓겨나?" went to a software contract), so one it is
until two is checked further. Pooled blind contract sets 1–6 (861 questions), without → with
(one run, `dure_no_associations` in `benchmarks/search.py`): hit@1 0.797 → 0.814, hit@3 0.928
→ 0.933 (two words per q: 0.814 / 0.934).

The words go to the keyword list only: the dense query is the text the query adapter was trained
on. Like the thesaurus it is left out when every document searched is a statute (where the
adapter is the statute map; a statute table learned the same way lowered BM25 there).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path

from dure.retrieval.thesaurus import expand_query
from dure.retrieval.tokenize import analyse

__all__ = ["ASSOCIATIONS_FILE", "associated_terms", "query_terms"]

#: The shipped table ({question word: [article words]}), written by the script.
ASSOCIATIONS_FILE = Path(__file__).resolve().parents[1] / "data" / "search" / "associations.json"
MIN_COUNT, MIN_WRITERS, MIN_LIFT, PER_WORD, MIN_CHARS = 3, 2, 0.3, 1, 2


@cache
def _table() -> dict[str, tuple[str, ...]]:
    if not ASSOCIATIONS_FILE.exists():
        return {}
    data = json.loads(ASSOCIATIONS_FILE.read_text(encoding="utf-8"))
    return {word: tuple(terms) for word, terms in data.items()}


def associated_terms(
    content: Iterable[str], table: Mapping[str, Sequence[str]] | None = None
) -> list[str]:
    """The learned contract words for a question's content morphemes (unique, not already in
    the question, in the question's order), from `table` or else the shipped one."""
    table = _table() if table is None else table
    words = list(content)
    have = set(words)
    out: list[str] = []
    for word in words:
        for term in table.get(word, ()):
            if term not in have and term not in out:
                out.append(term)
    return out


def query_terms(query: str, thesaurus: bool, associations: bool) -> tuple[list[str], str]:
    """(keyword tokens, dense text) of a question: its content morphemes, then the thesaurus's
    contract terms and the learned words; the question and the thesaurus's terms."""
    content, forms = analyse(query, compounds=True)
    extra = expand_query(query, forms) if thesaurus else []
    learned = associated_terms(content) if associations else []
    return content + extra + learned, " ".join([query, *extra])
