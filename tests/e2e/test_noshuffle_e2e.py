"""不洗牌 at a real table: two people and two computer players play a two-deal match with
``shuffle=none`` through the emulator; the second deal's hands are the first deal's table
gathered, cut and dealt (engine.dealing), and /rules tells the group how."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from emulator.client import Chat, Emulator, Telegram
from engine import dealing
from engine.actions import DealEnded, DealStarted, Played
from engine.cards import Card, Rank
from engine.match import Match, deal_seed
from engine.variants import ShuffleProcedure
from tests.e2e.test_match_e2e import (
    ALICE,
    BOB,
    PINNED_MATCH,
    SINGLE_DOWN_SEED,
    Table,
    assert_clean_finish,
    play_out,
    running_bot,
    set_up,
)
from tests.e2e.test_records_e2e import stored_match


def second_deal_expected(match: Match) -> list[Counter[Card]]:
    """Deal 2's hands rebuilt from deal 1's public record alone (deal 1 has no tribute)."""
    first = Match.new(match.rules, match.seed)
    dealt = [Counter(first.hand(seat)) for seat in range(4)]
    played: list[Card] = []
    order: tuple[int, ...] = ()
    for event in match.events:
        if isinstance(event, Played):
            played.extend(event.play.cards)
            dealt[event.seat] -= Counter(event.play.cards)
        elif isinstance(event, DealEnded):
            order = event.finish_order
            break
    held = [list(left.elements()) for left in dealt]
    hands = dealing.unshuffled_hands(played, held, order, Rank.TWO, random.Random(deal_seed(match.seed, 2)))
    return [Counter(hand) for hand in hands]


def second_deal_dealt(match: Match) -> list[Counter[Card]]:
    """Deal 2's hands as the bot dealt them: the replay stopped at deal 2's DealStarted."""
    history = match.history
    for length in range(len(history) + 1):
        partial = Match.replay(match.rules, match.seed, history[:length])
        if any(isinstance(e, DealStarted) and e.deal_number == 2 for e in partial.events):
            return [Counter(partial.hand(seat)) for seat in range(4)]
    raise AssertionError("the match never reached deal 2")


async def test_a_no_shuffle_table_deals_the_second_deal_from_the_first_ones_table(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
):
    table = Table(telegram, Chat.group(-4901, "不洗牌桌"), tmp_path / "g.db")
    async with running_bot(emulator, token, table.db_path, seed=SINGLE_DOWN_SEED):
        await set_up(telegram, table, [ALICE, BOB], PINNED_MATCH + " shuffle=none")
        assert "不洗牌" in (await table.lobby()).content
        await play_out(table, [ALICE, BOB])
        await assert_clean_finish(telegram, table)
        await telegram.send(ALICE, Chat.private(ALICE), "/rules")
        rules = await telegram.wait_message(Chat.private(ALICE), lambda m: "shuffle=none" in m.content)
        assert "每次发 9 张" in rules.content
    match = await stored_match(table.db_path)
    assert match.rules.shuffle is ShuffleProcedure.NONE
    assert second_deal_dealt(match) == second_deal_expected(match)
    shuffled = dealing.shuffled_hands(random.Random(deal_seed(match.seed, 2)))
    assert second_deal_dealt(match) != [Counter(hand) for hand in shuffled]
