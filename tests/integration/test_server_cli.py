"""`dure keys create|list|revoke` and `dure serve`'s refusal to run without auth off loopback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from server_support import DURE


def dure(*args: str, data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "DURE_DATA_DIR": str(data), **env}
    return subprocess.run([str(DURE), *args], env=full_env, capture_output=True, text=True)


def test_keys_create_list_revoke(tmp_path: Path) -> None:
    created = dure("keys", "create", "민수", data=tmp_path)
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip().splitlines()[-1]
    assert secret.startswith("dure_") and len(secret) > 40
    key_id = created.stdout.split()[1].split("(")[0]

    listed = dure("keys", "list", data=tmp_path).stdout
    assert key_id in listed and "민수" in listed and "사용 중" in listed
    assert secret not in listed
    # Only the hash is stored.
    assert all(secret.encode() not in f.read_bytes() for f in tmp_path.glob("dure.sqlite*"))

    assert dure("keys", "revoke", key_id, data=tmp_path).returncode == 0
    assert "폐기됨" in dure("keys", "list", data=tmp_path).stdout
    again = dure("keys", "revoke", key_id, data=tmp_path)
    assert again.returncode == 2
    assert "오류:" in again.stderr and "Traceback" not in again.stderr


def test_serve_refuses_auth_off_beyond_loopback(tmp_path: Path) -> None:
    r = dure("serve", "--host", "0.0.0.0", data=tmp_path, DURE_SERVER__AUTH="false")
    assert r.returncode == 2
    assert "127.0.0.1" in r.stderr and "Traceback" not in r.stderr


def test_documents_add_registers_once_for_the_web_ui(tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "examples" / "contracts" / "software_dev.md"
    env = {"DURE_SEARCH__STORE": "memory"}
    first = dure("documents", "add", str(sample), data=tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert "software_dev.md" in first.stdout and "조항" in first.stdout
    again = dure("documents", "add", str(sample), data=tmp_path, **env)
    assert "이미 등록됨" in again.stdout
    listed = dure("documents", "list", data=tmp_path).stdout.splitlines()
    assert len(listed) == 1 and "\tcontract\tsoftware_dev.md" in listed[0]


def test_documents_add_a_document_is_what_the_assistant_searches(tmp_path: Path) -> None:
    """`--kind document` with no collection goes to `documents` (the assistant's default)."""
    from dure.retrieval import has_documents
    from dure.settings import Settings

    handbook = tmp_path / "안내서.md"
    handbook.write_text("# 휴가\n연차는 입사 1년 후 15일이다.\n", encoding="utf-8")
    added = dure("documents", "add", "--kind", "document", str(handbook), data=tmp_path)
    assert added.returncode == 0, added.stderr
    settings = Settings(data_dir=tmp_path)
    assert has_documents("documents", settings) and not has_documents("contracts", settings)
    found = dure("search", "-c", "documents", "연차 며칠", data=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "15일" in found.stdout
