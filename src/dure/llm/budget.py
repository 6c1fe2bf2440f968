"""How many tokens a structured reply may take, read off its JSON schema: every structured call
is bounded by construction.

Each string needs `maxLength` (or an `enum`), each array `maxItems`, each open object
(`additionalProperties`) `maxProperties` and bounded values; otherwise the schema has no budget
and `agenerate_structured` refuses to send it without an explicit `max_tokens`. The count is an
upper bound with Korean in mind (one token a character, a little for keys and punctuation),
so a complete answer always fits and a runaway one is cut off and fails closed.
"""

from __future__ import annotations

import math
from typing import Any

#: Tokens of JSON around one value: quotes, colon, comma, and the key.
FIELD_OVERHEAD = 6
#: Tokens of the outermost braces and some slack.
REPLY_OVERHEAD = 8
_SCALARS = {"integer": 8, "number": 12, "boolean": 2, "null": 2}


class UnboundedSchemaError(TypeError):
    """A schema with a part no length bounds (a programming error, found by any call)."""


def token_budget(schema: dict[str, Any]) -> int:
    """The most tokens a reply valid for `schema` (a pydantic JSON schema) can take."""
    return REPLY_OVERHEAD + _value(schema, schema.get("$defs", {}), "")


def _value(node: dict[str, Any], defs: dict[str, Any], where: str) -> int:
    if "$ref" in node:
        return _value(defs[node["$ref"].rsplit("/", 1)[-1]], defs, where)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return max(_value(option, defs, where) for option in node[key])
    if "enum" in node or "const" in node:
        options = node.get("enum", [node.get("const")])
        return 2 + max(len(str(o)) for o in options)
    kind = node.get("type")
    if kind == "string":
        if "maxLength" not in node:
            raise UnboundedSchemaError(f"{where or '응답'}: 문자열에 maxLength가 없습니다")
        return 2 + int(node["maxLength"])
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        if "maxItems" not in node:
            raise UnboundedSchemaError(f"{where or '응답'}: 목록에 maxItems가 없습니다")
        return 2 + int(node["maxItems"]) * (2 + _value(node.get("items", {}), defs, where))
    if kind == "object":
        total = 2
        for name, prop in node.get("properties", {}).items():
            total += FIELD_OVERHEAD + math.ceil(len(name) / 3) + _value(prop, defs, name)
        extra = node.get("additionalProperties", False)
        if extra:
            if "maxProperties" not in node or not isinstance(extra, dict):
                raise UnboundedSchemaError(
                    f"{where or '응답'}: 열린 객체에 maxProperties가 없습니다"
                )
            each = FIELD_OVERHEAD + 12 + _value(extra, defs, where)
            total += int(node["maxProperties"]) * each
        return total
    raise UnboundedSchemaError(f"{where or '응답'}: 길이를 정할 수 없는 값입니다 ({node})")
