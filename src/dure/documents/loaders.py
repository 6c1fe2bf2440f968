"""Read a file into text: .txt/.md (UTF-8, CP949/EUC-KR), .pdf (running headers and footers
out, wrapped lines joined: `pdftext`), .docx (`word`)/.hwp/.hwpx with tables.

Every failure is a `DocumentError` whose Korean message names the file; limits on file size,
page count and decompressed size stop oversized files and zip bombs before they cost memory.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import struct
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dure.documents.pdftext import tidy_pages
from dure.documents.tables import markdown_tables
from dure.documents.word import docx_text
from dure.errors import DureError

__all__ = [
    "SUPPORTED_SUFFIXES",
    "DocumentError",
    "Limits",
    "LoadedDocument",
    "content_hash",
    "load_document",
]

_log = logging.getLogger(__name__)


class DocumentError(DureError):
    """A file that cannot be read as a document; the message names the file."""


@dataclass(frozen=True)
class Limits:
    """How much a single file may cost. Defaults suit contracts and internal documents."""

    max_file_bytes: int = 50_000_000
    max_pages: int = 2_000
    max_decompressed_bytes: int = 200_000_000
    #: A zip member expanding more than this many times is treated as a bomb.
    max_compression_ratio: int = 200
    max_chars: int = 5_000_000


@dataclass
class LoadedDocument:
    """A file's text plus what is known about it (`name`, `format`, `encoding`, `pages`, `sha256`…)."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The file name (or the label given for text)."""
        return str(self.metadata.get("name", ""))


def content_hash(text: str) -> str:
    """SHA-256 of normalised text: the same document saved twice hashes the same."""
    norm = unicodedata.normalize("NFC", text).replace("\r\n", "\n").strip()
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def _clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = markdown_tables(text.replace("\x00", "").replace("\ufeff", ""))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# ---------------------------------------------------------------- formats


def _read_text(path: Path, data: bytes, limits: Limits) -> tuple[str, dict[str, Any]]:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8"), {"encoding": "utf-8-sig"}
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), {"encoding": "utf-16"}
    if b"\x00" in data[:4096]:
        raise DocumentError(f"{path.name}: 텍스트 파일이 아닙니다 (바이너리 데이터).")
    # Korean files are UTF-8 or CP949 (a superset of EUC-KR) in practice; strict decoding in
    # that order is exact, and a detector only breaks the tie for anything else.
    for enc in ("utf-8", "cp949"):
        try:
            return data.decode(enc), {"encoding": enc}
        except UnicodeDecodeError:
            continue
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise DocumentError(f"{path.name}: 문자 인코딩을 알아낼 수 없습니다 (UTF-8, CP949 아님).")
    return str(best), {"encoding": best.encoding}


def _check_zip(path: Path, limits: Limits, kind: str) -> None:
    """Refuse archives whose members would expand beyond the limits (zip bombs)."""
    try:
        with zipfile.ZipFile(path) as zf:
            total = 0
            for info in zf.infolist():
                total += info.file_size
                ratio = info.file_size / max(info.compress_size, 1)
                if info.file_size > 1_000_000 and ratio > limits.max_compression_ratio:
                    raise DocumentError(
                        f"{path.name}: 압축 비율이 비정상적으로 큽니다 ({info.filename}, {ratio:.0f}배) — "
                        "압축 폭탄으로 보고 읽지 않습니다."
                    )
            if total > limits.max_decompressed_bytes:
                raise DocumentError(
                    f"{path.name}: 압축을 풀면 {total / 1e6:.0f}MB로 한도"
                    f"({limits.max_decompressed_bytes / 1e6:.0f}MB)를 넘습니다."
                )
            bad = zf.testzip()
            if bad is not None:
                raise DocumentError(f"{path.name}: 손상된 {kind} 파일입니다 ({bad}).")
    except zipfile.BadZipFile as e:
        raise DocumentError(f"{path.name}: 손상되었거나 {kind} 형식이 아닙니다 ({e}).") from e


def _read_pdf(path: Path, data: bytes, limits: Limits) -> tuple[str, dict[str, Any]]:
    import io

    from pypdf import PdfReader
    from pypdf.errors import LimitReachedError, PyPdfError

    # pypdf logs recoverable structure problems; the caller sees a DocumentError or text.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    broken = (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError, RecursionError)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(f"{path.name}: 암호로 보호된 PDF입니다.")
        pages = len(reader.pages)
        if pages > limits.max_pages:
            raise DocumentError(
                f"{path.name}: {pages}쪽으로 한도({limits.max_pages}쪽)를 넘습니다."
            )
        parts: list[str] = []
        size = 0
        for page in reader.pages:
            text = page.extract_text() or ""
            size += len(text)
            if size > limits.max_chars:
                raise DocumentError(f"{path.name}: 추출한 글자 수가 한도를 넘습니다.")
            parts.append(text)
    except DocumentError:
        raise
    except LimitReachedError as e:  # a decompression bomb or an absurd object count
        raise DocumentError(f"{path.name}: PDF가 읽기 한도를 넘습니다 ({e}).") from e
    except broken as e:
        raise DocumentError(
            f"{path.name}: PDF를 읽을 수 없습니다 — 손상되었거나 잘린 파일입니다 ({e})."
        ) from e
    text = tidy_pages(parts)
    if not text.strip():
        raise DocumentError(
            f"{path.name}: PDF에서 글자를 찾지 못했습니다 (스캔 이미지일 수 있습니다)."
        )
    return text, {"pages": pages}


def _read_docx(path: Path, data: bytes, limits: Limits) -> tuple[str, dict[str, Any]]:
    _check_zip(path, limits, "DOCX")
    import docx

    try:
        document = docx.Document(str(path))
    except Exception as e:  # python-docx raises many types for broken packages
        raise DocumentError(
            f"{path.name}: DOCX를 읽을 수 없습니다 ({type(e).__name__}: {e})."
        ) from e
    text, tables = docx_text(document)
    return text, {"tables": tables}


def _via_hwpforge(open_doc: Callable[[Any], Any]) -> tuple[str, dict[str, Any]] | str:
    """hwpforge's Markdown and metadata for a document, or why it could not give them.

    hwpforge keeps every table row as a Markdown row, where extract-hwp puts each cell on a
    line of its own and loses which cells make a row. "lossy" mode leaves out style markup and
    escapes nothing, so "1." or "<별표>" stays as typed.
    """
    try:
        import hwpforge
    except ImportError:  # no wheel for this platform (e.g. musl); extract-hwp still reads text
        return "hwpforge 없음"
    try:
        doc = open_doc(hwpforge)
        text = doc.to_md(mode="lossy").text
        tables = int(doc.inspect()["tables"])
    except Exception as e:  # HwpForgeError, or a decoder bug: either way extract-hwp gets a turn
        return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if not text.strip():
        return "hwpforge: 빈 본문"
    return text, {"tables": tables, "reader": "hwpforge"}


def _hwp_text(
    path: Path, kind: str, open_doc: Callable[[Any], Any], fallback: Callable[[], str]
) -> tuple[str, dict[str, Any]]:
    """Text of an HWP or HWPX file: hwpforge's first, else extract-hwp's plain text.

    hwpforge is strict (one broken style reference fails the whole file) where extract-hwp
    reads on, so a file hwpforge refuses still yields its text, only without table rows.
    """
    got = _via_hwpforge(open_doc)
    if not isinstance(got, str):
        return got
    _log.info("%s: hwpforge가 읽지 못해 extract-hwp로 읽습니다 (%s)", path.name, got)
    from extract_hwp import HwpReadLimitError

    try:
        text = fallback()
    except HwpReadLimitError as e:
        raise DocumentError(f"{path.name}: {e}") from e
    if not text.strip():
        raise DocumentError(
            f"{path.name}: {kind}에서 본문을 읽지 못했습니다 — 손상·보호되었거나 빈 파일입니다 "
            f"({got})."
        )
    return text, {"reader": "extract-hwp"}


def _read_hwpx(path: Path, data: bytes, limits: Limits) -> tuple[str, dict[str, Any]]:
    _check_zip(path, limits, "HWPX")
    from extract_hwp import HwpReadLimitError, extract_text_from_hwpx, is_hwpx_password_protected

    try:
        if is_hwpx_password_protected(str(path)):
            raise DocumentError(f"{path.name}: 암호로 보호된 HWPX입니다.")
    except HwpReadLimitError as e:
        raise DocumentError(f"{path.name}: {e}") from e
    return _hwp_text(
        path,
        "HWPX",
        lambda hf: hf.Document.from_bytes(data),
        lambda: extract_text_from_hwpx(str(path)),
    )


#: HWP 5 streams a decoder inflates; BinData (images) is left packed by both readers.
_HWP5_TEXT_STREAMS = ("DocInfo", "BodyText", "ViewText")
#: FileHeader property bits (HWP 5.0 spec): compressed, password, and the ones that lock
#: the text away — distribution document (2), DRM (4), certificate encryption/DRM (8, 10).
_HWP5_COMPRESSED = 1 << 0
_HWP5_PASSWORD = 1 << 1
_HWP5_LOCKED = 1 << 2 | 1 << 4 | 1 << 8 | 1 << 10


def _inflated_size(raw: bytes, budget: int) -> int:
    """What `raw` (raw deflate, as HWP 5 stores streams) inflates to, counted in 1 MB steps
    and stopped past `budget`, so a bomb is measured without ever being held in memory."""
    inflater = zlib.decompressobj(-15)
    size = 0
    pending = raw
    try:
        while pending and size <= budget:
            size += len(inflater.decompress(pending, 1 << 20))
            pending = inflater.unconsumed_tail
    except zlib.error:
        pass  # a damaged stream is for the decoders to report; only its size matters here
    return size


def _check_hwp5(path: Path, data: bytes, limits: Limits) -> None:
    """Refuse an OLE file that is not HWP 5, is protected (password, distribution, DRM), or
    whose text streams would inflate beyond `max_decompressed_bytes` — before any decoder
    inflates them. hwpforge and extract-hwp each have fixed caps of their own; this applies
    the caller's `Limits`, as `_check_zip` does for DOCX and HWPX."""
    import olefile

    budget = limits.max_decompressed_bytes
    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            header = ole.openstream("FileHeader").read(256) if ole.exists("FileHeader") else b""
            if not header.startswith(b"HWP Document File"):
                raise DocumentError(
                    f"{path.name}: HWP 문서가 아니거나 손상되었습니다 (HWP FileHeader가 없음)."
                )
            flags = int.from_bytes(header[36:40], "little")
            if flags & _HWP5_PASSWORD:
                raise DocumentError(f"{path.name}: 암호로 보호된 HWP입니다.")
            if flags & _HWP5_LOCKED:  # BodyText then holds only a notice, never the text
                raise DocumentError(
                    f"{path.name}: 배포용·DRM으로 보호된 HWP라 본문을 읽을 수 없습니다."
                )
            total = 0
            for entry in ole.listdir():
                if entry[0] not in _HWP5_TEXT_STREAMS:
                    continue
                raw = ole.openstream(entry).read()
                total += (
                    _inflated_size(raw, budget - total) if flags & _HWP5_COMPRESSED else len(raw)
                )
                if total > budget:
                    raise DocumentError(
                        f"{path.name}: 압축을 풀면 한도({budget / 1e6:g}MB)를 넘습니다 "
                        f"({'/'.join(entry)})."
                    )
    except DocumentError:
        raise
    except (OSError, ValueError, IndexError, struct.error) as e:  # olefile on a broken container
        raise DocumentError(f"{path.name}: 손상된 HWP 파일입니다 (OLE 구조 오류: {e}).") from e


def _read_hwp(path: Path, data: bytes, limits: Limits) -> tuple[str, dict[str, Any]]:
    if data[:4] == b"PK\x03\x04":  # an .hwp that is really HWPX
        return _read_hwpx(path, data, limits)
    if not data.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise DocumentError(f"{path.name}: HWP 파일이 아닙니다 (OLE 형식이 아님).")
    _check_hwp5(path, data, limits)
    from extract_hwp import extract_text_from_hwp5

    return _hwp_text(
        path,
        "HWP",
        lambda hf: hf.convert_hwp5(data).document,
        lambda: extract_text_from_hwp5(str(path)),
    )


_Reader = Callable[[Path, bytes, Limits], tuple[str, dict[str, Any]]]
_READERS: dict[str, tuple[str, _Reader]] = {
    ".txt": ("text", _read_text),
    ".md": ("markdown", _read_text),
    ".markdown": ("markdown", _read_text),
    ".pdf": ("pdf", _read_pdf),
    ".docx": ("docx", _read_docx),
    ".hwpx": ("hwpx", _read_hwpx),
    ".hwp": ("hwp", _read_hwp),
}
#: File suffixes `load_document` reads.
SUPPORTED_SUFFIXES = tuple(_READERS)


def load_document(path: str | Path, limits: Limits | None = None) -> LoadedDocument:
    """Read `path` into text with metadata, or raise `DocumentError` naming the file.

    Metadata: `name`, `path`, `format`, `bytes`, `sha256` (of the text), and per format
    `encoding` (text), `pages` (PDF), `tables` (DOCX; HWP/HWPX when hwpforge read them),
    `reader` (HWP/HWPX: "hwpforge", or "extract-hwp" for files hwpforge cannot decode).
    """
    limits = limits or Limits()
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _READERS:
        raise DocumentError(
            f"{path.name}: 지원하지 않는 형식입니다 (지원: {', '.join(SUPPORTED_SUFFIXES)})."
        )
    if not path.is_file():
        raise DocumentError(f"{path}: 파일이 없습니다.")
    size = path.stat().st_size
    if size > limits.max_file_bytes:
        raise DocumentError(
            f"{path.name}: 파일이 너무 큽니다 ({size / 1e6:.1f}MB, 한도 {limits.max_file_bytes / 1e6:.0f}MB)."
        )
    if size == 0:
        raise DocumentError(f"{path.name}: 빈 파일입니다.")
    fmt, reader = _READERS[suffix]
    data = path.read_bytes()
    text, meta = reader(path, data, limits)
    text = _clean(text)
    if len(text) > limits.max_chars:
        raise DocumentError(f"{path.name}: 글자 수가 한도({limits.max_chars:,}자)를 넘습니다.")
    if not text:
        raise DocumentError(f"{path.name}: 내용이 없습니다.")
    meta = {
        "name": path.name,
        "path": str(path.resolve()),
        "format": fmt,
        "bytes": size,
        "sha256": content_hash(text),
        **meta,
    }
    return LoadedDocument(text=text, metadata=meta)
