"""Uploaded documents: saved under the data directory per key, checked by actually reading them,
optionally indexed into one of the key's search collections, bound to threads as agent options.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import shutil
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, Literal

from dure.documents import SUPPORTED_SUFFIXES, Article, load_document, parse_contract
from dure.errors import DureError
from dure.retrieval.types import CONTRACTS_COLLECTION, DOCUMENTS_COLLECTION
from dure.server.database import Row
from dure.server.store import LOCAL_OWNER, Store, Thread, new_id
from dure.settings import Settings

DocKind = Literal["contract", "standard", "document"]
DOC_KINDS: tuple[DocKind, ...] = ("contract", "standard", "document")
#: Thread options that name an uploaded document (the agents take them as file paths).
DOCUMENT_OPTIONS = ("contract", "standard")
#: What a thread works on (`Thread.options`): its documents, and the collection it searches.
THREAD_OPTIONS = (*DOCUMENT_OPTIONS, "collection")
COLLECTION_NAME = re.compile(r"^[0-9A-Za-z가-힣_-]{1,64}$")


class UnsupportedTypeError(DureError):
    """A file type Dure does not read."""


class DocumentNotFoundError(DureError, LookupError):
    """No such document for this key."""


def collection_for(owner: str, name: str) -> str:
    """The key's private name for a collection (shared names only without authentication)."""
    if not COLLECTION_NAME.match(name):
        raise DureError("컬렉션 이름은 한글, 영문, 숫자, _, - 로 1~64자여야 합니다.")
    return _key_prefix(owner) + name


def _key_prefix(owner: str) -> str:
    """What `collection_for` puts before a key's collection names (nothing for the local owner)."""
    return "" if owner == LOCAL_OWNER else f"k{owner[:12]}_"


_KEYED = re.compile(r"^k[0-9a-f]{12}_")


def _safe_name(filename: str) -> str:
    name = Path(filename or "document").name
    stem, suffix = Path(name).stem, Path(name).suffix.lower()
    stem = re.sub(r"[^\w가-힣.-]+", "_", stem).strip("._")[:80] or "document"
    return stem + suffix


def _describe(path: Path, kind: DocKind) -> dict[str, Any]:
    """Read the file (the real check that it is usable) and say what was found."""
    loaded = load_document(path)
    info: dict[str, Any] = {"chars": len(loaded.text), "sha256": file_digest(path)}
    if kind != "document":
        contract = parse_contract(loaded.text, doc_id=path.stem)
        info.update(title=contract.title, articles=len(contract.articles))
    return info


def file_digest(path: Path) -> str:
    """SHA-256 of a file's bytes (the same file registered twice is found again)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _index(settings: Settings, collection: str, path: Path, kind: DocKind) -> None:
    from dure.retrieval import shared_collection

    shared_collection(collection, settings).add_document(path, kind=kind)


def _owned(owner: str, name: str) -> bool:
    """Whether collection `name` is one of `owner`'s (`collection_for` names them)."""
    prefix = _key_prefix(owner)
    return name.startswith(prefix) if prefix else not _KEYED.match(name)


def _unindex(settings: Settings, owner: str, path: Path) -> None:
    """Remove the file's text from every collection of `owner`, in every store."""
    from dure.retrieval import list_collections, shared_collection

    doc_id = load_document(path).metadata["sha256"][:16]  # as `Collection` names it
    for info in list_collections(settings):
        if _owned(owner, info.name):
            shared_collection(info.name, settings).remove_document(doc_id)


async def save_upload(
    store: Store,
    settings: Settings,
    owner: str,
    filename: str,
    data: BinaryIO,
    kind: DocKind,
    collection: str | None,
) -> dict[str, Any]:
    """Store an upload for `owner`; `DureError` (with the reason) when it cannot be used.

    A contract is indexed when a thread binds it (into `collection`, if named, now); any other
    document into `collection`, else the key's `documents`, which the assistant searches.
    """
    name = _safe_name(filename)
    if Path(name).suffix not in SUPPORTED_SUFFIXES:
        allowed = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise UnsupportedTypeError(f"지원하지 않는 파일 형식입니다: {name} (가능: {allowed})")
    if kind == "document":
        collection = collection or DOCUMENTS_COLLECTION
    target_collection = collection_for(owner, collection) if collection else None
    doc_id = new_id()
    folder = settings.data_dir / "uploads" / owner[:16] / doc_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    try:
        with path.open("wb") as out:
            await asyncio.to_thread(shutil.copyfileobj, data, out)
        info = await asyncio.to_thread(_describe, path, kind)
        if target_collection:
            await asyncio.to_thread(_index, settings, target_collection, path, kind)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    doc = {
        "id": doc_id,
        "owner": owner,
        "name": name,
        "kind": kind,
        "path": str(path),
        "size": path.stat().st_size,
        "collection": collection,
        "info": info,
        "created_at": time.time(),
    }
    await store.add_document(doc)
    return public_document(doc)


def public_document(doc: dict[str, Any]) -> dict[str, Any]:
    """What the API shows of a document (no owner, no server path)."""
    return {k: v for k, v in doc.items() if k not in ("owner", "path")}


async def delete_document(store: Store, settings: Settings, owner: str, doc_id: str) -> None:
    """Forget a document, take it out of the owner's search collections (unless the owner has
    the same file again under another id) and remove its file."""
    doc = await store.document(owner, doc_id)
    if doc is None or not await store.delete_document(owner, doc_id):
        raise DocumentNotFoundError("문서를 찾을 수 없습니다.")
    path = Path(doc["path"])
    again = {d["info"].get("sha256") for d in await store.documents(owner)}
    if doc["info"].get("sha256") not in again and path.is_file():
        await asyncio.to_thread(_unindex, settings, owner, path)
    shutil.rmtree(path.parent, ignore_errors=True)


async def check_options(store: Store, owner: str, options: dict[str, Any]) -> None:
    """Refuse thread options naming documents the key does not have."""
    for key in DOCUMENT_OPTIONS:
        if options.get(key) and await store.document(owner, options[key]) is None:
            raise DocumentNotFoundError(f"{key} 문서를 찾을 수 없습니다: {options[key]}")
    if options.get("collection"):
        collection_for(owner, options["collection"])


async def agent_options(store: Store, thread: Thread) -> dict[str, Any]:
    """A thread's options as its agent takes them: document ids become file paths, bound
    documents are indexed into the key's own collection (`contracts` unless one is named),
    and the key's added documents are where the assistant searches by default."""
    options = dict(thread.options)
    options["owner"] = thread.owner  # whose bookings a task may cancel
    options["documents_collection"] = collection_for(thread.owner, DOCUMENTS_COLLECTION)
    for key in DOCUMENT_OPTIONS:
        if options.get(key):
            doc = await store.document(thread.owner, options[key])
            if doc is None:
                raise DocumentNotFoundError(f"이 대화에 연결된 문서가 삭제되었습니다 ({key}).")
            options[key] = Path(doc["path"])
    if options.get("collection") or any(options.get(k) for k in DOCUMENT_OPTIONS):
        name = options.get("collection") or CONTRACTS_COLLECTION
        options["collection"] = collection_for(thread.owner, name)
    return options


@lru_cache(maxsize=32)
def _parsed(path: str, mtime: float) -> tuple[str | None, dict[str, Article]]:
    contract = parse_contract(load_document(Path(path)).text, doc_id=Path(path).stem)
    return contract.title, {a.no: a for a in [*contract.articles, *contract.supplementary]}


async def articles_of(doc: Row) -> tuple[str | None, dict[str, Article]]:
    """A registered document's title and its articles by number (parsed once per version)."""
    path = Path(doc["path"])
    return await asyncio.to_thread(_parsed, str(path), path.stat().st_mtime)


async def find_article(
    store: Store, thread: Thread, doc: str, article_no: str, kind: str | None = None
) -> dict[str, Any] | None:
    """The full text of an article a source cites, from the thread's bound documents: the
    document the source names (file name, or contract title) first, then one of its kind."""
    candidates = []
    for key in DOCUMENT_OPTIONS:
        if thread.options.get(key):
            row = await store.document(thread.owner, thread.options[key])
            if row:
                title, articles = await articles_of(row)
                named = doc in (row["name"], Path(row["path"]).stem, title)
                candidates.append((not named, row["kind"] != kind, row, articles))
    for *_, row, articles in sorted(candidates, key=lambda c: (c[0], c[1])):
        article = articles.get(article_no)
        if article:
            return {
                "doc": row["name"],
                "article_no": article.no,
                "article_title": article.title,
                "text": article.text,
            }
    return None
