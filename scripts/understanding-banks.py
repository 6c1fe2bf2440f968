"""Write the shipped example banks' e5 vectors and fitted classifiers beside them
(src/dure/data/understanding/*.npy, *.npz), and the nouns common to them (common-nouns-*.json).

    .venv/bin/python scripts/understanding-banks.py          # after editing a bank or a Tier2
    .venv/bin/python scripts/understanding-banks.py --check  # exit 1 when one is missing

A bank's vectors are named by its texts (`<bank>-<digest>.npy`), a fitted classifier by the
texts, labels and fitting settings (`<bank>-fit-<digest>.npz`), so an edited bank without new
files is embedded and fitted at first use instead; tests/unit/korean/test_banks.py fails then.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from dure.embeddings import shared_e5
from dure.korean import specific
from dure.korean.bank import Bank, bank_rows
from dure.korean.followup import FOLLOWUP_TIER2
from dure.korean.intent import EARLIER_TOOL_TIER2, INTENT_TIER2, TOOL_TIER2
from dure.korean.route import ROUTE_TIER2
from dure.korean.scope import SCOPE_TIER2
from dure.settings import Settings

TIER2 = (SCOPE_TIER2, ROUTE_TIER2, FOLLOWUP_TIER2, INTENT_TIER2, TOOL_TIER2, EARLIER_TOOL_TIER2)

DATA = Path(__file__).resolve().parents[1] / "src" / "dure" / "data" / "understanding"


def main() -> int:
    check = "--check" in sys.argv[1:]
    missing = []
    scratch = Path(tempfile.mkdtemp(prefix="dure-banks-"))
    for name in sorted({t.bank for t in TIER2}):
        specs = [t for t in TIER2 if t.bank == name]
        rows = bank_rows(name)
        texts = [str(r[specs[0].text]) for r in rows]
        vectors = Bank(name, texts, ["" for _ in rows], scratch).file_name
        if not (DATA / vectors).exists():
            missing.append(vectors)
            if not check:
                for old in DATA.glob(f"{name}-*.npy"):
                    old.unlink()
                np.save(DATA / vectors, shared_e5().embed_queries(texts).astype(np.float16))
        fits = {}
        for spec in specs:
            bank = Bank(name, texts, [str(r[spec.label]) for r in rows], scratch)
            fits[bank.model_file(spec.l2, spec.morphemes, spec.dense)] = (bank, spec)
        for fit, (bank, spec) in fits.items():
            if not (DATA / fit).exists():
                missing.append(fit)
                if not check:  # fitted from the shipped vectors, written to `scratch`
                    spec.classifier(bank)
                    shutil.copyfile(scratch / fit, DATA / fit)
        if not check:
            for old in DATA.glob(f"{name}-fit-*.npz"):
                if old.name not in fits:
                    old.unlink()
    common = _common_nouns(check)
    if common:
        missing.append(common)
    shutil.rmtree(scratch, ignore_errors=True)
    if missing:
        print(("missing: " if check else "written: ") + ", ".join(missing))
    return 1 if check and missing else 0


def _common_nouns(check: bool) -> str | None:
    """The common nouns' file (`dure.korean.specific`), counted when missing; its name if so."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=tmp)
        words = specific.common_nouns(settings)  # counted into `tmp` unless shipped
        made = list((Path(tmp) / "understanding").glob("common-nouns-*.json"))
        if not made:
            return None
        if not check:
            for old in DATA.glob("common-nouns-*.json"):
                old.unlink()
            shutil.copyfile(made[0], DATA / made[0].name)
        print(f"common nouns: {len(words)}")
        return made[0].name


if __name__ == "__main__":
    raise SystemExit(main())
