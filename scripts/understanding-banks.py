"""Write the shipped example banks' e5 vectors beside them (src/dure/data/understanding/*.npy).

    .venv/bin/python scripts/understanding-banks.py          # after editing a bank
    .venv/bin/python scripts/understanding-banks.py --check  # exit 1 when one is missing

A bank's vectors are named by its content (`<bank>-<digest>.npy`), so an edited bank without
new vectors is embedded at first use instead; tests/unit/korean/test_banks.py fails then.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

from dure.embeddings import shared_e5
from dure.korean.bank import Bank, bank_rows
from dure.korean.followup import FOLLOWUP_TIER2
from dure.korean.intent import INTENT_TIER2, TOOL_TIER2
from dure.korean.route import ROUTE_TIER2
from dure.korean.scope import SCOPE_TIER2

TIER2 = (SCOPE_TIER2, ROUTE_TIER2, FOLLOWUP_TIER2, INTENT_TIER2, TOOL_TIER2)

DATA = Path(__file__).resolve().parents[1] / "src" / "dure" / "data" / "understanding"


def main() -> int:
    check = "--check" in sys.argv[1:]
    missing = []
    for name in sorted({t.bank for t in TIER2}):
        spec = next(t for t in TIER2 if t.bank == name)
        rows = bank_rows(name)
        bank = Bank(
            name, [str(r[spec.text]) for r in rows], ["" for _ in rows], Path(tempfile.gettempdir())
        )
        target = DATA / bank.file_name
        if target.exists():
            continue
        missing.append(name)
        if not check:
            for old in DATA.glob(f"{name}-*.npy"):
                old.unlink()
            np.save(target, shared_e5().embed_queries(bank.texts).astype(np.float16))
    if missing:
        print(("missing: " if check else "written: ") + ", ".join(missing))
    return 1 if check and missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
