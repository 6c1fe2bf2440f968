"""Where the contract agent's documents live, and how a turn's files get indexed.

The library is `ctx.options["library"]` when given (tests, embedding applications), else the
search layer's collection `ctx.options["collection"]` (default `contracts`), opened once per
process and settings. `index_documents` turns the `contract`/`standard` options (file paths,
or `contract_id`/`standard_id` for documents indexed before) into document ids; indexing is
idempotent by content hash, so naming the same file on every turn costs nothing.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from dure.agent import AgentContext
from dure.agents.contract.tools import ContractLibrary
from dure.errors import DureError

DEFAULT_COLLECTION = "contracts"

_open: dict[tuple[str, ...], ContractLibrary] = {}
_lock = threading.Lock()


class ContractFileError(DureError, FileNotFoundError):
    """A contract or standard-contract file that cannot be read."""


def open_library(ctx: AgentContext) -> ContractLibrary:
    """The library the agent reads (see the module docstring)."""
    given = ctx.options.get("library")
    if given is not None:
        return given
    from dure.retrieval import open_collection

    s = ctx.settings
    name = str(ctx.options.get("collection") or DEFAULT_COLLECTION)
    key = (name, str(s.data_dir), s.search.model_dump_json(), s.effective_database_url)
    with _lock:
        if key not in _open:
            _open[key] = open_collection(name, s)
        return _open[key]


def _index_one(
    library: ContractLibrary, options: dict[str, Any], key: str, kind: str
) -> str | None:
    given_id = options.get(f"{key}_id")
    if given_id:
        return str(given_id)
    value = options.get(key)
    if value is None:
        return None
    path = Path(value).expanduser()
    what = "계약서" if kind == "contract" else "표준계약서"
    if not path.is_file():
        raise ContractFileError(f"{what} 파일을 찾을 수 없습니다: {path}")
    return library.add_document(path, kind=kind)


def index_documents(ctx: AgentContext) -> tuple[str | None, str | None]:
    """(contract_id, standard_contract_id) for this turn's options, indexing files on first use."""
    library = open_library(ctx)
    return (
        _index_one(library, ctx.options, "contract", "contract"),
        _index_one(library, ctx.options, "standard", "standard"),
    )
