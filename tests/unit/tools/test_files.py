"""`read_file`: confined to its root — no `../`, no absolute path outside, no symlink out."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.settings import Settings
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.files import files_root, read_file_tool


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    (root / "notes").mkdir(parents=True)
    (root / "memo.txt").write_text("회의는 3월 15일 오후 2시입니다.", encoding="utf-8")
    (root / "notes" / "todo.md").write_text("- 예산 1억원 확인", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    return root


def _registry(settings: Settings, root: Path, **cfg: object) -> ToolRegistry:
    assistant = settings.assistant.model_copy(update={"files_root": root, **cfg})
    return ToolRegistry([read_file_tool(settings.model_copy(update={"assistant": assistant}))])


async def _read(settings: Settings, root: Path, path: str, **cfg: object) -> ToolResult:
    return await _registry(settings, root, **cfg).run("read_file", {"path": path})


async def test_reads_inside_the_root(settings: Settings, root: Path) -> None:
    assert (await _read(settings, root, "memo.txt")).content == "회의는 3월 15일 오후 2시입니다."
    assert (await _read(settings, root, "notes/todo.md")).content == "- 예산 1억원 확인"
    assert (await _read(settings, root, "notes/../memo.txt")).ok  # `..` that stays inside
    assert (await _read(settings, root, str(root / "memo.txt"))).ok  # absolute inside


@pytest.mark.parametrize(
    "path", ["../secret.txt", "notes/../../secret.txt", "../../../../../../etc/passwd"]
)
async def test_refuses_dot_dot_escapes(settings: Settings, root: Path, path: str) -> None:
    result = await _read(settings, root, path)
    assert not result.ok
    assert "허용된 폴더 밖" in result.content
    assert "SECRET" not in result.content


async def test_refuses_absolute_paths_outside(settings: Settings, root: Path) -> None:
    for path in (str(root.parent / "secret.txt"), "/etc/passwd", "~/.bashrc"):
        result = await _read(settings, root, path)
        assert not result.ok and "허용된 폴더 밖" in result.content


async def test_refuses_symlinks_pointing_out(settings: Settings, root: Path) -> None:
    (root / "link.txt").symlink_to(root.parent / "secret.txt")
    (root / "linkdir").symlink_to(root.parent)
    for path in ("link.txt", "linkdir/secret.txt"):
        result = await _read(settings, root, path)
        assert not result.ok and "허용된 폴더 밖" in result.content
        assert "SECRET" not in result.content


async def test_a_symlink_inside_the_root_is_fine(settings: Settings, root: Path) -> None:
    (root / "alias.txt").symlink_to(root / "memo.txt")
    assert (await _read(settings, root, "alias.txt")).ok


async def test_size_limit_reads_only_the_head(settings: Settings, root: Path) -> None:
    (root / "big.txt").write_text("가" * 1000, encoding="utf-8")  # 3000 bytes
    result = await _read(settings, root, "big.txt", max_file_bytes=100)
    assert result.ok
    head, note = result.content.split("\n", 1)
    assert head == "가" * 33  # 99 bytes: the split character is dropped, not garbled
    assert "100바이트만" in note


async def test_cp949_and_binary(settings: Settings, root: Path) -> None:
    (root / "old.txt").write_bytes("계약 금액 5천만 원".encode("cp949"))
    (root / "image.png").write_bytes(b"\x89PNG\x00\x00binary")
    assert (await _read(settings, root, "old.txt")).content == "계약 금액 5천만 원"
    binary = await _read(settings, root, "image.png")
    assert not binary.ok and "텍스트 파일이 아니어서" in binary.content


async def test_missing_files_and_directories(settings: Settings, root: Path) -> None:
    missing = await _read(settings, root, "nope.txt")
    assert not missing.ok and "찾을 수 없습니다" in missing.content
    listing = await _read(settings, root, "notes")
    assert listing.ok and "todo.md" in listing.content
    empty = await _read(settings, root, "  ")
    assert not empty.ok


async def test_missing_root_is_explained(settings: Settings, tmp_path: Path) -> None:
    result = await _read(settings, tmp_path / "absent", "memo.txt")
    assert not result.ok and "읽을 수 있는 폴더가 없습니다" in result.content


def test_default_root_is_in_the_data_dir(settings: Settings) -> None:
    assert files_root(settings) == settings.data_dir / "files"
