"""Translations, passed explicitly: every message is built for one user's or one
chat's locale (no global locale, which would break under concurrency).

Catalogs are ``locales/<lang>/LC_MESSAGES/guandan.po``; the compiled ``.mo`` is
used when it is current, otherwise the ``.po`` is compiled in memory, so a fresh
checkout works before ``pybabel compile`` has run.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path
from typing import Final

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

DOMAIN: Final = "guandan"
LOCALES_DIR: Final = Path(__file__).resolve().parents[1] / "locales"
LOCALES: Final = ("zh", "en")
DEFAULT_LOCALE: Final = "zh"


def normalize_locale(code: str | None) -> str:
    """``zh-hans``, ``zh_CN`` → ``zh``; ``en-GB`` → ``en``; anything else → the default."""
    if not code:
        return DEFAULT_LOCALE
    base = code.replace("-", "_").split("_", 1)[0].lower()
    return base if base in LOCALES else DEFAULT_LOCALE


@cache
def translator(locale: str) -> gettext.NullTranslations:
    """The catalog of one locale (cached; catalogs are read-only)."""
    locale = normalize_locale(locale)
    folder = LOCALES_DIR / locale / "LC_MESSAGES"
    po_path, mo_path = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo_path.exists() and (not po_path.exists() or mo_path.stat().st_mtime >= po_path.stat().st_mtime):
        with mo_path.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    if not po_path.exists():
        return gettext.NullTranslations()
    with po_path.open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)
