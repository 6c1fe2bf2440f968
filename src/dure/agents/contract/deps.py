"""What the contract agent's nodes work with: settings, models by role, the document library."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dure.agent import AgentContext
from dure.agents.contract.library import index_documents, open_library
from dure.agents.contract.state import ContractState
from dure.agents.contract.tools import ContractLibrary, build_registry
from dure.documents.contract import Contract
from dure.embeddings import Embedder, EmbeddingError, get_embedder
from dure.llm import ModelSet
from dure.settings import Settings
from dure.tools import ToolRegistry


@dataclass
class Deps:
    """Built once per graph; `options` are the caller's (`contract`, `standard`, their ids)."""

    settings: Settings
    models: ModelSet
    library: ContractLibrary
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        """The library named by the context's options (see `library.open_library`)."""
        return cls(ctx.settings, ctx.models, open_library(ctx.settings, ctx.options), ctx.options)

    def document_ids(self) -> tuple[str | None, str | None]:
        """(contract_id, standard_contract_id) of this run, indexing given files on first use."""
        return index_documents(self.library, self.options)

    def registry(self, state: ContractState) -> ToolRegistry:
        """The four tools bound to this thread's contract and standard contract."""
        return build_registry(
            self.library,
            state.get("contract_id"),
            state.get("standard_contract_id"),
            timeout=self.settings.contract.tool_timeout,
        )

    def contract(self, doc_id: str | None) -> Contract | None:
        """The parsed contract, or None when it cannot be loaded (the tools then report why)."""
        if not doc_id:
            return None
        try:
            return self.library.get_contract(doc_id)
        except Exception:
            return None

    def embedder(self) -> Embedder | None:
        """The process's embedder (its vector cache holds the contract's paragraphs), or None
        when it cannot be loaded."""
        try:
            return get_embedder(self.settings)
        except EmbeddingError:
            return None
