"""Every table refusal has its own text in both languages, and the old string codes still find it."""

from __future__ import annotations

import pytest

from app.table.refusals import TableRefusal
from app.table.texts import error_text, refusal_text

GENERIC = {"zh": error_text("no_such_code", "zh"), "en": error_text("no_such_code", "en")}


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_every_refusal_has_its_own_text(locale: str) -> None:
    texts = {code: refusal_text(code, locale) for code in TableRefusal}
    assert GENERIC[locale] not in texts.values()
    assert len(set(texts.values())) == len(TableRefusal)
    assert all(error_text(code.value, locale) == text for code, text in texts.items())
