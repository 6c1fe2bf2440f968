"""Documents: loading files into text, parsing contracts into articles, chunking for RAG.

- `load_document(path) -> LoadedDocument(text, metadata)`; failures raise `DocumentError`.
- `parse_contract(text, doc_id, title=None) -> Contract` with `Article`s; article lookup by
  number (`Contract.find_by_number`) and by title (`Contract.find_by_title`).
- `extract_article_refs(question)`: article numbers a user names ("제5조", "5번째 조항").
- `chunk_text(text)`: heading-aware chunks under a token budget, with overlap.
"""

from dure.documents.chunker import Chunk, chunk_text, estimate_tokens
from dure.documents.contract import (
    Appendix,
    Article,
    Contract,
    Item,
    Paragraph,
    parse_contract,
)
from dure.documents.loaders import (
    SUPPORTED_SUFFIXES,
    DocumentError,
    Limits,
    LoadedDocument,
    content_hash,
    load_document,
)
from dure.documents.refs import extract_article_refs, find_article_numbers, format_article_no

__all__ = [
    "SUPPORTED_SUFFIXES",
    "Appendix",
    "Article",
    "Chunk",
    "Contract",
    "DocumentError",
    "Item",
    "Limits",
    "LoadedDocument",
    "Paragraph",
    "chunk_text",
    "content_hash",
    "estimate_tokens",
    "extract_article_refs",
    "find_article_numbers",
    "format_article_no",
    "load_document",
    "parse_contract",
]
