"""Database URLs: which checkpointer each names, and a clear error for the rest."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dure.errors import DureError
from dure.persistence import (
    DatabaseUnavailableError,
    DatabaseURLError,
    check_database,
    kind,
    open_checkpointer,
    sqlite_path,
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("memory", "memory"),
        ("sqlite:///data/dure.sqlite", "sqlite"),
        ("sqlite:////var/lib/dure.sqlite", "sqlite"),
        ("postgresql://dure:pw@localhost:5432/dure", "postgres"),
        ("postgres://localhost/dure", "postgres"),
    ],
)
def test_kind(url: str, expected: str) -> None:
    assert kind(url) == expected


@pytest.mark.parametrize(
    "url",
    ["", "mysql://localhost/dure", "sqlite://relative.db", "MEMORY", "/tmp/dure.sqlite"],
)
def test_unsupported_url_is_a_user_error(url: str) -> None:
    with pytest.raises(DatabaseURLError) as info:
        kind(url)
    assert isinstance(info.value, DureError)
    message = str(info.value)
    assert message.startswith("지원하지 않는 데이터베이스 URL입니다")
    assert "\n" not in message and repr(url) in message


def test_sqlite_path_follows_the_slash_convention() -> None:
    assert sqlite_path("sqlite:///rel/dure.sqlite") == Path("rel/dure.sqlite")
    assert sqlite_path("sqlite:////abs/dure.sqlite") == Path("/abs/dure.sqlite")


async def test_open_checkpointer_refuses_a_bad_url() -> None:
    with pytest.raises(DatabaseURLError):
        async with open_checkpointer("redis://localhost"):
            pass


def test_check_database_creates_the_sqlite_directory(tmp_path: Path) -> None:
    path = tmp_path / "new" / "dir" / "dure.sqlite"
    check_database(f"sqlite:///{path}")
    assert path.parent.is_dir()


def test_check_database_fails_on_an_unreachable_postgres() -> None:
    # Port 1 on loopback: nothing listens there, the refusal is immediate.
    with pytest.raises(Exception, match="(?i)refused|connection"):
        check_database("postgresql://dure@127.0.0.1:1/dure", timeout=2)


@pytest.mark.parametrize(
    ("make_url", "where"),
    [
        (lambda tmp: f"sqlite:///{tmp}", "unable to open database file"),  # a directory
        (lambda tmp: f"sqlite:///{tmp / 'file.txt' / 'dure.sqlite'}", "File exists"),
        (lambda tmp: "postgresql://dure@127.0.0.1:1/dure?connect_timeout=2", "(postgres)"),
    ],
    ids=["sqlite-directory", "sqlite-under-a-file", "postgres-refused"],
)
async def test_a_database_that_cannot_open_is_one_clear_line(
    tmp_path: Path, make_url: object, where: str
) -> None:
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(DatabaseUnavailableError) as info:
        async with open_checkpointer(make_url(tmp_path)):  # type: ignore[operator]
            pytest.fail("opened")
    message = str(info.value)
    assert isinstance(info.value, DureError)
    assert message.startswith("데이터베이스를 열 수 없습니다") and where in message
    assert "\n" not in message


async def test_errors_inside_the_block_are_not_disguised(tmp_path: Path) -> None:
    with pytest.raises(sqlite3.OperationalError, match="mine"):
        async with open_checkpointer(f"sqlite:///{tmp_path / 'ok.sqlite'}"):
            raise sqlite3.OperationalError("mine")
