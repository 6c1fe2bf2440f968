"""Personal numbers are masked in logs and in requests to a provider off this machine; ordinary
numbers (dates, amounts, article numbers, order numbers) are not."""

from __future__ import annotations

import logging

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from dure.llm.openai_compat import openai_chat_model
from dure.privacy import install_log_masking, mask
from dure.settings import Settings


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("주민번호 900101-1234567 입니다", "주민번호 [주민등록번호] 입니다"),
        ("주민등록번호는 0312154123456", "주민등록번호는 [주민등록번호]"),
        ("연락처 010-1234-5678로 주세요", "연락처 [전화번호]로 주세요"),
        ("사무실 02-123-4567, 휴대폰 01098765432", "사무실 [전화번호], 휴대폰 [전화번호]"),
        ("call +82 10 2345 6789", "call [전화번호]"),
        ("카드 4111 1111 1111 1111 결제", "카드 [카드번호] 결제"),
        ("계좌번호: 110-234-567890 (신한)", "계좌번호: [계좌번호] (신한)"),
        ("국민은행 통장 123456-01-234567로 입금", "국민은행 통장 [계좌번호]로 입금"),
    ],
)
def test_personal_numbers_are_masked(text: str, masked: str) -> None:
    assert mask(text) == masked


@pytest.mark.parametrize(
    "text",
    [
        "계약일은 2025-03-15이고 제5조에 따라 5천만 원을 지급한다.",
        "주문번호 20250315-0001, 수량 1234567",
        "901301-1234567",  # month 13: not a birth date
        "카드 1234 5678 9012 3456 (Luhn 불일치)",
        "1천분의 1.5, 100분의 10",
    ],
)
def test_ordinary_numbers_are_kept(text: str) -> None:
    assert mask(text) == text


def test_log_records_are_masked_whatever_logger(caplog: pytest.LogCaptureFixture) -> None:
    install_log_masking()
    caplog.set_level(logging.INFO)
    logging.getLogger("some.library").info("user %s said %s", "010-1234-5678", "안녕")
    assert caplog.records[-1].getMessage() == "user [전화번호] said 안녕"


def test_masked_records_keep_their_arguments_for_formatters_that_read_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """uvicorn's access log formats `record.args` itself: they stay a tuple, masked one by one."""
    install_log_masking()
    caplog.set_level(logging.INFO)
    access = logging.getLogger("dure.test.access")  # uvicorn's own stops propagating once run
    access.info('%s - "%s %s" %d', "127.0.0.1:5000", "GET", "/threads?tel=010-1234-5678", 200)
    access.info('%s - "%s %s" %d', "127.0.0.1:5000", "GET", "/healthz", 200)
    hidden, plain = caplog.records[-2:]
    assert hidden.args == ("127.0.0.1:5000", "GET", "/threads?tel=[전화번호]", 200)
    assert plain.args == ("127.0.0.1:5000", "GET", "/healthz", 200)


def payload(settings: Settings) -> dict:
    model = openai_chat_model(settings, "smart")
    return model._get_request_payload(
        [
            HumanMessage("제 번호는 010-1234-5678이고 주민번호는 900101-1234567이에요"),
            AIMessage(
                "",
                tool_calls=[{"name": "note", "args": {"phone": "010-1234-5678"}, "id": "c1"}],
            ),
            ToolMessage("saved 010-1234-5678", tool_call_id="c1"),
        ]
    )


def test_a_remote_provider_never_sees_them(settings: Settings) -> None:
    settings.base_url = "https://api.example.test/v1"
    sent = str(payload(settings)["messages"])
    assert "010-1234-5678" not in sent and "900101" not in sent
    assert "[전화번호]" in sent and "[주민등록번호]" in sent


def test_a_local_provider_or_an_allowing_setting_sees_them(settings: Settings) -> None:
    settings.base_url = "http://127.0.0.1:8080/v1"
    assert "010-1234-5678" in str(payload(settings)["messages"])
    settings.base_url = "https://api.example.test/v1"
    settings.privacy.allow_remote = True
    assert "010-1234-5678" in str(payload(settings)["messages"])
