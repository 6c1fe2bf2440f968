"""Batch commands over JSON Lines: one object a line in, one a line out, bad lines reported.

`dure understand …`, `dure slots parse` and `dure search --queries` read a file (or `-` for
standard input) a line at a time; a line that is not a JSON object, or that the handler
rejects with a `DureError` or a missing field, comes out as `{"id", "error"}` and the rest go on.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dure.errors import DureError

Row = dict[str, Any]


def read_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of every non-blank line of `path` (`-`: standard input)."""
    if str(path) == "-":
        lines = sys.stdin.read().splitlines()
    else:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise DureError(f"입력 파일을 열 수 없습니다: {path} ({e.strerror})") from e
        except UnicodeDecodeError as e:
            raise DureError(f"입력 파일이 UTF-8 텍스트가 아닙니다: {path}") from e
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield number, line


def each_row(path: Path, handle: Callable[[Row], Row]) -> Iterator[Row]:
    """`{"id", **handle(row)}` for every line, or `{"id", "error"}` for a line that fails."""
    for number, line in read_lines(path):
        row: Any = None
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise TypeError("JSON 객체가 아닙니다")
            yield {"id": row.get("id", number), **handle(row)}
        except json.JSONDecodeError as e:
            yield {"id": number, "error": f"잘못된 줄 {number}: JSON이 아닙니다 ({e.msg})"}
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            rid = row.get("id", number) if isinstance(row, dict) else number
            yield {"id": rid, "error": f"잘못된 줄 {number}: {e}"}
        except DureError as e:
            rid = row.get("id", number) if isinstance(row, dict) else number
            yield {"id": rid, "error": str(e)}


def print_json(row: Row) -> None:
    """One JSON object on one line, flushed (so a pipe sees it at once)."""
    print(json.dumps(row, ensure_ascii=False), flush=True)
