"""Loaders on real files made here: a Korean PDF, a DOCX with a table, an HWPX, CP949 text —
and malformed, truncated, oversized and zip-bomb files, which fail with a clear error naming
the file and leave an existing collection as it was."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest

from dure.documents import DocumentError, Limits, load_document, parse_contract
from dure.documents.chunker import chunk_text
from dure.retrieval import open_collection
from dure.settings import Settings

CONTRACT_LINES = [
    "용역 계약서",
    "제1조(목적) 이 계약은 소프트웨어 개발 용역에 관한 것이다.",
    "제2조(하도급) 을은 갑의 승인 없이 하도급할 수 없다.",
    "제3조(지체상금) 을은 지체일수마다 지체상금을 낸다.",
]


def make_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A PDF in reportlab's built-in Korean CID font (no font package needed)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("HYSMyeongJo-Medium"))
    c = canvas.Canvas(str(path))
    for lines in pages:
        c.setFont("HYSMyeongJo-Medium", 11)
        for i, line in enumerate(lines):
            c.drawString(60, 780 - 20 * i, line)
        c.showPage()
    c.save()
    return path


def make_docx(path: Path) -> Path:
    import docx

    d = docx.Document()
    d.add_heading("물품 공급 계약서", level=1)
    d.add_paragraph("제1조(목적) 이 계약은 물품 공급 조건을 정한다.")
    d.add_paragraph("제2조(품목) 공급 품목과 단가는 다음 표와 같다.")
    table = d.add_table(rows=3, cols=3)
    for r, row in enumerate(
        [["품목", "수량", "단가"], ["사무용 의자", "40", "12만원"], ["책상", "20", "25만원"]]
    ):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    d.add_paragraph("제3조(납품) 을은 3월 31일까지 납품한다.")
    d.save(str(path))
    return path


#: One list as Korean Word contracts set it up: 제%1조 / %2 circled / %3. / 가%4.
NUMBERING = (
    '<w:abstractNum xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'w:abstractNumId="90">{levels}</w:abstractNum>'
)
LEVEL = '<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="{text}"/></w:lvl>'


def make_numbered_docx(path: Path, paragraphs: list[tuple[int | None, str]]) -> Path:
    """A DOCX whose article numbers, ①② and items are Word list numbering, not typed text:
    (list level or None, text) per paragraph; a second list instance restarts at 3."""
    import docx
    from docx.oxml import parse_xml

    d = docx.Document()
    root = d.part.numbering_part.element
    levels = [
        ("decimal", "제%1조"),
        ("decimalEnclosedCircle", "%2"),
        ("decimal", "%3."),
        ("ganada", "%4."),
    ]
    root.insert(
        0,
        parse_xml(
            NUMBERING.format(
                levels="".join(
                    LEVEL.format(i=i, fmt=fmt, text=text) for i, (fmt, text) in enumerate(levels)
                )
            )
        ),
    )
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    root.append(parse_xml(f'<w:num {w} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))
    d.add_paragraph("위탁 계약서")
    for level, text in paragraphs:
        paragraph = d.add_paragraph(text)
        if level is not None:
            num_pr = paragraph._p.get_or_add_pPr().get_or_add_numPr()
            num_pr.get_or_add_numId().val = 90
            num_pr.get_or_add_ilvl().val = level
    d.save(str(path))
    return path


SECTION = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
    'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">{paras}</hs:sec>'
)
HPF = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<opf:package xmlns:opf="http://www.idpf.org/2007/opf/" version="" unique-identifier="" id="">'
    "<opf:metadata><opf:title>용역 계약서</opf:title><opf:language>ko</opf:language></opf:metadata>"
    '<opf:manifest><opf:item id="header" href="Contents/header.xml" media-type="application/xml"/>'
    '<opf:item id="section0" href="Contents/section0.xml" media-type="application/xml"/>'
    '</opf:manifest><opf:spine><opf:itemref idref="header" linear="yes"/>'
    '<opf:itemref idref="section0" linear="yes"/></opf:spine></opf:package>'
)


def make_hwpx(path: Path, lines: list[str]) -> Path:
    """A minimal, valid HWPX package (OWPML): mimetype first and stored, spine, one section."""
    paras = "".join(
        f'<hp:p id="{i}" paraPrIDRef="0" styleIDRef="0"><hp:run charPrIDRef="0"><hp:t>{t}</hp:t>'
        "</hp:run></hp:p>"
        for i, t in enumerate(lines)
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/hwp+zip", zipfile.ZIP_STORED)
        z.writestr(
            "version.xml",
            '<?xml version="1.0" encoding="UTF-8"?><hv:HCFVersion '
            'xmlns:hv="http://www.hancom.co.kr/hwpml/2011/version" major="5" minor="1"/>',
        )
        z.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0" encoding="UTF-8"?><ocf:container '
            'xmlns:ocf="urn:oasis:names:tc:opendocument:xmlns:container"><ocf:rootfiles>'
            '<ocf:rootfile full-path="Contents/content.hpf" media-type="application/hwpml-package+xml"/>'
            "</ocf:rootfiles></ocf:container>",
        )
        z.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><odf:manifest '
            'xmlns:odf="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>',
        )
        z.writestr("Contents/content.hpf", HPF)
        z.writestr(
            "Contents/header.xml",
            '<?xml version="1.0" encoding="UTF-8"?><hh:head '
            'xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head" version="1.4" secCnt="1"/>',
        )
        z.writestr("Contents/section0.xml", SECTION.format(paras=paras))
    return path


def test_korean_pdf(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "계약서.pdf", [CONTRACT_LINES[:3], CONTRACT_LINES[3:]])
    doc = load_document(path)
    assert doc.metadata["format"] == "pdf" and doc.metadata["pages"] == 2
    contract = parse_contract(doc.text, "pdf")
    assert [a.title for a in contract.articles] == ["목적", "하도급", "지체상금"]


def make_printed_pdf(path: Path, title: str, articles: list[tuple[str, str]]) -> Path:
    """A contract laid out by reportlab's paragraph engine on A5: lines wrap where the page
    ends (inside words too), and every page has the title as a header and "- N -" below."""
    from reportlab.lib.pagesizes import A5
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    font = "HYSMyeongJo-Medium"
    pdfmetrics.registerFont(UnicodeCIDFont(font))
    body = ParagraphStyle("body", fontName=font, fontSize=10, leading=15, wordWrap="CJK")

    def running(canvas: Any, doc: Any) -> None:
        canvas.setFont(font, 8)
        canvas.drawString(40, A5[1] - 30, title)
        canvas.drawCentredString(A5[0] / 2, 25, f"- {doc.page} -")

    flow = [Paragraph(title, body)]
    for heading, text in articles:
        flow += [Paragraph(heading, body), *(Paragraph(p, body) for p in text.split("\n"))]
    SimpleDocTemplate(str(path), pagesize=A5).build(flow, onFirstPage=running, onLaterPages=running)
    return path


def test_a_printed_pdf_reads_as_written(tmp_path: Path) -> None:
    """Lines the page cut are whole again ("4시" + "간" → "4시간"), the running title and the
    page numbers are out of the articles, and the title is still the document's."""
    response = (
        "① 을은 장애 접수 후 1시간 이내에 원격으로 대응을 시작하여야 하며, 긴급 장애의 경우 "
        "4시간 이내에 현장에 도착하여야 한다.\n② 을은 장애 조치 후 3영업일 이내에 장애 보고서를 "
        "갑에게 제출한다."
    )
    articles = [
        (f"제{n}조 ({title})", response if title == "장애 대응" else text)
        for n, (title, text) in enumerate(
            [
                (
                    "목적",
                    "이 계약은 물류관리시스템의 유지보수 업무를 위탁하는 데 필요한 사항을 정한다.",
                )
            ]
            + [
                ("장애 대응", ""),
                ("대금", "월 대금은 금 사백오십만원으로 하고 매월 말일까지 지급한다."),
            ]
            * 5,
            1,
        )
    ]
    path = make_printed_pdf(tmp_path / "유지보수.pdf", "물류관리시스템 유지보수 계약서", articles)
    doc = load_document(path)
    assert doc.metadata["pages"] >= 2
    contract = parse_contract(doc.text, "pdf")
    assert contract.title == "물류관리시스템 유지보수 계약서"
    assert [a.title for a in contract.articles] == [
        title.split("(")[1][:-1] for title, _ in articles
    ]
    expected = response.split("\n")
    for article in contract.articles[1::2]:
        assert article.text.split("\n")[1:] == expected
    assert "- 1 -" not in doc.text and doc.text.count("유지보수 계약서") == 1


def test_docx_with_a_table(tmp_path: Path) -> None:
    doc = load_document(make_docx(tmp_path / "공급.docx"))
    assert doc.metadata["tables"] == 1
    assert doc.text.startswith("# 물품 공급 계약서")
    # Each row is written out with its column names, under the header as it was.
    assert "| 품목 | 수량 | 단가 |\n\n사무용 의자: 수량 40, 단가 12만원\n\n" in doc.text
    # Document order: the table sits between 제2조 and 제3조.
    assert doc.text.index("제2조") < doc.text.index("책상: ") < doc.text.index("제3조")
    contract = parse_contract(doc.text, "docx")
    assert "책상: 수량 20, 단가 25만원" in contract.get("제2조").text


def test_docx_title_is_a_heading_not_a_chunk_of_its_own(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("재택근무 운영 지침", level=0)  # Word's "Title" style
    d.add_heading("1. 적용 대상", level=1)
    d.add_paragraph("이 지침은 정규직 직원에게 적용한다.")
    d.save(str(tmp_path / "지침.docx"))
    text = load_document(tmp_path / "지침.docx").text
    assert text.splitlines()[:2] == ["# 재택근무 운영 지침", "# 1. 적용 대상"]
    # Searched, the title alone was a hit of its own; now every chunk has something to say.
    assert [c.text for c in chunk_text(text)] == ["이 지침은 정규직 직원에게 적용한다."]


def test_docx_list_numbers_are_read_as_drawn(tmp_path: Path) -> None:
    """ "제1조", "①" and "가." made by Word's list numbering are in the text, counted as Word
    counts them (a new article starts its ① again), so the contract has its articles."""
    path = make_numbered_docx(
        tmp_path / "위탁.docx",
        [
            (0, "(목적) 이 계약은 물류 업무의 위탁에 관한 사항을 정한다."),
            (0, "(대금)"),
            (1, "월 대금은 450만원으로 한다."),
            (1, "대금은 다음 각 호의 계좌로 지급한다."),
            (2, "을의 주거래 계좌"),
            (3, "국민은행"),
            (3, "신한은행"),
            (2, "을이 지정한 다른 계좌"),
            (None, "계좌를 바꾸려면 7일 전에 알린다."),
            (0, "(해지)"),
            (1, "어느 일방은 30일 전에 서면으로 해지를 통지할 수 있다."),
        ],
    )
    text = load_document(path).text
    assert text.split("\n") == [
        "위탁 계약서",
        "제1조 (목적) 이 계약은 물류 업무의 위탁에 관한 사항을 정한다.",
        "제2조 (대금)",
        "① 월 대금은 450만원으로 한다.",
        "② 대금은 다음 각 호의 계좌로 지급한다.",
        "1. 을의 주거래 계좌",
        "가. 국민은행",
        "나. 신한은행",
        "2. 을이 지정한 다른 계좌",
        "계좌를 바꾸려면 7일 전에 알린다.",
        "제3조 (해지)",
        "① 어느 일방은 30일 전에 서면으로 해지를 통지할 수 있다.",
    ]
    contract = parse_contract(text, "docx")
    assert [a.title for a in contract.articles] == ["목적", "대금", "해지"]
    assert "450만원" in contract.get("제2조").text


def test_hwpx(tmp_path: Path) -> None:
    doc = load_document(make_hwpx(tmp_path / "계약.hwpx", CONTRACT_LINES))
    assert doc.metadata["format"] == "hwpx"
    # This bare package has no style table, which hwpforge refuses; extract-hwp reads it.
    assert doc.metadata["reader"] == "extract-hwp"
    assert [a.no for a in parse_contract(doc.text, "hwpx").articles] == ["제1조", "제2조", "제3조"]


@pytest.mark.parametrize("encoding", ["cp949", "euc-kr", "utf-8", "utf-8-sig"])
def test_korean_text_encodings(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / f"계약_{encoding}.txt"
    path.write_bytes("\r\n".join(CONTRACT_LINES).encode(encoding))
    doc = load_document(path)
    assert doc.text.splitlines() == CONTRACT_LINES
    expected = {"euc-kr": "cp949"}.get(encoding, encoding)
    assert doc.metadata["encoding"] == expected


def test_same_text_hashes_the_same_across_formats(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    b = tmp_path / "b.md"
    a.write_bytes("\n".join(CONTRACT_LINES).encode("cp949"))
    b.write_text("\r\n".join(CONTRACT_LINES) + "\n\n", encoding="utf-8")
    assert load_document(a).metadata["sha256"] == load_document(b).metadata["sha256"]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _truncate(path: Path, keep: float = 0.5) -> Path:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    return path


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: _write(d / "x.pdf", b"%PDF-1.7 not really"), "x.pdf"),
        (lambda d: _truncate(make_pdf(d / "cut.pdf", [CONTRACT_LINES])), "cut.pdf"),
        (lambda d: _truncate(make_docx(d / "cut.docx")), "cut.docx"),
        (lambda d: _write(d / "fake.docx", b"PK not a zip"), "fake.docx"),
        (lambda d: _truncate(make_hwpx(d / "cut.hwpx", CONTRACT_LINES), 0.6), "cut.hwpx"),
        (lambda d: _write(d / "old.hwp", b"not an OLE file"), "old.hwp"),
        (lambda d: _write(d / "bin.txt", b"\x00\x01\x02" * 100), "bin.txt"),
        (lambda d: _write(d / "empty.md", b""), "empty.md"),
        (lambda d: _write(d / "sheet.xlsx", b"x"), "sheet.xlsx"),
        (lambda d: d / "missing.txt", "missing.txt"),
    ],
    ids=[
        "not-pdf",
        "truncated-pdf",
        "truncated-docx",
        "fake-docx",
        "truncated-hwpx",
        "not-ole-hwp",
        "binary-txt",
        "empty",
        "unsupported",
        "missing",
    ],
)
def test_bad_files_fail_with_a_message_naming_them(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    with pytest.raises(DocumentError, match=message):
        load_document(path)


def test_limits_on_size_pages_and_decompression(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("계약 " * 1000, encoding="utf-8")
    with pytest.raises(DocumentError, match="너무 큽니다"):
        load_document(big, Limits(max_file_bytes=1000))
    pdf = make_pdf(tmp_path / "long.pdf", [CONTRACT_LINES] * 3)
    with pytest.raises(DocumentError, match="3쪽"):
        load_document(pdf, Limits(max_pages=2))
    docx = make_docx(tmp_path / "ok.docx")
    with pytest.raises(DocumentError, match="압축을 풀면"):
        load_document(docx, Limits(max_decompressed_bytes=10_000))


def test_zip_bomb_is_refused_before_extraction(tmp_path: Path) -> None:
    bomb = make_hwpx(tmp_path / "bomb.hwpx", CONTRACT_LINES)
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as z:
        z.writestr("BinData/padding.bin", b"\x00" * 5_000_000)  # ~5 KB compressed
    with pytest.raises(DocumentError, match="압축 폭탄"):
        load_document(bomb)


def test_a_failing_file_leaves_the_persisted_collection_intact(
    tmp_path: Path, settings: Settings
) -> None:
    col = open_collection("loaders", settings, store="faiss", dense=False)
    good = col.add_document(make_pdf(tmp_path / "good.pdf", [CONTRACT_LINES]), kind="contract")
    for bad in (
        _truncate(make_docx(tmp_path / "bad.docx")),
        _truncate(make_hwpx(tmp_path / "bad.hwpx", CONTRACT_LINES), 0.6),
    ):
        with pytest.raises(DocumentError):
            col.add_document(bad, kind="contract")
    reopened = open_collection("loaders", settings, store="faiss", dense=False)
    assert [d.doc_id for d in reopened.documents()] == [good]
    assert reopened.search("하도급", top_k=1)[0].article_no == "제2조"


def test_a_pdf_past_pypdfs_own_limits_is_a_clear_error(tmp_path: Path) -> None:
    """An xref table that declares far more entries than the file could hold trips pypdf's
    `LimitReachedError` (not a `PdfReadError`): still one clear line, not a crash."""
    body = b"%PDF-1.4\n1 0 obj\n<</Type/Catalog>>\nendobj\n"
    start = len(body)
    pdf = body + b"xref\n0 99999999\n0000000000 65535 f \ntrailer<</Root 1 0 R>>\n"
    path = tmp_path / "huge-xref.pdf"
    path.write_bytes(pdf + b"startxref\n%d\n%%%%EOF\n" % start)
    with pytest.raises(DocumentError, match="huge-xref.pdf: PDF가 읽기 한도를 넘습니다"):
        load_document(path)
