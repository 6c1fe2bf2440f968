"""Fixtures for the contract agent's tests (helpers live in `contract_harness`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from contract_harness import CONTRACT, STANDARD, FakeLibrary, Harness, by_node
from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel


@pytest.fixture
def make_harness(settings: Settings) -> Callable[..., Harness]:
    """Build a harness: `make_harness(replies_by_node, standard=False, library=None, **opts)`."""

    def make(
        replies: dict[str, list[Any]] | None = None,
        *,
        standard: bool = False,
        library: FakeLibrary | None = None,
        contract: str = CONTRACT,
        **options: Any,
    ) -> Harness:
        lib = library or FakeLibrary()
        contract_id = lib.add_document(contract, kind="contract")
        standard_id = lib.add_document(STANDARD, kind="standard")
        model = ScriptedChatModel(by_node(replies or {}))
        opts: dict[str, Any] = {"library": lib, "contract_id": contract_id}
        if standard:
            opts["standard_id"] = standard_id
        opts.update(options)
        ctx = AgentContext(settings, ModelSet(settings, model), InMemorySaver(), opts)
        return Harness(settings, lib, model, ctx, contract_id, standard_id)

    return make
