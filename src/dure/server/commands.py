"""`dure serve`, `dure keys create|list|revoke` and `dure documents add|list`."""

from __future__ import annotations

import asyncio
import os
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from dure.errors import DureError
from dure.persistence import kind
from dure.settings import Settings, get_settings

out = Console(highlight=False, soft_wrap=True)
keys_app = typer.Typer(help="API 키 관리 (키는 해시로만 저장됩니다)", no_args_is_help=True)
documents_app = typer.Typer(help="서버 문서 관리 (웹 UI에서 고를 계약서)", no_args_is_help=True)


def _settings_for(host: str | None, port: int | None) -> Settings:
    """Settings with the bind address; passed through the environment so workers see it too."""
    if host:
        os.environ["DURE_SERVER__HOST"] = host
    if port:
        os.environ["DURE_SERVER__PORT"] = str(port)
    get_settings.cache_clear()
    return get_settings()


#: Seconds a worker may leave uvicorn's health ping unanswered before it is killed and
#: restarted (uvicorn's default is 5). Kiwi's model load holds the GIL for ≈ 3 s on an idle
#: machine and longer on a busy one; a worker killed then loses the requests it was serving
#: (seen: an MCP call that never got its answer). A worker really hung is still restarted.
WORKER_HEALTHCHECK_S = 60


def serve(
    host: Annotated[str | None, typer.Option(help="바인드 주소 (기본: 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="포트 (기본: 8000)")] = None,
    workers: Annotated[int, typer.Option(min=1, help="워커 프로세스 수")] = 1,
) -> None:
    """HTTP 서버와 웹 UI를 실행합니다 (API 문서: /docs)."""
    import uvicorn

    from dure.server.app import check_auth_setting

    settings = _settings_for(host, port)
    check_auth_setting(settings)
    if workers > 1 and kind(settings.effective_database_url) == "memory":
        raise DureError(
            "여러 워커는 같은 데이터베이스를 써야 합니다: memory 대신 SQLite나 Postgres를 쓰세요."
        )
    if workers > 1:  # each worker counts into its own files there; /metrics adds them up
        from dure.telemetry.metrics import multiprocess_dir

        multiprocess_dir()
    s = settings.server
    shown = f"[{s.host}]" if ":" in s.host else s.host
    auth = "API 키 필요" if s.auth else "인증 없음(루프백 전용)"
    out.print(f"[bold]두레 서버[/] http://{shown}:{s.port}  [dim]{auth} · 워커 {workers}개[/]")
    uvicorn.run(
        "dure.server.app:app_from_env",
        factory=True,
        host=s.host,
        port=s.port,
        workers=workers,
        log_level="info",
        timeout_graceful_shutdown=30,
        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S,
    )


async def _with_db(action: Any) -> Any:
    from dure.server.database import open_storage

    async with open_storage(get_settings().effective_database_url) as storage:
        return await action(storage.db)


KeyOpt = Annotated[
    str | None, typer.Option("--key", help="이 키 ID의 문서로 (기본: 인증 없는 로컬 서버용)")
]


async def _owner(db: Any, key_id: str | None) -> str:
    from dure.server.keys import owner_by_id
    from dure.server.store import LOCAL_OWNER

    return await owner_by_id(db, key_id) if key_id else LOCAL_OWNER


@documents_app.command("add")
def documents_add(
    files: Annotated[
        list[Path], typer.Argument(help="등록할 파일 (.md .txt .pdf .docx .hwp .hwpx)")
    ],
    kind: Annotated[str, typer.Option(help="contract | standard | document")] = "contract",
    key: KeyOpt = None,
    collection: Annotated[
        str | None,
        typer.Option(help="색인할 컬렉션 (기본: 계약서는 contracts, 그 밖의 문서는 documents)"),
    ] = None,
) -> None:
    """문서를 등록하고 색인합니다 — 웹 UI의 새 대화에서 고를 수 있습니다 (같은 파일은 건너뜀)."""
    from dure.retrieval.types import default_collection
    from dure.server.documents import DOC_KINDS, file_digest, save_upload
    from dure.server.store import Store

    if kind not in DOC_KINDS:
        raise DureError(f"--kind는 contract, standard, document 중 하나여야 합니다: {kind!r}")
    target = collection or default_collection(kind)

    async def add(db: Any) -> None:
        store = Store(db)
        owner = await _owner(db, key)
        known = {(d["kind"], d["info"].get("sha256")) for d in await store.documents(owner)}
        for path in files:
            if (kind, file_digest(path)) in known:
                out.print(f"[dim]= {path.name}: 이미 등록됨[/]")
                continue
            with path.open("rb") as data:
                doc = await save_upload(
                    store,
                    get_settings(),
                    owner,
                    path.name,
                    data,
                    kind,
                    target,
                )
            articles = doc["info"].get("articles")
            out.print(
                f"[green]✓[/] {doc['name']} ({kind}{f', 조항 {articles}개' if articles else ''})"
            )

    asyncio.run(_with_db(add))


@documents_app.command("list")
def documents_list(key: KeyOpt = None) -> None:
    """등록된 문서 목록 (ID, 종류, 이름)."""
    from dure.server.store import Store

    async def listing(db: Any) -> list[dict[str, Any]]:
        return await Store(db).documents(await _owner(db, key))

    for d in asyncio.run(_with_db(listing)):
        print(f"{d['id']}\t{d['kind']}\t{d['name']}")


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Argument(help="키 이름 (누가 쓰는지)")] = "default",
) -> None:
    """새 API 키를 만듭니다 (키는 이때 한 번만 보여 줍니다)."""
    from dure.server.keys import create_key

    info, secret = asyncio.run(_with_db(lambda db: create_key(db, name)))
    out.print(f"키 {info.id}({name})를 만들었습니다. 아래 키는 다시 볼 수 없으니 보관하세요:")
    print(secret)


@keys_app.command("list")
def keys_list() -> None:
    """API 키 목록 (ID, 이름, 만든 때, 폐기 여부)."""
    from dure.server.keys import list_keys

    for k in asyncio.run(_with_db(list_keys)):
        created = datetime.fromtimestamp(k.created_at).strftime("%Y-%m-%d %H:%M")
        state = "폐기됨" if k.revoked_at else "사용 중"
        print(f"{k.id}\t{k.name}\t{created}\t{state}")


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="키 ID (dure keys list)")]) -> None:
    """API 키를 폐기합니다 (그 키의 대화는 더 이상 열 수 없습니다)."""
    from dure.server.keys import revoke_key

    asyncio.run(_with_db(lambda db: revoke_key(db, key_id)))
    out.print(f"키 {key_id}를 폐기했습니다.")


def register(app: typer.Typer) -> None:
    """Add `serve` and `keys` to the `dure` command."""
    app.command()(serve)
    app.add_typer(keys_app, name="keys")
    app.add_typer(documents_app, name="documents")
