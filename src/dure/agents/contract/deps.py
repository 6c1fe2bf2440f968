"""What the contract agent's nodes are built with: settings, models by role, the library."""

from __future__ import annotations

from dataclasses import dataclass

from dure.agents.contract.scope import ScopeValidator
from dure.agents.contract.state import ContractState
from dure.agents.contract.tools import ContractLibrary, build_registry
from dure.documents.contract import Contract
from dure.llm import ModelSet
from dure.settings import Settings
from dure.tools import ToolRegistry


@dataclass
class Deps:
    """What the nodes are built with: settings, models by role, the document library."""

    settings: Settings
    models: ModelSet
    library: ContractLibrary

    def __post_init__(self) -> None:
        self.scope = ScopeValidator(lambda: self.models("fast"))

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
