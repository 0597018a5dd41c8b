"""initData validation: Telegram's algorithm, and every way a page could lie about its user."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from emulator.miniapp import init_data
from webapp.initdata import DEFAULT_MAX_AGE, MAX_INIT_DATA, InitDataRefused, Refused, sign, validate

TOKEN = "123456:TESTtoken"
NOW = 1_800_000_000


def refused(text: str, *, token: str = TOKEN, now: float = NOW) -> Refused:
    with pytest.raises(InitDataRefused) as caught:
        validate(text, token, now=now)
    return caught.value.reason


def test_a_signed_init_data_gives_its_user() -> None:
    user = validate(init_data(TOKEN, 42, name="李雷", auth_date=NOW - 60), TOKEN, now=NOW)
    assert (user.id, user.first_name, user.language_code, user.auth_date) == (42, "李雷", "zh", NOW - 60)


def test_the_hash_is_telegrams_documented_one() -> None:
    """Computed here from the Bot API's words, independently of webapp.initdata.sign."""
    fields = {"auth_date": str(NOW), "user": '{"id":7,"first_name":"A"}', "query_id": "Q"}
    check = f"auth_date={NOW}\nquery_id=Q\nuser=" + '{"id":7,"first_name":"A"}'
    key = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    assert validate(urlencode(fields | {"hash": digest}), TOKEN, now=NOW).id == 7


def test_another_bots_token_is_a_forgery() -> None:
    assert refused(init_data("999:OTHER", 42, auth_date=NOW)) is Refused.FORGED


def test_an_altered_user_is_a_forgery() -> None:
    """Another user's id put into a genuine initData: the hash no longer matches."""
    fields = dict(parse_qsl(init_data(TOKEN, 42, auth_date=NOW)))
    fields["user"] = fields["user"].replace('"id":42', '"id":43')
    assert refused(urlencode(fields)) is Refused.FORGED


def test_an_altered_date_is_a_forgery() -> None:
    fields = dict(parse_qsl(init_data(TOKEN, 42, auth_date=NOW - 2 * 86_400)))
    fields["auth_date"] = str(NOW)
    assert refused(urlencode(fields)) is Refused.FORGED


def test_an_old_init_data_expired() -> None:
    assert refused(init_data(TOKEN, 42, auth_date=int(NOW - DEFAULT_MAX_AGE - 1))) is Refused.EXPIRED
    assert validate(init_data(TOKEN, 42, auth_date=int(NOW - DEFAULT_MAX_AGE)), TOKEN, now=NOW).id == 42


def test_the_age_limit_is_a_setting() -> None:
    text = init_data(TOKEN, 42, auth_date=NOW - 120)
    with pytest.raises(InitDataRefused):
        validate(text, TOKEN, now=NOW, max_age=60)
    assert validate(text, TOKEN, now=NOW, max_age=180).id == 42


def test_a_date_far_in_the_future_is_refused() -> None:
    assert refused(init_data(TOKEN, 42, auth_date=NOW + 3600)) is Refused.EXPIRED


def test_no_hash_or_an_empty_one_is_unsigned() -> None:
    fields = dict(parse_qsl(init_data(TOKEN, 42, auth_date=NOW)))
    del fields["hash"]
    assert refused(urlencode(fields)) is Refused.UNSIGNED
    assert refused(urlencode(fields | {"hash": ""})) is Refused.UNSIGNED


def test_a_repeated_field_is_malformed() -> None:
    """Which copy would count is ambiguous: refused, never guessed."""
    text = init_data(TOKEN, 42, auth_date=NOW)
    assert refused(text + "&user=" + quote('{"id":43}')) is Refused.MALFORMED


def test_garbage_and_oversized_strings_are_refused() -> None:
    assert refused("") is Refused.UNSIGNED
    assert refused("not a query") is Refused.MALFORMED
    assert refused("a=" + "x" * MAX_INIT_DATA) is Refused.MALFORMED


def test_a_signed_string_without_a_user_is_refused() -> None:
    fields = {"auth_date": str(NOW), "query_id": "Q"}
    assert refused(urlencode(fields | {"hash": sign(fields, TOKEN)})) is Refused.NO_USER
    fields = {"auth_date": str(NOW), "user": '{"id":"42"}'}
    assert refused(urlencode(fields | {"hash": sign(fields, TOKEN)})) is Refused.NO_USER
