"""How a decision about the user's words was made: the tier that settled it."""

from __future__ import annotations

from typing import Literal

#: `rule`: a near-certain rule; `embedding`: the example banks (multilingual-e5);
#: `llm`: one bounded model call.
DecidedBy = Literal["rule", "embedding", "llm"]

#: How a decision was made, as the user sees it in a `thinking` event.
DECIDED_BY_LABEL: dict[DecidedBy, str] = {"rule": "규칙", "embedding": "예문 유사도", "llm": "LLM"}
