"""Chat models by role: `chat_model("fast")`, `chat_model("smart")`.

Providers live one per module (`openai_compat`, `local`); `dure.testing` has the scripted
double. Everything returned is a LangChain `BaseChatModel`, so LangGraph streams its tokens.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from dure.llm.cache import SQLiteLLMCache
from dure.llm.structured import (
    StructuredOutputError,
    agenerate_structured,
    generate_structured,
)
from dure.settings import Role, Settings, get_settings

__all__ = [
    "ModelSet",
    "StructuredOutputError",
    "agenerate_structured",
    "chat_model",
    "generate_structured",
]


@lru_cache(maxsize=4)
def _cache(path: Path) -> SQLiteLLMCache:
    return SQLiteLLMCache(path)


def chat_model(role: Role, settings: Settings | None = None) -> BaseChatModel:
    """The configured chat model for a role."""
    s = settings or get_settings()
    cache = _cache(s.data_dir / "llm_cache.sqlite") if s.enable_cache else None
    model: BaseChatModel
    if s.provider == "openai":
        from dure.llm.openai_compat import openai_chat_model

        model = openai_chat_model(s, role, cache=cache)
    else:
        from dure.llm.local import local_chat_model

        model = local_chat_model(s, role, cache=cache)
    # Callbacks see the role in each call's metadata (telemetry); the cache key does not.
    model.metadata = {**(model.metadata or {}), "dure_role": role}
    return model


class ModelSet:
    """The models an agent uses, by role; built lazily, or given (tests pass scripted ones)."""

    def __init__(
        self,
        settings: Settings | None = None,
        models: Mapping[Role, BaseChatModel] | BaseChatModel | None = None,
    ) -> None:
        self.settings = settings or get_settings()
        if isinstance(models, BaseChatModel):
            models = {"fast": models, "smart": models}
        self._models: dict[Role, BaseChatModel] = dict(models or {})

    def __call__(self, role: Role) -> BaseChatModel:
        if role not in self._models:
            self._models[role] = chat_model(role, self.settings)
        return self._models[role]
