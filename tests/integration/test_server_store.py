"""The server tables (SQLite in the data directory): what LangGraph clients keep on a thread."""

from __future__ import annotations

import pytest

from dure.server.database import IntegrityError, open_storage
from dure.server.store import Store
from dure.settings import Settings


async def test_a_thread_keeps_its_metadata_and_is_bound_on_first_use(settings: Settings) -> None:
    async with open_storage(settings.effective_database_url) as storage:
        store = Store(storage.db)
        made = await store.create_thread("a", "", "", {}, metadata={"팀": "두레"}, thread_id="t-1")
        found = await store.thread("a", "t-1")
        assert found is not None and found.metadata == {"팀": "두레"} and found.agent == ""
        assert await store.bind_agent(made, "assistant", {"collection": "docs"})
        assert not await store.bind_agent(made, "tasks", {})  # bound once
        bound = await store.thread("a", "t-1")
        assert bound is not None and (bound.agent, bound.options) == (
            "assistant",
            {"collection": "docs"},
        )
        with pytest.raises(IntegrityError):  # another key cannot take the id
            await store.create_thread("b", "", "", {}, thread_id="t-1")
        assert await store.turn("t-1", "none") is None
