"""Prompt-lookup decoding (`LlamaPromptLookupDecoding`) for answers that quote their sources.

The same llama.cpp model file loaded twice, without and with a prompt-lookup draft model;
greedy decoding of contract answers whose prompts hold the articles they quote. Generated
tokens per second (prompt evaluation excluded: each prompt is evaluated once before the
timed generation), p50 over the prompts, in turn so both see the same machine load; and
whether the two produce the same text (they must: drafting only proposes tokens).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from dure.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
MAX_TOKENS = 160
QUESTIONS = [
    "제15조를 그대로 인용해서 보여줘.",
    "지체상금은 얼마야? 조항 문장을 인용해서 답해줘.",
    "검수 절차를 조항 문장 그대로 알려줘.",
    "하도급은 어떤 조건에서 가능한지 원문을 인용해서 설명해줘.",
]


def _prompt(question: str) -> str:
    contract = (ROOT / "examples" / "contracts" / "software_dev.md").read_text(encoding="utf-8")
    articles = contract[contract.index("제11조(") : contract.index("제16조(")]
    return (
        "<|im_start|>system\n당신은 계약서 상담원입니다. 아래 조항만 근거로, 조항 문장을 "
        "그대로 인용해 답하세요.<|im_end|>\n"
        f"<|im_start|>user\n{articles}\n\n질문: {question}<|im_end|>\n<|im_start|>assistant\n"
    )


def _load(draft: bool) -> Any:
    from llama_cpp import Llama
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    s = get_settings()
    return Llama(
        model_path=str(s.model_path),
        n_ctx=4096,
        n_threads=s.local.n_threads,
        verbose=False,
        draft_model=LlamaPromptLookupDecoding(num_pred_tokens=10) if draft else None,
        logits_all=draft,  # llama-cpp-python verifies drafts against every position's logits
    )


def _generate(llama: Any, prompt: str) -> tuple[float, int, str]:
    llama.create_completion(prompt, max_tokens=1, temperature=0.0)  # prompt evaluated, cached
    started = time.perf_counter()
    out = llama.create_completion(prompt, max_tokens=MAX_TOKENS, temperature=0.0)
    seconds = time.perf_counter() - started
    return seconds, out["usage"]["completion_tokens"], out["choices"][0]["text"]


def run() -> dict[str, Any]:
    """Both models on every prompt, in turn; prints and returns tokens/s and the ratio."""
    models = {"plain": _load(False), "lookup": _load(True)}
    rates: dict[str, list[float]] = {name: [] for name in models}
    same = 0
    for question in QUESTIONS:
        prompt = _prompt(question)
        texts = {}
        for name, llama in models.items():
            seconds, tokens, texts[name] = _generate(llama, prompt)
            rates[name].append(tokens / seconds)
        same += texts["plain"] == texts["lookup"]
    rows = {name: round(statistics.median(r), 1) for name, r in rates.items()}
    result = {
        "tokens_per_s_p50": rows,
        "speedup": round(rows["lookup"] / rows["plain"], 2),
        "same_text": f"{same}/{len(QUESTIONS)}",
    }
    print(f"prompt lookup decoding, {MAX_TOKENS} tokens greedy, {len(QUESTIONS)} quoting answers")
    print(f"  plain  {rows['plain']:6.1f} tok/s")
    print(
        f"  lookup {rows['lookup']:6.1f} tok/s  ×{result['speedup']}  same text {result['same_text']}"
    )
    return result


if __name__ == "__main__":
    run()
