"""The `read_file` tool: text files under one configured root, and nothing outside it.

The path is resolved (`..` collapsed, every symlink followed) before it is checked against
the root, so neither `../`, nor an absolute path, nor a symlink pointing out can escape; the
final open refuses a symlink swapped in after the check (`O_NOFOLLOW`). At most
`max_file_bytes` are read.
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, Field

from dure.korean.particles import particle
from dure.settings import Settings
from dure.tools.base import Tool, ToolResult

MAX_LISTING = 50


class FileAccessError(ValueError):
    """A refused or failed read; the message is Korean, for the user."""


def files_root(settings: Settings) -> Path:
    """The directory `read_file` may read: the configured one, else `data_dir/files`."""
    return (settings.assistant.files_root or settings.data_dir / "files").expanduser()


def resolve_inside(root: Path, requested: str) -> Path:
    """The real path of `requested` (relative to `root`, or absolute), if it lies inside `root`."""
    if not requested.strip() or "\x00" in requested:
        raise FileAccessError("읽을 파일 경로를 알려 주세요.")
    real_root = root.resolve()
    candidate = Path(requested.strip()).expanduser()
    if not candidate.is_absolute():
        candidate = real_root / candidate
    real = candidate.resolve()  # collapses `..` and follows every symlink on the way
    if not real.is_relative_to(real_root):
        raise FileAccessError(f"허용된 폴더 밖의 파일은 읽을 수 없습니다: {requested}")
    return real


def _decode(data: bytes, truncated: bool) -> str:
    if b"\x00" in data[:8192]:
        raise FileAccessError("텍스트 파일이 아니어서 읽을 수 없습니다 (바이너리 파일).")
    # A cut may split the last character: try without its last 1-3 bytes too.
    candidates = [data[: len(data) - k] for k in range(4)] if truncated else [data]
    for encoding in ("utf-8", "cp949"):  # Korean files are often still CP949/EUC-KR
        for chunk in candidates:
            try:
                return chunk.decode(encoding)
            except UnicodeDecodeError:
                continue
    return data.decode("utf-8", errors="replace")


def read_text(root: Path, requested: str, max_bytes: int) -> str:
    """The text of a file under `root` (or a listing of a directory), bounded by `max_bytes`."""
    path = resolve_inside(root, requested)
    if not path.exists():
        raise FileAccessError(f"파일을 찾을 수 없습니다: {requested}")
    if path.is_dir():
        names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
        shown = "\n".join(names[:MAX_LISTING]) or "(비어 있음)"
        more = f"\n… 외 {len(names) - MAX_LISTING}개" if len(names) > MAX_LISTING else ""
        return f"{particle(requested, '은', '는')} 폴더입니다. 들어 있는 항목:\n{shown}{more}"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as e:
        raise FileAccessError(f"파일을 열 수 없습니다: {requested} ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        data = f.read(max_bytes + 1)
    truncated = len(data) > max_bytes
    text = _decode(data[:max_bytes], truncated)
    if truncated:
        text += f"\n… (파일이 커서 앞의 {max_bytes:,}바이트만 읽었습니다)"
    return text


class ReadFileArgs(BaseModel):
    """Arguments of `read_file`."""

    path: str = Field(description="읽을 파일 경로 (허용된 폴더 기준 상대 경로)")


def read_file_tool(settings: Settings) -> Tool:
    """The `read_file` tool confined to `files_root(settings)`."""
    root = files_root(settings)
    limit = settings.assistant.max_file_bytes

    def read_file(path: str) -> ToolResult:
        if not root.is_dir():
            return ToolResult.fail(
                f"읽을 수 있는 폴더가 없습니다: {root} (설정 DURE_ASSISTANT__FILES_ROOT)"
            )
        try:
            return ToolResult(ok=True, content=read_text(root, path, limit))
        except FileAccessError as e:
            return ToolResult.fail(str(e))

    return Tool(
        name="read_file",
        description="허용된 폴더 안의 텍스트 파일을 읽습니다 (폴더 경로를 주면 목록을 보여 줍니다).",
        args_schema=ReadFileArgs,
        func=read_file,
        timeout=10.0,
        effects="서버의 파일을 읽습니다",
    )
