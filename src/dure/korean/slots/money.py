"""Budget per person: "1만원대", "인당 2만 5천 원", "만원 이하", "1~2만원 사이", "총 8만원"; in
English "under 20k", "15,000 won each", "₩30000 total".

A value is `{"min": won, "max": won}` with either bound left out when not said. "N원대" is the
band of N ("1만원대" = 10,000–19,999); a plain amount is an upper bound; "미만" and "초과" are
strict ("만원 미만" = max 9,999); a lower bound right before an upper one is one range ("2만 이상
3만 이하"), and an amount after one taken back is money ("3만 말고 4만"). A total ("총 8만원")
is divided by the party size when the same utterance gives it, and ignored otherwise.
"""

from __future__ import annotations

import re

from dure.korean.numbers import AMOUNT, amount_value
from dure.korean.slots.core import Utterance

_UPPER = r"이하|이내|안쪽|안으로|까지|미만|아래|넘지\s*않게|넘지\s*않는|안\s*넘게"
_LOWER = r"이상|넘게|부터|넘어도|초과"
_RANGE = re.compile(
    rf"(?P<a>{AMOUNT}|\d+(?:\.\d+)?)\s*원?\s*(?:~|-|에서)\s*(?P<b>{AMOUNT})\s*원(?:\s*(?:사이|선))?"
)
_SINGLE = re.compile(
    rf"(?P<amt>{AMOUNT})\s*(?P<won>원)?(?P<band>대)?\s*(?:(?P<upper>{_UPPER})|(?P<lower>{_LOWER}))?"
)
_CONTEXT = re.compile(
    r"(?:1인당|인당|한\s*명당|1인|각자|예산은?|가격은?|비용은?|(?i:budget|price)\s*:?)\s*$"
)
#: An amount after one taken back is money too: "인당 3만 말고 4만 안팎으로".
_INSTEAD = re.compile(rf"(?:{AMOUNT})\s*원?\s*(?:은|는|이|가)?\s*(?:말고|대신|아니고|아니라)\s*$")
#: What may stand between a lower and an upper bound said as one range ("2만 이상 3만 이하").
_BOUNDS_GAP = re.compile(r"\s*(?:,|에서|그리고|and)?\s*")
_TOTAL = re.compile(r"(?:총|전체|다\s*해서|합쳐서|모두)\s*$")
#: In English an amount is money only with its unit: "20k", "15,000 won", "₩30000", "KRW 9000".
_EN_MONEY = re.compile(
    r"(?i)(?:(?P<upper>under|below|less\s+than|up\s+to|max(?:imum)?|within)|"
    r"(?P<lower>over|above|at\s+least|more\s+than))?\s*(?P<sign>₩|krw\s*)?"
    r"(?<![\w.,])(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<unit>k\b|won\b|krw\b|원)?"
    r"(?P<each>\s*(?:per\s+(?:person|head)|each|pp\b|a\s+head))?"
    r"(?P<total>\s*(?:in\s+)?total\b|\s*altogether)?"
)
#: "k" alone ("12k steps") is money only beside a word of money or a bound.
_EN_BUDGET = re.compile(r"(?i)(?:budget|price|cost|around|about|roughly|approx\.?|~)\s*:?\s*$")


def _unit_of(amount_text: str) -> int:
    return 10_000 if "만" in amount_text else 1_000 if "천" in amount_text else 1


def _band(amount: int) -> dict[str, int]:
    unit = 1
    while amount % (unit * 10) == 0 and unit * 10 <= amount:
        unit *= 10
    return {"min": amount, "max": amount + unit - 1}


def extract_budget(u: Utterance) -> None:
    """Budgets (`budget`; a total is recorded as `budget_total`)."""
    for m in _RANGE.finditer(u.text):
        low, high = amount_value(m.group("a")), amount_value(m.group("b"))
        if low is None or high is None:
            continue
        if low < 1000:  # "1~2만원": the first number borrows the second one's unit
            low = int(float(m.group("a")) * _unit_of(m.group("b")))
        u.add("budget", {"min": low, "max": high}, m.start(), m.end())
    for m in _SINGLE.finditer(u.text):
        amount = amount_value(m.group("amt"))
        before = u.raw[max(0, m.start() - 8) : m.start()]
        said_money = m.group("won") or m.group("band") or _CONTEXT.search(before)
        if not said_money and (budgets := u.of("budget")):  # "3만 말고 4만", "2만 이상 3만 이하"
            bounded = (m.group("upper") or m.group("lower")) and _BOUNDS_GAP.fullmatch(
                u.raw, budgets[-1].end, m.start()
            )
            instead = _INSTEAD.search(u.raw, max(0, m.start() - 24), m.start())
            said_money = bool(bounded or instead)
        if amount is None or amount < 1000 or not said_money:
            continue
        if m.group("band"):
            value = _band(amount)
        elif m.group("lower"):  # "초과" is strict: one won more
            value = {"min": amount + (m.group("lower") == "초과")}
        else:  # "미만" is strict: one won less
            value = {"max": amount - (m.group("upper") == "미만")}
        kind = "budget_total" if _TOTAL.search(before) else "budget"
        per_person = _CONTEXT.search(before)  # claimed too: "1인" of "1인 1.5만원" is no party size
        start = m.start() - len(before) + per_person.start() if per_person else m.start()
        _add_bound(u, kind, value, start, m.end())
    for m in _EN_MONEY.finditer(u.text):
        unit = (m.group("unit") or "").lower()
        marked = m.group("sign") or unit in ("won", "krw", "원")
        bounded = m.group("upper") or m.group("lower") or m.group("each") or m.group("total")
        if not (marked or unit == "k" and (bounded or _EN_BUDGET.search(u.raw[: m.start()]))):
            continue
        number = float(m.group("n").replace(",", ""))
        amount = int(number * (1000 if unit == "k" else 1))
        if amount < 1000:
            continue
        value = {"min": amount} if m.group("lower") else {"max": amount}
        kind = "budget_total" if m.group("total") else "budget"
        start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
        u.add(kind, value, start, m.end())


def _add_bound(u: Utterance, kind: str, value: dict[str, int], start: int, end: int) -> None:
    """Record a budget; a lower bound right before an upper one ("2만 이상 3만 이하") is one
    range."""
    found = u.of(kind)
    last = found[-1] if found else None
    if (
        last is not None
        and not last.negated
        and set(last.value) | set(value) == {"min", "max"}
        and len(last.value) == len(value) == 1
        and _BOUNDS_GAP.fullmatch(u.raw, last.end, start)
        and last.value.get("min", 0) <= value.get("max", last.value.get("max", 0))
    ):
        u.mentions.remove(last)
        value, start = {**last.value, **value}, last.start
    u.add(kind, value, start, end)
