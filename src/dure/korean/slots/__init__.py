"""The rule-based Korean slot parser (no LLM): `parse_slots(text, intent, now)`."""

from dure.korean.slots.parser import PARTIAL_DATE, ParseResult, parse_slots

__all__ = ["PARTIAL_DATE", "ParseResult", "parse_slots"]
