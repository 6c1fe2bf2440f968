"""Bad configuration through the real `dure` command: one clear line per problem, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dure.settings import DEFAULT_MODEL_FILE

DURE = str(Path(sys.executable).with_name("dure"))


def run_dure(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `dure` with a clean DURE_* environment, a fresh data dir and user cache (so no
    model) and no config file."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DURE_", "OPENAI_"))}
    base |= {
        "DURE_DATA_DIR": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "DURE_CONFIG": str(tmp_path / "absent.toml"),
        "NO_COLOR": "1",
        "COLUMNS": "200",
    }
    return subprocess.run(
        [DURE, *args], env=base | env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )


def _problems(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stdout.splitlines() if line.startswith("✗")]


def _assert_clean(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


@pytest.fixture
def own_gguf(tmp_path: Path) -> str:
    """A file that passes as a user's own GGUF (only its header is checked)."""
    path = tmp_path / "own.gguf"
    path.write_bytes(b"GGUF" + bytes(32))
    return str(path)


def test_doctor_passes_a_sound_configuration(tmp_path, own_gguf):
    result = run_dure(tmp_path, "doctor", DURE_LOCAL__PATH=own_gguf)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _problems(result) == []
    assert "✓ 로컬 모델 파일" in result.stdout and "✓ 데이터베이스" in result.stdout
    assert "✓ 임베딩 (multilingual-e5)" in result.stdout
    assert "✓ Python 샌드박스 (bubblewrap)" in result.stdout


def test_doctor_says_how_to_install_a_missing_bubblewrap(tmp_path, own_gguf):
    result = run_dure(
        tmp_path, "doctor", DURE_LOCAL__PATH=own_gguf, DURE_ASSISTANT__PYTHON__BWRAP="no-bwrap"
    )
    assert result.returncode == 1
    assert _problems(result) == [
        "✗ Python 샌드박스 (bubblewrap): bubblewrap(bwrap)이 설치되어 있지 않습니다 — "
        "Debian/Ubuntu: sudo apt-get install bubblewrap (python_repl 도구가 꺼집니다; "
        "나머지는 그대로 동작)"
    ]
    _assert_clean(result)


def test_doctor_reports_an_embeddings_server_that_does_not_answer(tmp_path, own_gguf):
    result = run_dure(
        tmp_path,
        "doctor",
        DURE_LOCAL__PATH=own_gguf,
        DURE_SEARCH__EMBEDDER="openai",
        DURE_SEARCH__EMBEDDING_BASE_URL="http://127.0.0.1:9/v1",
        DURE_MAX_RETRIES="0",
    )
    assert result.returncode == 1
    [problem] = _problems(result)
    assert problem.startswith(
        "✗ 임베딩 (openai, http://127.0.0.1:9/v1): 임베딩 서버 호출에 실패했습니다"
    )
    _assert_clean(result)


def test_doctor_refuses_a_corrupted_model_file(tmp_path):
    model = tmp_path / "cache" / "dure" / "models" / DEFAULT_MODEL_FILE
    model.parent.mkdir(parents=True)
    model.write_bytes(b"GGUF" + b"\0" * 4096)  # right header, wrong bytes
    result = run_dure(tmp_path, "doctor")
    assert result.returncode == 1
    assert _problems(result) == [
        f"✗ 로컬 모델 파일: 모델 파일이 손상되었습니다 (SHA-256 불일치): {model} — "
        "파일을 지우고 `dure models pull`을 다시 실행하세요."
    ]
    _assert_clean(result)


def test_doctor_reports_a_missing_key(tmp_path):
    result = run_dure(tmp_path, "doctor", DURE_PROVIDER="openai")
    assert result.returncode == 1
    assert _problems(result) == [
        "✗ 제공자 (OpenAI): OpenAI API 키가 없습니다: DURE_API_KEY를 설정하거나, "
        "DURE_BASE_URL로 OpenAI 호환 서버를 지정하세요."
    ]
    _assert_clean(result)


def test_doctor_reports_a_wrong_base_url_and_an_unreachable_database_masking_secrets(tmp_path):
    result = run_dure(
        tmp_path,
        "doctor",
        DURE_PROVIDER="openai",
        DURE_BASE_URL="http://127.0.0.1:9/v1",
        DURE_API_KEY="sk-very-secret-key",
        DURE_DATABASE_URL="postgresql://dure:hunter2@127.0.0.1:9/x",
    )
    assert result.returncode == 1
    provider, database = _problems(result)
    assert provider == (
        "✗ 제공자 (http://127.0.0.1:9/v1): "
        "제공자에 연결할 수 없습니다: http://127.0.0.1:9/v1 (ConnectError)"
    )
    assert database.startswith("✗ 데이터베이스: 데이터베이스에 연결할 수 없습니다: ")
    assert "127.0.0.1" in database and "port 9" in database
    _assert_clean(result)
    # The effective settings are printed, secrets masked.
    assert '"api_key": "**********"' in result.stdout
    assert "sk-very-secret-key" not in result.stdout + result.stderr
    assert "hunter2" not in result.stdout + result.stderr


def test_models_pull_refuses_a_corrupted_model_in_one_line(tmp_path):
    model = tmp_path / "cache" / "dure" / "models" / DEFAULT_MODEL_FILE
    model.parent.mkdir(parents=True)
    model.write_bytes(b"PK\x03\x04 not a gguf")
    result = run_dure(tmp_path, "models", "pull")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        f"오류: GGUF 모델 파일이 아닙니다 (손상되었을 수 있음): {model}"
    )
    _assert_clean(result)


def test_a_malformed_setting_is_one_line(tmp_path):
    result = run_dure(tmp_path, "doctor", DURE_MAX_RETRIES="many")
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("오류: 설정 오류 — max_retries:")
    _assert_clean(result)
