"""`dure slots parse`: the rule-based slot parser from the command line (no LLM, no model)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from dure.agents.tasks.detect import rule_intent, slot_intent
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import get_intent
from dure.agents.tasks.state import ConversationState
from dure.batch import each_row, print_json
from dure.errors import DureError
from dure.korean.slots.parser import parse_slots
from dure.korean.time import SEOUL, as_seoul

slots_app = typer.Typer(help="규칙 기반 한국어 슬롯 파서", no_args_is_help=True)
out = Console(highlight=False, soft_wrap=True)


def _now(text: str | None) -> datetime:
    if not text:
        return datetime.now(SEOUL)
    try:
        return as_seoul(datetime.fromisoformat(text))
    except ValueError as e:
        raise DureError(
            f"--now/now 값이 ISO 날짜·시간이 아닙니다: {text!r} (예: 2025-03-07T11:20)"
        ) from e


def _local(value: Any) -> Any:
    """A stored date-time as the CLI shows it: local `YYYY-MM-DDTHH:MM`."""
    return as_seoul(datetime.fromisoformat(value)).strftime("%Y-%m-%dT%H:%M")


def parse_one(
    utterance: str, intent: str | None, now: datetime, previous: Any = None
) -> dict[str, Any]:
    """`{"intent", "slots", "canonical"}` (+ `"invalid"` with reasons when a value is rejected).

    `previous` (slots already filled, as this returns them) is the state the utterance
    changes: a correction ("3명 말고 4명") replaces, the rest is kept.
    """
    name = intent or rule_intent(utterance) or slot_intent(utterance, now)
    if name is None:
        raise DureError("어떤 작업인지 규칙으로 판단할 수 없습니다. --intent로 지정해 주세요.")
    schema = get_intent(name)
    if previous is not None and not isinstance(previous, dict):
        raise DureError("previous는 슬롯 이름 → 값의 객체여야 합니다.")
    conv = ConversationState(intent=schema.name, slots=dict(previous or {}))
    for spec in schema.slots:
        if spec.type == "datetime" and conv.slots.get(spec.name):
            conv.slots[spec.name] = as_seoul(
                datetime.fromisoformat(conv.slots[spec.name])
            ).isoformat()
    apply_parse(conv, parse_slots(utterance, schema, now), schema, now)
    names = {spec.name for spec in schema.slots}
    slots = {k: v for k, v in conv.slots.items() if k in names}
    canonical = {
        spec.name: spec.canonical_value(slots[spec.name])
        for spec in schema.slots
        if spec.canonical and spec.name in slots
    }
    result: dict[str, Any] = {"intent": schema.name, "slots": slots, "canonical": canonical}
    invalid = ConversationState(intent=schema.name, slots=slots).invalid_slots(now)
    if invalid:
        result["invalid"] = invalid
    for spec in schema.slots:
        if spec.type == "datetime" and spec.name in slots:
            slots[spec.name] = _local(slots[spec.name])
    return result


def _lines(path: Path, intent: str | None, now: str | None) -> None:
    for row in each_row(
        path,
        lambda r: parse_one(
            str(r["utterance"]),
            intent or r.get("intent"),
            _now(r.get("now") or now),
            r.get("previous"),
        ),
    ):
        print_json(row)


@slots_app.command("parse")
def parse_command(
    utterance: Annotated[str | None, typer.Argument(help="분석할 문장")] = None,
    intent: Annotated[
        str | None, typer.Option("--intent", "-i", help="작업 이름 (예: lunch_recommendation)")
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", help="기준 시각 ISO (기본: 지금, Asia/Seoul)")
    ] = None,
    input_file: Annotated[
        Path | None,
        typer.Option("--input", help='JSONL: {"id","utterance","now","previous"?} 한 줄에 하나'),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON으로 출력")] = False,
) -> None:
    """문장에서 슬롯(장소·시간·인원·음식·예산…)을 뽑습니다. LLM을 쓰지 않습니다."""
    if input_file is not None:
        _lines(input_file, intent, now)
        return
    if not utterance:
        raise DureError("분석할 문장을 주거나 --input FILE.jsonl을 지정해 주세요.")
    result = parse_one(utterance, intent, _now(now))
    if as_json:
        print(json.dumps(result, ensure_ascii=False))
        return
    schema = get_intent(result["intent"])
    table = Table(title=f"{schema.title} ({schema.name})")
    for column in ("슬롯", "값", "상태"):
        table.add_column(column)
    for key, value in result["slots"].items():
        spec = schema.spec(key)
        shown = spec.display(value) if spec else str(value)
        table.add_row(spec.label if spec else key, shown, result.get("invalid", {}).get(key, "✓"))
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add `dure slots …` to the main CLI."""
    app.add_typer(slots_app, name="slots")
