"""The nouns that name what a question is about, and whether some text holds one.

A noun is *common* when `COMMON_DF` or more of the example banks' messages (thousands of
everyday messages, `dure.korean.bank`) use it: 회사, 신청, 계산, 가격 name no particular
subject. The others are *specific*: "반품", "배터리", "서비스센터". Nouns written together are
read as one ("셀프도배", "반품비"). The common nouns are counted once per bank content and kept
beside the banks (`scripts/understanding-banks.py` writes them).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import IO

from dure.korean.bank import bank_rows, kept
from dure.retrieval.tokenize import spans
from dure.settings import Settings

#: The banks whose messages are counted, and how many of them make a noun common. Chosen on the
#: document dev set: at 10, no general question of the route dev set found its way to the
#: documents through a common word ("회사 끝나고 한잔할 만한 을지로 술집 추천" by 회사). Only the
#: everyday-chat banks: the route and scope banks are written around what documents and
#: contracts are about, so their nouns ("세탁기", "헬스장", "식대") are the specific ones. Counting
#: them too, the route and scope banks' growth made such nouns common (256 → 384): documents_dev
#: questions that never reached their documents with the document check 11 → 13 of 80.
BANKS = ("followup", "intent")
COMMON_DF = 10

_NOUNS = ("NNG", "NNP", "SL")
_lock = threading.Lock()
_common: dict[str, frozenset[str]] = {}


def nouns(text: str) -> list[str]:
    """The nouns of `text` of two characters or more, nouns written together joined, lower-cased.
    A code of letters and digits is one noun ("E06", "P2": Kiwi reads a letter, then a number)."""
    found: list[str] = []
    run: list[str] = []
    end, last = -1, ""
    for form, tag, start, stop in spans(text):
        if run and start == end and (tag in _NOUNS or (tag == "SN" and last == "SL")):
            run.append(form)
        else:
            found.append("".join(run))
            run = [form] if tag in _NOUNS else []
        end, last = stop, tag
    found.append("".join(run))
    return [n.lower() for n in found if len(n) >= 2]


def common_nouns(settings: Settings) -> frozenset[str]:
    """Nouns `COMMON_DF` or more bank messages use (read from the shipped or cached count)."""
    name, texts = _banks_counted()
    with _lock:
        if name not in _common:
            cache = settings.data_dir / "understanding"
            _common[name] = kept(name, cache, _read, lambda: _count(texts), _write)
        return _common[name]


@lru_cache(maxsize=1)
def _banks_counted() -> tuple[str, tuple[str, ...]]:
    """The common nouns' file name (it changes with the banks' messages) and those messages:
    read once a process, not on every route check."""
    texts = tuple(str(r["text"]) for name in BANKS for r in bank_rows(name))
    digest = hashlib.sha256(json.dumps([texts, COMMON_DF]).encode()).hexdigest()[:16]
    return f"common-nouns-{digest}.json", texts


def _count(texts: Iterable[str]) -> frozenset[str]:
    df = Counter(n for t in texts for n in set(nouns(t)))
    return frozenset(n for n, count in df.items() if count >= COMMON_DF)


def _read(f: IO[bytes]) -> frozenset[str]:
    return frozenset(json.loads(f.read().decode("utf-8")))


def _write(words: frozenset[str], f: IO[bytes]) -> None:
    f.write(json.dumps(sorted(words), ensure_ascii=False).encode("utf-8"))


def held_noun(question: str, texts: Sequence[str], settings: Settings) -> str | None:
    """A specific noun of `question` that `texts` hold (spaces aside), or None."""
    held = re.sub(r"\s", "", " ".join(texts)).lower()
    common = common_nouns(settings)
    return next((n for n in nouns(question) if n not in common and n in held), None)
