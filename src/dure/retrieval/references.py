"""Articles a question names by number, found in the right document of a collection.

"제15조" is exact: the parser reads the number (`dure.documents.extract_article_refs`) and the
article comes from the store, not from search. Over several contracts or statutes, the one the
question names comes first ("근로기준법 제23조"), then the one whose article the rest of the
question matches best.
"""

from __future__ import annotations

import re
from pathlib import Path

from dure.retrieval.stores.base import Store
from dure.retrieval.types import Kind, Record

__all__ = ["numbered_records"]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def numbered_records(
    store: Store,
    query: str,
    refs: list[str],
    kind: Kind | None,
    doc_id: str | None,
    ranked: list[str],
) -> list[Record]:
    """The records of the articles `refs` (labels such as `제15조`, in the order named) in every
    contract or statute they may mean; `ranked` is the search ranking of the whole question."""
    if not refs:
        return []
    docs = [store.document(doc_id)] if doc_id else store.documents()
    found = [
        d
        for d in docs
        if d is not None and d.kind in ("contract", "standard") and kind in (None, d.kind)
    ]
    said = _squash(query)
    named = {
        d.doc_id
        for d in found
        if any(len(t) >= 2 and t in said for t in (_squash(d.title), Path(d.name).stem))
    }
    place = {rid: i for i, rid in enumerate(ranked)}
    records = store.records([f"{d.doc_id}:{no}" for no in refs for d in found])
    records.sort(
        key=lambda r: (
            r.doc_id not in named,
            refs.index(r.article_no) if r.article_no in refs else len(refs),
            place.get(r.id, len(place)),
        )
    )
    return records
