"""Unit tests of the chat-model providers."""
