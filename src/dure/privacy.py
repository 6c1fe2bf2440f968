"""Personal data stays home: Korean resident registration numbers (주민등록번호), phone, card and
account numbers are masked in logs and in what goes to a remote model provider.

The detector is rules, each checked beyond its shape so ordinary numbers survive: a resident
number's birth date must be a real date and its seventh digit 1–8; a card number must pass the
Luhn check; an account number needs a word such as 계좌, 통장 or 입금 before it; a phone number
must start with a Korean mobile (010, 011, 016–019), Seoul (02), area (031–064) or 070 prefix.
"""

from __future__ import annotations

import logging
import re
import threading
from datetime import date
from typing import Any

LABELS = {
    "rrn": "[주민등록번호]",
    "card": "[카드번호]",
    "account": "[계좌번호]",
    "phone": "[전화번호]",
}
_RRN = re.compile(r"(?<!\d)(\d{2})(\d{2})(\d{2})\s?-?\s?([1-8])\d{6}(?!\d)")
_CARD = re.compile(r"(?<!\d)(?:\d[ -]?){12,18}\d(?!\d)")
_ACCOUNT = re.compile(
    r"(?P<cue>계좌|통장|입금|송금|이체|account)(?P<gap>[^\d\n]{0,15})(?P<no>\d[\d-]{8,18}\d)(?!\d)",
    re.IGNORECASE,
)
_PHONE = re.compile(
    r"(?<!\d)(?:\+82[ -]?|0)(?:1[016789]|2|[3-6][1-5]|70)[ -.)]?\d{3,4}[ -.]?\d{4}(?!\d)"
)


def _real_rrn(m: re.Match[str]) -> bool:
    yy, mm, dd, sex = (int(g) for g in m.groups())
    century = {1: 1900, 2: 1900, 5: 1900, 6: 1900}.get(sex, 2000)
    try:
        date(century + yy, mm, dd)
    except ValueError:
        return False
    return True


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def mask(text: str) -> str:
    """`text` with every personal number replaced by its label ("[전화번호]", …)."""
    if not any(ch.isdigit() for ch in text):
        return text
    text = _RRN.sub(lambda m: LABELS["rrn"] if _real_rrn(m) else m.group(0), text)

    def card(m: re.Match[str]) -> str:
        digits = re.sub(r"\D", "", m.group(0))
        return LABELS["card"] if 13 <= len(digits) <= 19 and _luhn(digits) else m.group(0)

    text = _CARD.sub(card, text)
    text = _ACCOUNT.sub(lambda m: f"{m['cue']}{m['gap']}{LABELS['account']}", text)
    return _PHONE.sub(LABELS["phone"], text)


def mask_value(value: Any) -> Any:
    """`mask` through strings, lists and dicts (message contents, tool arguments)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, list):
        return [mask_value(v) for v in value]
    if isinstance(value, dict):
        return {k: mask_value(v) for k, v in value.items()}
    return value


_installed = False
_install_lock = threading.Lock()


def install_log_masking() -> None:
    """Mask every log record of the process as it is made (idempotent): whatever logger, handler
    or format writes it, the message and its arguments are masked first."""
    global _installed
    with _install_lock:
        if _installed:
            return
        make = logging.getLogRecordFactory()

        def masked(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = make(*args, **kwargs)
            try:
                text = record.getMessage()
            except (TypeError, ValueError):  # a malformed format: logging reports it as it is
                return record
            hidden = mask(text)
            if hidden == text:
                return record  # nothing to hide: formatters that read the arguments still can
            if isinstance(record.args, tuple):  # hidden in each argument, kept as arguments
                each = tuple(mask(a) if isinstance(a, str) else a for a in record.args)
                try:
                    if str(record.msg) % each == hidden:
                        record.args = each
                        return record
                except (TypeError, ValueError):
                    pass
            record.msg, record.args = hidden, None
            return record

        logging.setLogRecordFactory(masked)
        _installed = True
