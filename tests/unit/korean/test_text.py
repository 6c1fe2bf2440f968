"""Reasons a model writes for the user are Korean by construction (schema pattern → grammar)."""

from __future__ import annotations

import json
import re

import pytest
from llama_cpp.llama_grammar import LlamaGrammar
from pydantic import ValidationError

from dure.agents.contract.nodes import Judgement
from dure.korean.text import korean_sentence


@pytest.mark.parametrize(
    "text",
    ["제5조의2에 따라 충분합니다.", "지체상금 비율(1천분의 1.5)이 없음", "", "30일 이내 - 제13조"],
)
def test_korean_sentences_fit(text):
    assert re.fullmatch(korean_sentence(80), text)


@pytest.mark.parametrize("text", ["The information is sufficient.", "충분 (enough)", "가" * 81])
def test_english_or_overlong_text_does_not(text):
    assert not re.fullmatch(korean_sentence(80), text)


def test_the_evaluator_schema_constrains_decoding_and_validation():
    schema = Judgement.model_json_schema()
    assert schema["properties"]["reasoning"]["pattern"] == korean_sentence(120)
    # llama.cpp turns the pattern into its decoding grammar: English cannot be generated.
    LlamaGrammar.from_json_schema(json.dumps(schema, ensure_ascii=False), verbose=False)
    with pytest.raises(ValidationError):
        Judgement.model_validate({"is_sufficient": True, "reasoning": "It matches exactly."})
