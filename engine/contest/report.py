"""The 000-E report line: 项目 + 组号, e.g. ``掼蛋3组`` (docs/rules.md §4.8).

The official line the bot posts is exactly ``掼蛋{N}组``: the event word, Arabic
digits, ``组``, nothing else, N being the winning pair's group number.

People type it less tidily, so :func:`parse_report` accepts what cannot be misread:
full-width digits and spaces (NFKC), spaces anywhere, an optional ``/report`` (or
``/report@bot``) in front, ``第`` before the number, one trailing 。.!！, and Chinese
numerals (``三``, ``两``, ``十二``, ``二十``, ``一百零五``, also 壹贰叁…拾佰). Anything
that could be read two ways is refused with a :class:`Refusal` code rather than
guessed: two numbers, another event word, text after ``组``, a malformed numeral, 0.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

from engine.contest.errors import Refusal, ReportRefused

DEFAULT_EVENT: Final = "掼蛋"
MAX_GROUP: Final = 9999

_DIGITS: Final = {
    **dict.fromkeys("零〇", 0),
    "一": 1, "壹": 1, "二": 2, "两": 2, "贰": 2, "三": 3, "叁": 3, "四": 4, "肆": 4,
    "五": 5, "伍": 5, "六": 6, "陆": 6, "七": 7, "柒": 7, "八": 8, "捌": 8, "九": 9, "玖": 9,
}  # fmt: skip
_UNITS: Final = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
_NUMERAL: Final = "0-9" + "".join(_DIGITS) + "".join(_UNITS)
_COMMAND: Final = re.compile(r"^/report(?:@\w+)?", re.IGNORECASE)
_NUMBER_RUN: Final = re.compile(f"[{_NUMERAL}]+")
_END_PUNCTUATION: Final = "。.!！"


def official_line(number: int, event: str = DEFAULT_EVENT) -> str:
    """The exact line to post: ``掼蛋3组``."""
    return f"{event}{number}组"


def parse_report(text: str, event: str = DEFAULT_EVENT) -> int:
    """The group number in a report line, or :class:`ReportRefused` with the reason."""
    body = _normalized(text)
    if not body:
        raise ReportRefused(Refusal.NOT_A_REPORT)
    word = _normalized(event)
    if not body.startswith(word):
        raise ReportRefused(Refusal.WRONG_EVENT if "组" in body else Refusal.NOT_A_REPORT, body)
    rest = body[len(word) :].removeprefix("第")
    if "组" not in rest:
        raise ReportRefused(Refusal.NOT_A_REPORT, body)
    number_text, _, tail = rest.partition("组")
    _check_single_number(number_text, tail)
    return _group_number(number_text)


def _normalized(text: str) -> str:
    """NFKC (full-width digits and spaces become ASCII), no whitespace, no /report prefix."""
    folded = unicodedata.normalize("NFKC", text).strip()
    folded = _COMMAND.sub("", folded, count=1)
    return "".join(folded.split()).rstrip(_END_PUNCTUATION)


def _check_single_number(number_text: str, tail: str) -> None:
    if len(_NUMBER_RUN.findall(number_text) + _NUMBER_RUN.findall(tail)) > 1:
        raise ReportRefused(Refusal.SEVERAL_NUMBERS, number_text + "组" + tail)
    if tail:
        raise ReportRefused(Refusal.TRAILING_TEXT, tail)
    if not number_text:
        raise ReportRefused(Refusal.NO_NUMBER)
    if _NUMBER_RUN.fullmatch(number_text) is None:
        raise ReportRefused(Refusal.BAD_NUMERAL, number_text)


def _group_number(number_text: str) -> int:
    value = int(number_text) if number_text.isdigit() else chinese_number(number_text)
    if value == 0:
        raise ReportRefused(Refusal.ZERO)
    if value > MAX_GROUP:
        raise ReportRefused(Refusal.BAD_NUMERAL, number_text)
    return value


def chinese_number(text: str) -> int:
    """A Chinese numeral below 10,000: 三 3, 十二 12, 二十 20, 一百零五 105, 两千 2000.

    Units must fall (千 > 百 > 十), 零 only fills a gap, and a bare leading 十 means 10.
    """
    if text in ("零", "〇"):
        return 0
    if not text or any(ch not in _DIGITS and ch not in _UNITS for ch in text):
        raise ReportRefused(Refusal.BAD_NUMERAL, text)
    total, digit, last_unit, after_zero = 0, None, 10_000, False
    for ch in text:
        if ch in _UNITS:
            total, last_unit = _apply_unit(text, total, digit, _UNITS[ch], last_unit)
            digit, after_zero = None, False
        elif digit is not None:
            raise ReportRefused(Refusal.BAD_NUMERAL, text)  # two digits in a row: 二三
        elif _DIGITS[ch] == 0:
            if after_zero or total == 0:
                raise ReportRefused(Refusal.BAD_NUMERAL, text)
            after_zero = True
        else:
            digit = _DIGITS[ch]
    if digit is not None and not after_zero and last_unit not in (10_000, 10):
        raise ReportRefused(Refusal.BAD_NUMERAL, text)  # 一百二 (百二 shorthand) is refused
    return total + (digit or 0)


def _apply_unit(text: str, total: int, digit: int | None, unit: int, last_unit: int) -> tuple[int, int]:
    if unit >= last_unit:
        raise ReportRefused(Refusal.BAD_NUMERAL, text)
    if digit is None and not (unit == 10 and total == 0 and last_unit == 10_000):
        raise ReportRefused(Refusal.BAD_NUMERAL, text)
    return total + (1 if digit is None else digit) * unit, unit
