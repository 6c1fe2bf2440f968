"""Which indexed documents are statutes (법률, 시행령, 규칙) rather than contracts.

Statutes are indexed like contracts (one record per 조), but the everyday → contract-term
thesaurus (`dure.retrieval.thesaurus`) is written for contracts: on our statute dev set
(`benchmarks/data/statute_dev/`) it cost fused hit@1 0.768 → 0.732, as "돈" → 대금·지급 or
"깨" → 해지·해제 pull a question towards articles that merely share those words. Search leaves
it out when every document it searches is a statute.

A statute is known by its title (…법, …법률, …령, …규칙) or, for an untitled excerpt, by how
its articles speak: "이 법", "대통령령", "…에 처한다" and the like, where a contract says
"이 계약", "갑은", "을은".
"""

from __future__ import annotations

import re

from dure.retrieval.stores.base import Store
from dure.retrieval.types import Kind, StoredDoc

__all__ = ["is_statute", "only_statutes"]

_TITLE = re.compile(r"(?:법|법률|령|규칙)$")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>")
_STATUTE_SAYS = re.compile(r"이\s?법(?:률)?[은이의에을과]|대통령령|에\s?처한다|본장|이\s?장의|벌칙")
_CONTRACT_SAYS = re.compile(r"본\s?계약|이\s?계약|계약서|[갑을][은이의]\s|계약\s?당사자")


def is_statute(title: str, text: str) -> bool:
    """Whether a document with this title and text is a statute (see the module doc)."""
    name = _BRACKETS.sub("", title or "").strip()
    if _TITLE.search(name):
        return True
    says = len(_STATUTE_SAYS.findall(text))
    return says >= 3 and says > 2 * len(_CONTRACT_SAYS.findall(text))


def only_statutes(
    store: Store, kind: Kind | None, doc_id: str | None, known: dict[str, bool]
) -> bool:
    """Whether every document a search of `kind` / `doc_id` covers is a statute (`known`
    caches the verdict per doc_id; a document's text is read once)."""
    docs = [doc_id] if doc_id else [d.doc_id for d in store.documents() if kind in (None, d.kind)]
    for did in docs:
        if did not in known:
            doc: StoredDoc | None = store.document(did)
            known[did] = (
                doc is not None
                and doc.kind in ("contract", "standard")
                and (is_statute(doc.title, doc.text))
            )
        if not known[did]:
            return False
    return bool(docs)
