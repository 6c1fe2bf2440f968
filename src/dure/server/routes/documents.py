"""Document upload (size and type limits), listing and deletion — each key sees only its own."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Response, UploadFile

from dure.server.deps import Owner, SettingsDep, StoreDep
from dure.server.documents import DocKind, delete_document, public_document, save_upload

router = APIRouter(tags=["documents"])


@router.post("/documents", status_code=201, summary="문서 올리기")
async def upload_document(
    file: Annotated[UploadFile, File(description="계약서·문서 (.md .txt .pdf .docx .hwp .hwpx)")],
    owner: Owner,
    store: StoreDep,
    settings: SettingsDep,
    kind: Annotated[DocKind, Form(description="contract | standard | document")] = "contract",
    collection: Annotated[str | None, Form(description="색인할 컬렉션 (선택)")] = None,
) -> dict[str, Any]:
    """Upload a document; it is read (and parsed for contracts) before it is accepted, and
    indexed into `collection` when one is named. Too large: 413; unsupported type: 415."""
    return await save_upload(
        store, settings, owner, file.filename or "", file.file, kind, collection or None
    )


@router.get("/documents", summary="문서 목록")
async def list_documents(owner: Owner, store: StoreDep) -> dict[str, Any]:
    """The caller's documents, newest first."""
    return {"documents": [public_document(d) for d in await store.documents(owner)]}


@router.delete("/documents/{doc_id}", status_code=204, summary="문서 삭제")
async def remove_document(
    doc_id: str, owner: Owner, store: StoreDep, settings: SettingsDep
) -> Response:
    """Delete a document, its file and its search entries (threads bound to it can no longer
    answer)."""
    await delete_document(store, settings, owner, doc_id)
    return Response(status_code=204)
