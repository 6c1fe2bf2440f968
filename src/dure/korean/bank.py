"""Tier 2: example banks shipped as data, and classifiers over their multilingual-e5 vectors.

A bank is JSON Lines in `dure/data/understanding/<name>.jsonl`; a decision says which field
is the text and which the label. Its vectors (e5, `query: ` prefix) are keyed by the bank's
content: the shipped banks' vectors ship beside them (`scripts/understanding-banks.py` writes
them); an edited bank is embedded once and kept under the data directory.

The classifier is a softmax regression on the bank; its input adds a bag of Kiwi morphemes to
the e5 vector (`Tier2.morphemes`, its weight): particles and endings ("도", "-면?") carry what a
sentence vector blurs. Fitting it takes seconds on a bank of thousands (the previous-turn bank:
≈ 5 s of Kiwi, 7 s of gradient descent), so the shipped banks' fitted weights ship too, keyed by
the bank's texts, labels and the fitting settings; an edited bank is fitted at first use and
kept under the data directory. It abstains when the winner's probability is below
`settings.understanding.min_confidence`. Measured on the dev and blind sets, it beat k nearest
neighbours (k = 3–15) on every decision.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from itertools import pairwise
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from dure.embeddings import shared_e5
from dure.retrieval.tokenize import tagged
from dure.settings import Settings

_T = TypeVar("_T")


@dataclass(frozen=True)
class Vote:
    """The winning label, its probability, and its lead over the next."""

    label: str
    share: float
    margin: float


def bank_rows(name: str) -> list[dict[str, Any]]:
    """The rows of the shipped bank `name`."""
    text = files("dure").joinpath("data", "understanding", f"{name}.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class Bank:
    """Examples with labels, and their vectors."""

    def __init__(self, name: str, texts: Sequence[str], labels: Sequence[str], cache: Path) -> None:
        self.name = name
        self.texts = list(texts)
        self.labels = np.array(labels)
        # Vectors depend on the texts alone (two decisions may label one bank differently).
        digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
        self.file_name = f"{name}-{digest}.npy"
        self._cache = cache
        self._vectors: np.ndarray | None = None
        self._logistic: dict[tuple[float, float, bool], Logistic] = {}
        self._lock = threading.Lock()

    @property
    def vectors(self) -> np.ndarray:
        """The examples' unit vectors (computed on first use, then read from the cache)."""
        with self._lock:
            return self._vectors_now()

    def _load(self) -> np.ndarray:
        return kept(
            self.file_name,
            self._cache,
            lambda f: np.load(f).astype(np.float32),
            lambda: shared_e5().embed_queries(self.texts),
            lambda vectors, f: np.save(f, vectors.astype(np.float16)),
        )

    def logistic(self, l2: float, morphemes: float = 0.0, dense: bool = True) -> Logistic:
        """A softmax regression on the bank's vectors (unless not `dense`), with the morpheme
        bag at weight `morphemes` when it is above 0 (read from the shipped or cached fit, else
        fitted once)."""
        with self._lock:
            key = (l2, morphemes, dense)
            if key not in self._logistic:
                self._logistic[key] = self._fitted(l2, morphemes, dense)
            return self._logistic[key]

    def model_file(self, l2: float, morphemes: float, dense: bool = True) -> str:
        """The name of the fitted classifier's file: it changes with the texts, the labels and
        every setting of the fit."""
        fit = [self.texts, self.labels.tolist(), l2, morphemes, Logistic.EPOCHS, Logistic.RATE]
        fit.append(MORPHEME_DIMS)
        if not dense:  # (a fit with the vectors keeps the name it had before this setting)
            fit.append("morphemes only")
        digest = hashlib.sha256(json.dumps(fit).encode()).hexdigest()[:16]
        return f"{self.name}-fit-{digest}.npz"

    def _fitted(self, l2: float, morphemes: float, dense: bool) -> Logistic:
        def fit() -> Logistic:
            parts = [self._vectors_now()] if dense else []
            if morphemes:
                bags = np.stack([morpheme_bag(t) for t in self.texts])
                parts.append(bags * np.float32(morphemes))
            return Logistic.fit(np.hstack(parts), self.labels, l2)

        name = self.model_file(l2, morphemes, dense)
        return kept(name, self._cache, Logistic.load, fit, Logistic.save)

    def _vectors_now(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = self._load()
        return self._vectors


def kept(
    name: str,
    cache: Path,
    read: Callable[[IO[bytes]], _T],
    make: Callable[[], _T],
    write: Callable[[_T, IO[bytes]], None],
) -> _T:
    """The file `name` as the package ships it, else as kept under `cache`, else `make()`, kept
    there for next time (a torn or foreign file is made again)."""
    shipped = files("dure").joinpath("data", "understanding", name)
    for source in (shipped, cache / name):
        if source.is_file():
            try:
                with source.open("rb") as f:
                    return read(f)
            except (OSError, ValueError, KeyError):
                pass
    value = make()
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f"{name}.tmp"
    with tmp.open("wb") as f:
        write(value, f)
    tmp.replace(cache / name)
    return value


class Logistic:
    """Multinomial logistic regression, fitted by full-batch gradient descent (deterministic)."""

    #: Measured on the intent bank (760 examples): 400 epochs left it underfitted (blind intent
    #: 0.863), 2,500 fit it (0.931) in about 0.4 s at first use, 5,000 gained nothing.
    EPOCHS = 2500
    RATE = 2.0

    def __init__(self, weights: np.ndarray, bias: np.ndarray, classes: list[str]) -> None:
        self.weights, self.bias, self.classes = weights, bias, classes

    @classmethod
    def fit(cls, x: np.ndarray, labels: np.ndarray, l2: float) -> Logistic:
        classes = sorted({str(v) for v in labels})
        x = x.astype(np.float32)
        y = np.eye(len(classes), dtype=np.float32)[[classes.index(str(v)) for v in labels]]
        w = np.zeros((x.shape[1], len(classes)), dtype=np.float32)
        b = np.zeros(len(classes), dtype=np.float32)
        rate, decay = np.float32(cls.RATE), np.float32(l2)
        for _ in range(cls.EPOCHS):
            z = x @ w + b
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - y) / np.float32(len(x))
            w -= rate * (x.T @ g + decay * w)
            b -= rate * g.sum(axis=0)
        return cls(w, b, classes)

    def save(self, f: IO[bytes]) -> None:
        """Write the weights, bias and classes (`load` reads them back)."""
        np.savez(f, weights=self.weights, bias=self.bias, classes=np.array(self.classes))

    @classmethod
    def load(cls, f: IO[bytes]) -> Logistic:
        """A classifier written by `save`."""
        with np.load(f) as data:
            classes = [str(c) for c in data["classes"]]
            return cls(data["weights"].astype(np.float32), data["bias"].astype(np.float32), classes)

    def predict(self, vector: np.ndarray, min_probability: float) -> Vote | None:
        """The most probable label, or None when its probability is below `min_probability`."""
        z = vector @ self.weights + self.bias
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        order = np.argsort(-p)
        best = float(p[order[0]])
        if best < min_probability:
            return None
        second = float(p[order[1]]) if len(order) > 1 else 0.0
        return Vote(self.classes[int(order[0])], best, best - second)


_banks: dict[tuple[str, str, str], Bank] = {}
_banks_lock = threading.Lock()


def shared_bank(name: str, settings: Settings, text_field: str, label_field: str) -> Bank:
    """The bank `name` labelled by `label_field`, loaded once per process and data directory."""
    key = (name, label_field, str(settings.data_dir))
    with _banks_lock:
        if key not in _banks:
            rows = bank_rows(name)
            _banks[key] = Bank(
                name,
                [str(r[text_field]) for r in rows],
                [str(r[label_field]) for r in rows],
                settings.data_dir / "understanding",
            )
        return _banks[key]


#: Width of the hashed morpheme bag.
MORPHEME_DIMS = 512


@lru_cache(maxsize=256)  # intent and needs_tool read the same message's bag
def morpheme_bag(text: str) -> np.ndarray:
    """Kiwi's morphemes of `text` (form/tag, neighbouring pairs, a length bucket) hashed into
    `MORPHEME_DIMS` binary features, scaled to unit length; do not modify it."""
    tokens = [f"{form}/{tag}" for form, tag in tagged(text)]
    features = [*tokens, *(f"{a}>{b}" for a, b in pairwise(tokens))]
    features.append(f"len{min(len(tokens), 12)}")
    bag = np.zeros(MORPHEME_DIMS, dtype=np.float32)
    for feature in features:
        bag[zlib.crc32(feature.encode()) % MORPHEME_DIMS] = 1.0
    return bag / np.float32(np.linalg.norm(bag))


#: A longer message is embedded as its head and tail (`EMBED_CHARS` // 2 characters each): e5's
#: cost grows with length (on one core ≈ 15 ms at 10 characters, 36 ms at 64, 60 ms at 96, more
#: for a pasted text), and what is asked sits at either end. Every decision's dev and blind
#: accuracy at 96: unchanged; at 64: one blind6 previous-turn case lost, one blind2 route case
#: gained; at 48: needs_tool lost 0.008–0.01.
EMBED_CHARS = 64


@lru_cache(maxsize=256)  # intent and needs_tool read the same message's vector
def embed_message(text: str) -> np.ndarray:
    """A message's unit vector (the same model and prefix as the banks); do not modify it."""
    if len(text) > EMBED_CHARS:
        half = EMBED_CHARS // 2
        text = f"{text[:half]} … {text[-half:]}"
    return shared_e5().embed_queries([text])[0]


@dataclass(frozen=True)
class Tier2:
    """One decision's generalising layer: which bank, which fields, how it is fitted.

    Chosen per decision by measurement on its dev and blind sets (`benchmarks/understanding.py`).
    It abstains when the winner's probability is below `settings.understanding.min_confidence`.
    """

    bank: str
    label: str
    l2: float = 1e-4
    #: The weight of the Kiwi morpheme bag beside the e5 vector (0: e5 alone).
    morphemes: float = 0.0
    text: str = "text"
    #: Whether the e5 vector is read (False: the morpheme bag alone, no embedding).
    dense: bool = True

    def load(self, settings: Settings) -> Bank:
        """The bank, its classifier trained."""
        bank = shared_bank(self.bank, settings, self.text, self.label)
        self.classifier(bank)
        return bank

    def classifier(self, bank: Bank) -> Logistic:
        """This decision's classifier over `bank` (read or fitted once)."""
        return bank.logistic(self.l2, self.morphemes, self.dense)

    def decide(self, settings: Settings, message: str) -> Vote | None:
        """The vote for `message`, or None (abstained)."""
        parts = [embed_message(message)] if self.dense else []
        if self.morphemes:
            parts.append(morpheme_bag(message) * np.float32(self.morphemes))
        vote = self.classifier(self.load(settings)).predict(np.concatenate(parts), 0.0)
        if vote is None or vote.share < settings.understanding.min_confidence:
            return None
        return vote

    async def adecide(self, settings: Settings, message: str) -> Vote | None:
        """`decide` off the event loop (the first use may embed a whole bank)."""
        return await asyncio.to_thread(self.decide, settings, message)
