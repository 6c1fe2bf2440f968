"""API keys: random, shown once, stored only as a SHA-256 hash.

A key is 256 random bits, so a plain SHA-256 is enough (no password stretching needed); the
hash is the owner of everything the key creates. `id` is a short public handle for listing
and revoking.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from dure.errors import DureError
from dure.server.database import Database

PREFIX = "dure_"


class KeyNotFoundError(DureError, LookupError):
    """No key with that id."""


@dataclass(frozen=True)
class KeyInfo:
    """A key as listed (never the key itself)."""

    id: str
    name: str
    created_at: float
    revoked_at: float | None


def key_hash(key: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(key.encode()).hexdigest()


async def create_key(db: Database, name: str) -> tuple[KeyInfo, str]:
    """A new key: its listing and the secret (shown once, never stored)."""
    secret = PREFIX + secrets.token_urlsafe(32)
    digest = key_hash(secret)
    info = KeyInfo(id=digest[:12], name=name, created_at=time.time(), revoked_at=None)
    await db.execute(
        "INSERT INTO dure_api_keys (hash, id, name, created_at) VALUES (?, ?, ?, ?)",
        (digest, info.id, name, info.created_at),
    )
    return info, secret


async def list_keys(db: Database) -> list[KeyInfo]:
    """Every key, oldest first."""
    rows = await db.fetchall(
        "SELECT id, name, created_at, revoked_at FROM dure_api_keys ORDER BY created_at"
    )
    return [KeyInfo(**r) for r in rows]


async def revoke_key(db: Database, key_id: str) -> None:
    """Revoke a key by id; its threads stay, unreachable."""
    changed = await db.execute(
        "UPDATE dure_api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
        (time.time(), key_id),
    )
    if not changed:
        raise KeyNotFoundError(f"사용 중인 키 {key_id!r}이(가) 없습니다 (`dure keys list`).")


async def owner_by_id(db: Database, key_id: str) -> str:
    """The owner (key hash) of the key listed as `key_id`."""
    row = await db.fetchone("SELECT hash FROM dure_api_keys WHERE id = ?", (key_id,))
    if row is None:
        raise KeyNotFoundError(f"키 {key_id!r}이(가) 없습니다 (`dure keys list`).")
    return row["hash"]


async def owner_of(db: Database, secret: str) -> str | None:
    """The owner (key hash) of a valid, unrevoked key; None otherwise."""
    digest = key_hash(secret)
    row = await db.fetchone(
        "SELECT hash FROM dure_api_keys WHERE hash = ? AND revoked_at IS NULL", (digest,)
    )
    return row["hash"] if row else None
