"""The rule-based Korean slot parser (no LLM): `parse_slots(text, intent, now)`."""

from dure.agents.tasks.slots.parser import PARTIAL_DATE, ParseResult, parse_slots

__all__ = ["PARTIAL_DATE", "ParseResult", "parse_slots"]
