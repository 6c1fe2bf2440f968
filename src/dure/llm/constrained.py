"""Tool calls for a model without native tool calling, through JSON-schema-constrained decoding.

The reply is decoded under a JSON schema in which each tool's name is a constant and its
arguments follow that tool's parameter schema, so a small model can only pick a real tool with
well-formed arguments (measured: the name-as-enum schema picked 6 of 6 tools right, the
built-in `chatml-function-calling` format did not). With `tool_choice="auto"` one constrained
reply is either `{"tool_calls": [...]}` or `{"answer": "..."}`: the model decides in one call.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from langchain_core.messages import ToolCall

#: Calls in one reply; a small model at temperature 0 otherwise repeats a call until the limit.
MAX_TOOL_CALLS = 4

#: A repeated stretch this long (characters) inside one string of a tool reply is a loop: twice
#: a prose answer's span, since code in an argument may repeat a line.
TOOL_LOOP_SPAN = 96

Mode = Literal["auto", "forced"]


@dataclass(frozen=True)
class ToolPlan:
    """How one request uses its bound tools: `auto` (model decides) or `forced` to call."""

    tools: list[dict[str, Any]]
    mode: Mode
    only: str | None = None  # a forced choice of one tool by name
    parallel: bool = True

    @property
    def names(self) -> list[str]:
        """The tools the reply may call."""
        all_names = [t["function"]["name"] for t in self.tools]
        return [self.only] if self.only else all_names


def plan_tools(
    tools: list[dict[str, Any]] | None, tool_choice: Any, parallel: Any
) -> ToolPlan | None:
    """Normalise OpenAI-style `tools` / `tool_choice`; None when the reply is plain text."""
    if not tools or tool_choice == "none" or tool_choice is False:
        return None
    names = [t["function"]["name"] for t in tools]
    par = parallel is not False
    if tool_choice in (None, "auto"):
        return ToolPlan(tools, "auto", parallel=par)
    if tool_choice in ("any", "required", True):
        return ToolPlan(tools, "forced", parallel=par)
    name = (
        tool_choice.get("function", {}).get("name")
        if isinstance(tool_choice, dict)
        else tool_choice
    )
    if name not in names:
        raise ValueError(f"tool_choice names an unknown tool {name!r} (bound: {names})")
    return ToolPlan(tools, "forced", only=name, parallel=par)


def reply_schema(plan: ToolPlan) -> dict[str, Any]:
    """The JSON schema a reply must follow under `plan`."""
    defs: dict[str, Any] = {}
    items = []
    for i, tool in enumerate(plan.tools):
        fn = tool["function"]
        if fn["name"] not in plan.names:
            continue
        params = _hoist_defs(
            fn.get("parameters") or {"type": "object", "properties": {}}, f"t{i}_", defs
        )
        items.append(
            {
                "type": "object",
                "properties": {"name": {"const": fn["name"]}, "arguments": params},
                "required": ["name", "arguments"],
            }
        )
    calls = {
        "type": "array",
        "items": items[0] if len(items) == 1 else {"anyOf": items},
        "minItems": 1,
        "maxItems": MAX_TOOL_CALLS if plan.parallel else 1,
    }
    with_calls = {"type": "object", "properties": {"tool_calls": calls}, "required": ["tool_calls"]}
    schema: dict[str, Any] = with_calls
    if plan.mode == "auto":
        answer = {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
        }
        schema = {"anyOf": [with_calls, answer]}
    if defs:
        schema = {**schema, "$defs": defs}
    return schema


def _hoist_defs(schema: dict[str, Any], prefix: str, defs: dict[str, Any]) -> dict[str, Any]:
    """Move a tool schema's `$defs` to the root (renamed), since refs resolve from the root."""
    local = {**schema.get("$defs", {}), **schema.get("definitions", {})}
    if not local:
        return schema

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: rename(v) for k, v in node.items() if k not in ("$defs", "definitions")}
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
                out["$ref"] = f"#/$defs/{prefix}{ref.rsplit('/', 1)[1]}"
            return out
        if isinstance(node, list):
            return [rename(v) for v in node]
        return node

    for name, sub in local.items():
        defs[f"{prefix}{name}"] = rename(sub)
    return rename(schema)


def tools_prompt(plan: ToolPlan) -> str:
    """The Korean system-prompt text that tells the model its tools and the reply format."""
    lines = ["# 도구", "다음 도구를 쓸 수 있습니다 (이름: 설명 · 인자 JSON 스키마)."]
    for tool in plan.tools:
        fn = tool["function"]
        params = json.dumps(_strip_titles(fn.get("parameters") or {}), ensure_ascii=False)
        lines.append(f"- {fn['name']}: {fn.get('description', '').strip()} · 인자 {params}")
    call = '{"tool_calls": [{"name": "도구 이름", "arguments": {인자}}]}'
    if plan.mode == "auto":
        lines += [
            f"도구가 필요하면 {call} 형식의 JSON 하나만 출력하세요.",
            '도구 없이 답할 수 있으면 {"answer": "..."} 형식의 JSON 하나만 출력하고, answer에는 '
            "사용자에게 보여 줄 답을 완전한 문장으로 쓰세요.",
        ]
    elif plan.only:
        lines.append(
            f"반드시 `{plan.only}` 도구를 호출하세요. {call} 형식의 JSON 하나만 출력하세요."
        )
    else:
        lines.append(f"반드시 도구를 호출하세요. {call} 형식의 JSON 하나만 출력하세요.")
    return "\n".join(lines)


def schema_prompt(schema: dict[str, Any]) -> str:
    """The Korean system-prompt text for a structured (JSON-schema) reply."""
    spec = json.dumps(_strip_titles(schema), ensure_ascii=False)
    return f"# 출력 형식\n다음 JSON 스키마를 따르는 JSON 객체 하나만 출력하세요:\n{spec}"


def _strip_titles(node: Any) -> Any:
    # Titles repeat the property names: tokens a small context cannot spare.
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


class ToolReplyError(ValueError):
    """A constrained tool reply that is not complete JSON: the token limit cut it off, or its
    arguments looped. `usage` holds the tokens the failed call spent, when known."""

    def __init__(self, message: str, usage: dict[str, int] | None = None) -> None:
        super().__init__(message)
        self.usage = usage or {}


@dataclass
class ToolReply:
    """A parsed constrained reply: an answer, or tool calls (LangChain `ToolCall` dicts)."""

    answer: str | None
    tool_calls: list[ToolCall]


def parse_reply(text: str) -> ToolReply:
    """Parse a complete constrained reply."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ToolReplyError(f"incomplete tool reply: {text[-200:]!r}") from e
    if isinstance(data, dict) and isinstance(data.get("answer"), str):
        return ToolReply(answer=data["answer"], tool_calls=[])
    calls = data.get("tool_calls") if isinstance(data, dict) else None
    if not isinstance(calls, list):
        raise ToolReplyError(f"unexpected tool reply: {text[-200:]!r}")
    return ToolReply(
        answer=None,
        tool_calls=[
            {
                "name": c["name"],
                "args": c.get("arguments") or {},
                "id": new_call_id(),
                "type": "tool_call",
            }
            for c in calls
        ],
    )


def new_call_id() -> str:
    """A fresh tool-call id."""
    return f"call_{uuid.uuid4().hex[:12]}"


_ANSWER_HEAD = re.compile(r'\s*\{\s*"answer"\s*:\s*"')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class AnswerStream:
    """Decodes the `answer` string of a constrained reply while it is being generated."""

    def __init__(self) -> None:
        self.raw = ""
        self._pos: int | None = None  # where undecoded answer text starts in `raw`
        self._closed = False
        self.emitted = ""

    @property
    def started(self) -> bool:
        """Whether the reply is an answer (its opening has been generated)."""
        return self._pos is not None

    def feed(self, piece: str) -> str:
        """Add generated text; return the answer text that became complete."""
        self.raw += piece
        if self._closed:
            return ""
        if self._pos is None:
            m = _ANSWER_HEAD.match(self.raw)
            if m is None:
                return ""
            self._pos = m.end()
        text, self._pos, self._closed = decode_json_string(self.raw, self._pos)
        self.emitted += text
        return text


def decode_json_string(s: str, i: int) -> tuple[str, int, bool]:
    """Decode a JSON string body from `s[i:]` as far as it is complete.

    Returns (text, next position, whether the closing quote was reached). An escape cut off by
    the end of `s` is left for the next call.
    """
    out: list[str] = []
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            return "".join(out), i + 1, True
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            break
        if s[i + 1] != "u":
            out.append(_ESCAPES.get(s[i + 1], s[i + 1]))
            i += 2
            continue
        if i + 6 > n:
            break
        code = int(s[i + 2 : i + 6], 16)
        if 0xD800 <= code < 0xDC00:  # a surrogate pair needs its second half
            if i + 12 > n:
                break
            low = int(s[i + 8 : i + 12], 16) if s[i + 6 : i + 8] == "\\u" else 0
            if 0xDC00 <= low < 0xE000:
                out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                i += 12
                continue
        out.append(chr(code))
        i += 6
    return "".join(out), i, False
