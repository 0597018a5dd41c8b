"""Large fields (issue 18.7): with 64 pairs and 200 sign-ups, and names of the longest length,
every message the contest sends stays within Telegram's limits (4,096 characters of text after
the HTML is parsed; 1,024 of caption), summarised where the whole would not fit."""

from __future__ import annotations

import pytest

from app.contest import texts
from app.contest.views import plain
from engine.contest import Player, confirm_partner, draw, report_text, sign_up
from tests.engine.contest.support import ON_TIME, SEED, new_contest

TEXT = 4096


def long_name(k: int) -> str:
    return ("很长的名字" * 7)[:30] + f"{k:02d}"  # 32 characters, as display_name keeps


def field(pairs: int, singles: int, **settings: object):
    contest = new_contest(SEED, **settings)
    for k in range(pairs):
        invited = Player(101 + 2 * k, long_name(k + 1))
        contest, _ = sign_up(contest, Player(100 + 2 * k, long_name(k)), invited)
        contest, _ = confirm_partner(contest, 101 + 2 * k)
    for k in range(singles):
        contest, _ = sign_up(contest, Player(5000 + k, long_name(k)))
    return contest


def fits(text: str) -> bool:
    return len(plain(text)) <= TEXT and len(text) <= texts.TEXT_LIMIT + 96


@pytest.mark.parametrize("locale", ["zh", "en"])
def test_the_card_and_contest_with_200_sign_ups_fit_and_say_how_many(locale: str) -> None:
    contest = field(0, 200)
    card = texts.card_text(contest, locale)
    assert fits(card) and fits(texts.status_text(contest, locale))
    assert "200" in card and ("/contest export" in card)
    assert contest.seed.commitment in card  # the commitment is never cut


@pytest.mark.parametrize("format_name", ["wechat-knockout", "swiss", "movement", "redraw-knockout"])
@pytest.mark.parametrize("locale", ["zh", "en"])
def test_the_draw_standings_and_status_of_64_pairs_fit(format_name: str, locale: str) -> None:
    contest = draw(field(64, 0, format_name=format_name), now=ON_TIME).contest
    message = texts.draw_message(contest, locale)
    assert fits(message), len(plain(message))
    assert all(m.code in message for m in contest.rounds[0].matches)  # every match code is there
    assert contest.seed.hex in message
    assert fits(texts.standings_text(contest, locale))
    assert fits(texts.status_text(contest, locale)) and fits(texts.card_text(contest, locale))
    first = contest.rounds[0].matches[0]
    reporter = contest.pair(first.pairs[0]).user_ids[0]
    contest = report_text(contest, reporter=reporter, text=f"掼蛋{first.pairs[0]}组", now=ON_TIME).contest
    assert fits(texts.standings_text(contest, locale)) and fits(texts.round_text(contest, 1, locale))


def test_a_small_field_still_names_everyone() -> None:
    contest = draw(field(4, 0), now=ON_TIME).contest
    message = texts.draw_message(contest, "zh")
    assert all(p.names.split(" / ")[0] in message for p in contest.pairs)
    assert message.count(long_name(0)) >= 2  # in the list of pairs and in the pairings
