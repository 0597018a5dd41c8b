"""The Mini App's small pieces: the protocol's parser, the settings, the page's weight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.cards import Card
from webapp.protocol import MAX_CARDS, MAX_MESSAGE, BadMessage, Exchange, Hello, PassMove, PlayMove, parse
from webapp.server import BURST, Bucket
from webapp.settings import WebAppConfig
from webapp.view import plain

ROOT = Path(__file__).resolve().parents[2]


def test_moves_parse_into_values() -> None:
    assert parse('{"t":"play","cards":["HT","S3"]}') == PlayMove((Card.parse("HT"), Card.parse("S3")))
    assert parse('{"t":"pass"}') == PassMove()
    assert parse('{"t":"return","card":"C3"}') == Exchange(Card.parse("C3"), giving=False)
    assert parse('{"t":"hello","init":"x","table":3}') == Hello("x", 3, None)


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "not json",
        '{"t":"play","cards":"HT"}',
        '{"t":"play","cards":["XX"]}',
        '{"t":"play","cards":["HT"],"reading":-1}',
        '{"t":"tribute","card":"S10"}',
        '{"t":"hello","init":5}',
        '{"t":"seat","seat":2}',  # no message names a seat
        json.dumps({"t": "play", "cards": ["HT"] * (MAX_CARDS + 1)}),
        json.dumps({"t": "hello", "init": "x" * MAX_MESSAGE}),
    ],
)
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(BadMessage):
        parse(text)


def test_a_page_may_burst_then_keep_a_persons_pace() -> None:
    bucket = Bucket()
    assert all(bucket.take() for _ in range(BURST))
    assert not bucket.take()


def test_without_a_url_there_is_no_mini_app() -> None:
    assert WebAppConfig.from_env({}) is None
    config = WebAppConfig.from_env(
        {"GUANDAN_WEBAPP_URL": "https://g.example/app", "GUANDAN_WEBAPP_PORT": "9000"}
    )
    assert config is not None and (config.port, config.origin) == (9000, "https://g.example")
    assert config.table_url(7) == "https://g.example/app?t=7"
    for wrong in (
        {"GUANDAN_WEBAPP_URL": "g.example"},
        {"GUANDAN_WEBAPP_URL": "https://g", "GUANDAN_WEBAPP_PORT": "x"},
    ):
        with pytest.raises(ValueError):
            WebAppConfig.from_env(wrong)


def test_the_compose_override_sets_what_the_settings_read() -> None:
    override = yaml.safe_load((ROOT / "compose.miniapp.yaml").read_text(encoding="utf-8"))
    for name in ("bot", "bot-standby"):
        environment = {
            key: value.replace(
                "${MINIAPP_DOMAIN:?set MINIAPP_DOMAIN (the Mini App's public name)}", "g.example"
            )
            for key, value in override["services"][name]["environment"].items()
        }
        config = WebAppConfig.from_env(environment)
        assert config is not None and (config.url, config.port, config.host) == (
            "https://g.example/",
            8443,
            "0.0.0.0",
        )


def test_the_page_weighs_far_less_than_200_kb() -> None:
    total = sum(path.stat().st_size for path in (ROOT / "webapp" / "static").iterdir())
    assert total <= 200 * 1024 / 4, total


def test_chat_texts_reach_the_page_as_plain_text() -> None:
    assert plain("<b>第 1 副</b> &lt;script&gt;") == "第 1 副 <script>"
