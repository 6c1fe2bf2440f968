"""`dure doctor`: check each part Dure needs and say in one line what is wrong with it."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Callable

from pydantic import ValidationError

from dure.settings import Settings

Check = tuple[str, str | None]


def _reason(e: BaseException) -> str:
    """One line for a failure: the first line of its message, else its type."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _settings(s: Settings) -> None:
    # Re-validate what was loaded (a value assigned after loading is checked too), then make
    # sure the data directory, where threads and indexes live, is writable.
    Settings.model_validate(s.model_dump())
    try:
        s.data_dir.mkdir(parents=True, exist_ok=True)
        probe = s.data_dir / ".dure-doctor"
        probe.write_text("ok", encoding="utf-8")
        probe.unlink()
    except OSError as e:
        raise RuntimeError(f"데이터 디렉터리에 쓸 수 없습니다: {s.data_dir} ({e.strerror})") from e


def _model_file(s: Settings) -> None:
    from dure.llm.weights import expected_sha256, verify_model

    verify_model(s.model_path, expected_sha256(s))


def _llama_cpp(s: Settings) -> None:
    if importlib.util.find_spec("llama_cpp") is None:
        raise RuntimeError("llama-cpp-python이 설치되어 있지 않습니다: pip install 'dure[local]'")


def _database(s: Settings) -> None:
    from dure.persistence import check_database

    try:
        check_database(s.effective_database_url)
    except Exception as e:
        raise RuntimeError(f"데이터베이스에 연결할 수 없습니다: {_reason(e)}") from e


def _provider(s: Settings) -> None:
    from dure.llm.openai_compat import check_endpoint

    check_endpoint(s)


def _embedder(s: Settings) -> None:
    from dure.embeddings import get_embedder

    vector = get_embedder(s).embed_query("점검")
    if vector.ndim != 1 or not vector.size:
        raise RuntimeError("임베딩 모델이 빈 벡터를 돌려주었습니다.")


def _python_sandbox(s: Settings) -> None:
    from dure.tools.sandbox import sandbox_problem

    problem = sandbox_problem(s.assistant.python.bwrap)
    if problem is not None:
        raise RuntimeError(f"{problem} (python_repl 도구가 꺼집니다; 나머지는 그대로 동작)")


def _mcp_server(name: str) -> Callable[[Settings], None]:
    def check(s: Settings) -> None:
        from dure.mcp.client import server_problem

        problem = asyncio.run(server_problem(name, s.mcp.servers[name]))
        if problem is not None:
            raise RuntimeError(f"{problem} (그 서버의 도구 없이 동작합니다)")

    return check


def _checks(s: Settings) -> list[tuple[str, Callable[[Settings], None]]]:
    checks: list[tuple[str, Callable[[Settings], None]]] = [("설정", _settings)]
    if s.provider == "local":
        checks += [("로컬 모델 파일", _model_file), ("llama-cpp-python", _llama_cpp)]
    else:
        checks.append((f"제공자 ({s.base_url or 'OpenAI'})", _provider))
    where = s.search.embedding_base_url or s.base_url or "OpenAI"
    label = "multilingual-e5" if s.search.embedder == "e5" else f"openai, {where}"
    checks.append((f"임베딩 ({label})", _embedder))
    checks.append(("데이터베이스", _database))
    checks.append(("Python 샌드박스 (bubblewrap)", _python_sandbox))
    checks += [(f"MCP 서버 {name}", _mcp_server(name)) for name in s.mcp.servers]
    return checks


def run_checks(settings: Settings) -> list[Check]:
    """(part, None if fine else a one-line reason) for every part this configuration uses."""
    results: list[Check] = []
    for part, check in _checks(settings):
        try:
            check(settings)
        except ValidationError as e:
            first = e.errors()[0]
            results.append((part, f"{'.'.join(map(str, first['loc']))}: {first['msg']}"))
        except Exception as e:  # every failure is reported, none stops the others
            results.append((part, _reason(e)))
        else:
            results.append((part, None))
    return results
