"""Real .hwp (HWP 5, an OLE compound file) and .hwpx files with a table, written at test time
by real writers — hwp-converter-ai writes HWP 5, hwpforge writes HWPX — and read back through
`load_document` and `parse_contract`; then damaged, protected and oversized .hwp files."""

from __future__ import annotations

import struct
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from dure.documents import DocumentError, Limits, load_document, parse_contract

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
PARAGRAPHS = [
    "제1조(목적) 이 계약은 갑이 발주한 소프트웨어 개발 용역의 조건을 정한다.",
    "제2조(계약금액) 계약금액은 금 120,000,000원(부가가치세 포함)으로 하며 대금 지급 일정은 "
    "다음 표와 같다.",
    "제3조(지체상금) 을은 지체일수 1일마다 계약금액의 1,000분의 2.5를 지체상금으로 낸다.",
    "제4조(하도급) 을은 갑의 서면 승인 없이 용역의 전부나 일부를 하도급할 수 없다.",
]
ROWS = [
    ["회차", "금액", "기한"],
    ["선금", "36,000,000원", "2025년 3월 31일"],
    ["중도금", "48,000,000원", "2025년 6월 30일"],
    ["잔금", "36,000,000원", "2025년 9월 30일"],
]
#: `ROWS` as the reader writes them out, each row with its column names.
NAMED_ROWS = [
    "선금: 금액 36,000,000원, 기한 2025년 3월 31일",
    "중도금: 금액 48,000,000원, 기한 2025년 6월 30일",
    "잔금: 금액 36,000,000원, 기한 2025년 9월 30일",
]
ARTICLES = [("제1조", "목적"), ("제2조", "계약금액"), ("제3조", "지체상금"), ("제4조", "하도급")]


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


CONTRACT_MD = "\n\n".join(
    [
        "# 용역 계약서",
        *PARAGRAPHS[:2],
        "\n".join([_md_row(ROWS[0]), _md_row(["---"] * 3), *map(_md_row, ROWS[1:])]),
        *PARAGRAPHS[2:],
    ]
)


def make_hwp(path: Path) -> Path:
    """An HWP 5 binary: hwp-converter-ai lays records out in the OLE container itself."""
    from hwp_converter_ai import HwpWriter

    HwpWriter().from_markdown(CONTRACT_MD, path)
    assert path.read_bytes().startswith(OLE_MAGIC)  # a real HWP 5 file, not HWPX renamed
    return path


def make_hwpx(path: Path) -> Path:
    import hwpforge

    hwpforge.convert_md(CONTRACT_MD).document.save(path)
    assert path.read_bytes().startswith(b"PK\x03\x04")
    return path


def _rewrite_stream(
    path: Path, name: str, change: Callable[[bytes], bytes], *, deflated: bool = True
) -> Path:
    """Replace one stream of an HWP 5 file in place. olefile writes only same-size streams, so
    the new stream is zero-padded to the old size: a raw deflate stream ends by itself."""
    import olefile

    with olefile.OleFileIO(str(path), write_mode=True) as ole:
        old = ole.openstream(name).read()
        new = change(zlib.decompress(old, -15) if deflated else old)
        if deflated:
            packer = zlib.compressobj(9, zlib.DEFLATED, -15)
            new = packer.compress(new) + packer.flush()
        assert len(new) <= len(old), f"{name}: {len(new)} > {len(old)} bytes"
        ole.write_stream(name, new.ljust(len(old), b"\x00"))
    return path


def _drop_records(raw: bytes, tag: int) -> bytes:
    """An HWP 5 record stream without the records of `tag` (header: tag 10 bits, size 12)."""
    out = bytearray()
    pos = 0
    while pos + 4 <= len(raw):
        start = pos
        header = struct.unpack_from("<I", raw, pos)[0]
        size = header >> 20
        pos += 4
        if size == 0xFFF:  # a long record keeps its size in the next DWORD
            size = struct.unpack_from("<I", raw, pos)[0]
            pos += 4
        pos += size
        if header & 0x3FF != tag:
            out += raw[start:pos]
    return bytes(out)


@pytest.mark.parametrize(
    ("make", "fmt"), [(make_hwp, "hwp"), (make_hwpx, "hwpx")], ids=["hwp", "hwpx"]
)
def test_contract_with_a_payment_table(
    tmp_path: Path, make: Callable[[Path], Path], fmt: str
) -> None:
    doc = load_document(make(tmp_path / f"용역계약.{fmt}"))
    assert doc.metadata["format"] == fmt
    assert doc.metadata["reader"] == "hwpforge" and doc.metadata["tables"] == 1

    lines = [line for line in doc.text.splitlines() if line.strip()]
    assert lines[0] == "용역 계약서"
    # Paragraphs come back verbatim (figures, brackets and all), each on a line of its own.
    for paragraph in PARAGRAPHS:
        assert paragraph in lines
    # The header row as it was, then each row on a line of its own with its column names.
    assert _md_row(ROWS[0]) in lines
    for row in NAMED_ROWS:
        assert row in lines
    marks = [
        "용역 계약서",
        "제1조",
        "제2조",
        "| 회차",
        "선금: ",
        "중도금: ",
        "잔금: ",
        "제3조",
        "제4조",
    ]
    positions = [doc.text.index(mark) for mark in marks]
    assert positions == sorted(positions), "document order lost"

    contract = parse_contract(doc.text, fmt)
    assert [(a.no, a.title) for a in contract.articles] == ARTICLES
    article2 = contract.get("제2조")
    assert article2 is not None and NAMED_ROWS[1] in article2.text
    article3 = contract.get("제3조")
    assert article3 is not None and "1,000분의 2.5" in article3.text and "|" not in article3.text


def test_hwp_that_hwpforge_refuses_is_still_read_by_extract_hwp(tmp_path: Path) -> None:
    # Without paragraph shapes (HWPTAG_PARA_SHAPE, 0x19) in DocInfo every paragraph's style
    # reference is broken: hwpforge refuses the file, extract-hwp reads the text regardless.
    path = _rewrite_stream(
        make_hwp(tmp_path / "no-styles.hwp"), "DocInfo", lambda raw: _drop_records(raw, 0x19)
    )
    doc = load_document(path)
    assert doc.metadata["reader"] == "extract-hwp" and "tables" not in doc.metadata
    lines = doc.text.splitlines()
    positions = [lines.index(paragraph) for paragraph in PARAGRAPHS]
    assert positions == sorted(positions)
    # extract-hwp puts each cell on a line of its own: every figure is there, the rows are not.
    # (A cell line such as "2025년 9월 30일" then reads like the date over the signatures, and
    # parse_contract stops at it: one more reason hwpforge, which keeps rows, reads first.)
    assert all(cell in lines for row in ROWS for cell in row)
    assert not any(_md_row(row) in doc.text for row in ROWS)
    assert [a.no for a in parse_contract(doc.text, "hwp").articles][:2] == ["제1조", "제2조"]


def test_without_hwpforge_extract_hwp_reads_both_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hwpforge has wheels for glibc Linux, macOS and Windows only; elsewhere its import fails
    # and the text must still come through.
    paths = [make_hwp(tmp_path / "a.hwp"), make_hwpx(tmp_path / "a.hwpx")]
    monkeypatch.setitem(sys.modules, "hwpforge", None)  # makes `import hwpforge` fail
    for path in paths:
        doc = load_document(path)
        assert doc.metadata["reader"] == "extract-hwp"
        assert all(paragraph in doc.text.splitlines() for paragraph in PARAGRAPHS)


def _fail_if_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    import extract_hwp
    import hwpforge

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a decoder ran on a file the checks should have refused")

    monkeypatch.setattr(hwpforge, "convert_hwp5", refuse)
    monkeypatch.setattr(extract_hwp, "extract_text_from_hwp5", refuse)


def test_a_stream_inflating_past_the_limit_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ~1.4 KB of stream that inflates to 500 KB: the shape of a decompression bomb, small enough
    # to fit the writer's stream slot. Refused from its size alone, before any decoder runs.
    path = _rewrite_stream(
        make_hwp(tmp_path / "bomb.hwp"), "BodyText/Section0", lambda raw: raw + bytes(500_000)
    )
    assert path.stat().st_size < 50_000
    _fail_if_decoded(monkeypatch)
    with pytest.raises(DocumentError, match=r"bomb\.hwp: 압축을 풀면 .*BodyText/Section0"):
        load_document(path, Limits(max_decompressed_bytes=400_000))


def _set_header(path: Path, change: Callable[[bytearray], None]) -> Path:
    def edit(raw: bytes) -> bytes:
        header = bytearray(raw)
        change(header)
        return bytes(header)

    return _rewrite_stream(path, "FileHeader", edit, deflated=False)


def _password_bit(header: bytearray) -> None:
    header[36] |= 0b10  # FileHeader properties, bit 1: the document has a password


def _distribution_bit(header: bytearray) -> None:
    header[36] |= 0b100  # bit 2: a distribution document; BodyText holds only a notice


def _other_signature(header: bytearray) -> None:
    header[:17] = b"Not an HWP File!!"


def _not_deflate(packed: bytes) -> bytes:
    return b"\xff" * len(packed)  # 0xFF opens a deflate block of the reserved type 3


@pytest.mark.parametrize(
    ("make", "message", "decoded"),
    [
        (lambda d: _set_header(make_hwp(d / "locked.hwp"), _password_bit), "암호로 보호된", False),
        (lambda d: _set_header(make_hwp(d / "dist.hwp"), _distribution_bit), "배포용", False),
        (
            lambda d: _set_header(make_hwp(d / "other.hwp"), _other_signature),
            "HWP 문서가 아니거나",
            False,
        ),
        (
            lambda d: _rewrite_stream(
                make_hwp(d / "body.hwp"), "BodyText/Section0", _not_deflate, deflated=False
            ),
            "본문을 읽지 못했습니다",
            True,
        ),
        (lambda d: _truncate(make_hwp(d / "cut.hwp")), "cut.hwp", True),
    ],
    ids=["password", "distribution", "not-hwp-ole", "body-not-deflate", "truncated"],
)
def test_bad_hwp_files_fail_with_one_line_naming_them(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[Path], Path],
    message: str,
    decoded: bool,
) -> None:
    path = make(tmp_path)
    if not decoded:  # the container checks alone refuse these
        _fail_if_decoded(monkeypatch)
    with pytest.raises(DocumentError, match=message) as caught:
        load_document(path)
    text = str(caught.value)
    assert text.startswith(path.name) and "\n" not in text


def _truncate(path: Path, keep: float = 0.5) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path
