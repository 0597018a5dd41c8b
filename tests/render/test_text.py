"""The bundled font covers everything the pictures say, and odd names never crash."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from engine.plays import PlayKind
from render import words
from render.text import FONT_DIR, PLACEHOLDER, fit, font, has_glyph, printable

UI_TEXT = (
    "打张对家我方对方手牌已出完第局结果台上进贡还贡备注获胜比赛结束终局级数积分升级退回不变"
    "名次队伍队员场次胜待定八强半决赛决赛淘汰赛三局两胜级差配大小王★☆♠♥♣♦→·…×+-:0123456789"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz–!"
)


def test_the_font_files_and_licence_ship_with_the_package() -> None:
    for name in ("NotoSansSC-Regular-subset.otf", "NotoSansSC-Bold-subset.otf", "OFL.txt", "subset.sh"):
        assert (FONT_DIR / name).is_file(), name
    assert "SIL OPEN FONT LICENSE" in (FONT_DIR / "OFL.txt").read_text(encoding="utf-8")


def test_every_word_the_pictures_use_has_a_glyph() -> None:
    vocabulary = UI_TEXT + "".join(words.play_kind_name(k) for k in PlayKind)
    vocabulary += "".join(words.place_name(p) + words.seat_name(p - 1) for p in range(1, 5))
    missing = sorted({c for c in vocabulary if not c.isspace() and not has_glyph(c)})
    assert missing == []


def test_common_hanzi_are_covered_and_emoji_are_not() -> None:
    assert all(has_glyph(c) for c in "掼蛋逢人配理牌钢板同花顺")
    assert not has_glyph("😀")


def test_chinese_text_draws_real_glyphs_not_boxes() -> None:
    """Distinct hanzi give distinct bitmaps; tofu would draw the same box for each."""

    def bitmap(char: str) -> bytes:
        image = Image.new("L", (60, 60))
        ImageDraw.Draw(image).text((30, 30), char, font=font(48), fill=255, anchor="mm")
        return image.tobytes()

    assert len({bitmap(c) for c in "掼蛋上下游贡"}) == 6


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("小明😀", "小明"),
        ("😀🎉", PLACEHOLDER),
        ("a\x00b\u200dc", "abc"),
        ("  张  三 ", "张 三"),
        ("", PLACEHOLDER),
    ],
)
def test_printable(raw: str, shown: str) -> None:
    assert printable(raw) == shown


def test_fit_shortens_with_an_ellipsis() -> None:
    face = font(30)
    short = fit("赵六长长长长长长长长长长长长名字", face, 150)
    assert short.endswith("…") and face.getlength(short) <= 150
    assert fit("张三", face, 150) == "张三"
