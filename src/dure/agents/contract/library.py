"""Where the contract agent's documents live, and how a turn's files get indexed.

The library is `options["library"]` when given (tests, embedding applications), else the
search layer's collection `options["collection"]` (default `contracts`), shared by the
whole process (`dure.retrieval.shared_collection`). `index_documents` turns the `contract`/`standard` options (file paths,
or `contract_id`/`standard_id` for documents indexed before) into document ids; indexing is
idempotent by content hash, so naming the same file on every turn costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dure.agents.contract.tools import ContractLibrary
from dure.errors import DureError
from dure.retrieval.types import CONTRACTS_COLLECTION, Kind
from dure.settings import Settings


class ContractFileError(DureError, FileNotFoundError):
    """A contract or standard-contract file that cannot be read."""


def open_library(s: Settings, options: dict[str, Any]) -> ContractLibrary:
    """The library the agent reads (see the module docstring)."""
    given = options.get("library")
    if given is not None:
        return given
    from dure.retrieval import shared_collection

    return shared_collection(str(options.get("collection") or CONTRACTS_COLLECTION), s)


def _index_one(
    library: ContractLibrary, options: dict[str, Any], key: str, kind: Kind
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


def index_documents(
    library: ContractLibrary, options: dict[str, Any]
) -> tuple[str | None, str | None]:
    """(contract_id, standard_contract_id) for a run's options, indexing files on first use."""
    return (
        _index_one(library, options, "contract", "contract"),
        _index_one(library, options, "standard", "standard"),
    )
