"""Dure (두레): Korean-first conversational agents on LangGraph."""

__version__ = "0.1.0"
