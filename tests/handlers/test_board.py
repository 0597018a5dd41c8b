"""The group board against a recording fake bot: coalesced redraws, the send budget,
every play and pass shown however fast play goes, a result picture per deal and the
match result at the end."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from telegram.error import BadRequest

from app.table.boards import TEXT_LIMIT, Boards, split_tricks
from app.table.settings import rules_from_args
from app.table.tables import LiveTable, TableService
from app.table.texts import finished_board_text, move_line, play_text
from engine.actions import DealEnded, DealStarted, Event, Passed, Played, TributeGiven, TrickWon
from engine.cards import CARDS, Rank
from engine.match import Match, observe
from engine.rules import Rules
from handlers.platform.outbox import Outbox
from handlers.table import board as board_module
from handlers.table.board import GROUP_LIMIT, BoardPublisher, ChatBudget
from players.easy import choose_action, timeout_action
from render.words import card_text, seat_name
from storage import Database
from tests.raw_edits import RawEdits

FACES = re.compile("|".join(re.escape(card_text(c)) for c in sorted(CARDS, key=lambda c: -len(card_text(c)))))
NAMES = {seat: f"P{seat}" for seat in range(4)}


def publisher(
    bot: Any,
    service: TableService,
    db: Database,
    *,
    text_limit: int = TEXT_LIMIT,
    per_trick: bool = False,
    outbox: Outbox | None = None,
    **kwargs: Any,
) -> BoardPublisher:
    """The board as bot.py builds it: its state and texts (``Boards``) and the outbox of ``db``."""
    boards = Boards(service, db, text_limit=text_limit, per_trick=per_trick)
    return BoardPublisher(bot, boards, outbox=outbox or Outbox(db.outbox), **kwargs)


@dataclass
class Sent:
    kind: str
    at: float
    message_id: int


@dataclass
class FakeBot(RawEdits):
    """Keeps every message's current text; ``public`` gives the card faces the group may see now."""

    public: Callable[[], set[str]] = set
    delete_first: bool = False  # an admin deletes the first board message as soon as it appears
    gone: set[int] = field(default_factory=set)
    sent: list[Sent] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    edits: int = 0
    leaks: list[str] = field(default_factory=list)
    next_id: int = 100

    async def send_message(self, chat_id: int, text: str, **_: Any) -> Any:
        return self._record("text", text)

    async def send_photo(self, chat_id: int, photo: bytes, caption: str = "", **_: Any) -> Any:
        assert photo.startswith(b"\x89PNG")
        return self._record("photo", caption)

    async def edit_message_text(self, text: str, *, message_id: int, **_: Any) -> None:
        assert message_id in self.texts
        if message_id in self.gone:
            raise BadRequest("Message to edit not found")
        self.edits += 1
        self._check(text)
        self.texts[message_id] = text

    def _record(self, kind: str, text: str) -> Any:
        self.next_id += 1
        self._check(text)
        self.sent.append(Sent(kind, time.monotonic(), self.next_id))
        self.texts[self.next_id] = text
        if self.delete_first and kind == "text" and not self.gone:
            self.gone.add(self.next_id)
        return type("Message", (), {"message_id": self.next_id})()

    def _check(self, text: str) -> None:
        leaked = set(FACES.findall(text)) - self.public()
        if leaked:
            self.leaks.append(f"{sorted(leaked)} in {text!r}")

    def most_in_window(self, window: float) -> int:
        times = [s.at for s in self.sent]
        return max(sum(1 for t in times if start <= t < start + window) for start in times)

    def board_lines(self) -> list[str]:
        """The final texts of the text messages, in the order they were sent, line by line."""
        shown = [s.message_id for s in self.sent if s.kind == "text" and s.message_id not in self.gone]
        return [line for message_id in shown for line in self.texts[message_id].split("\n")]


@pytest.fixture
async def db(tmp_path: Path):
    database = await Database.open(tmp_path / "b.db")
    yield database
    await database.close()


async def seated_table(db: Database, seed: int) -> tuple[TableService, LiveTable]:
    """Four seats held by people, so each request applies exactly one action."""
    service = TableService(db, new_seed=lambda: seed)
    _, rules = rules_from_args(["wechat-6-deals", "points_deals=2"])
    table = await service.create(chat_id=-5, creator_id=1, preset="x", rules=rules)
    for seat in range(4):
        await service.take_seat(table, seat=seat, user_id=10 + seat, name=NAMES[seat], locale=None)
    return service, table


async def play_fast(
    service: TableService, table: LiveTable, board: BoardPublisher, published: list[Event], ai: bool = True
) -> int:
    """Every seat acts at once when its turn comes (the AI policy, or the timeout default);
    each stored outcome is published. Returns the number of deals played."""
    outcome = await service.start(table)
    published.extend(outcome.events)
    board.publish(table, outcome.events)
    assert table.match is not None
    while not table.match.is_over:
        seat = table.match.to_act[0]
        obs = observe(table.match, seat)
        action = choose_action(obs, table.rules) if ai else timeout_action(obs)
        outcome = await service.act(table, seat=seat, action=action)
        published.extend(outcome.events)
        board.publish(table, outcome.events)
        await asyncio.sleep(0.001)
    await board.drain(table.id)
    return sum(isinstance(e, DealEnded) for e in published)


def public_faces(events: Sequence[Event]) -> set[str]:
    faces = {card_text(card) for e in events if isinstance(e, Played) for card in e.play.cards}
    return faces | {card_text(e.card) for e in events if isinstance(e, TributeGiven)}


def moves_in_order(events: Sequence[Event]) -> list[str]:
    """Each play and pass of the match as its board line, in order."""
    level, lines = Rank.TWO, []
    for event in events:
        if isinstance(event, DealStarted):
            level = event.level
        elif isinstance(event, Played):
            lines.append(move_line(event.seat, NAMES[event.seat], play_text(event.play, level, "zh"), "zh"))
        elif isinstance(event, Passed):
            lines.append(move_line(event.seat, NAMES[event.seat], "不出", "zh"))
    return lines


def missing_moves(expected: Sequence[str], shown: Sequence[str]) -> list[str]:
    """The expected lines not found, in order, among the shown ones (a play may end with 🏁)."""
    position = 0
    for index, move in enumerate(expected):
        while position < len(shown) and not (
            shown[position] == move or shown[position].startswith(move + " 🏁")
        ):
            position += 1
        if position == len(shown):
            return list(expected[index:])
        position += 1
    return []


async def test_board_keeps_within_the_budget_and_posts_results(db: Database) -> None:
    service, table = await seated_table(db, seed=3)
    bot = FakeBot()
    window, limit = 0.5, 4
    board = publisher(
        bot, service, db, budget=ChatBudget(limit=limit, window=window), interval=0.01, reserve=2
    )  # type: ignore[arg-type]
    deals = await play_fast(service, table, board, [], ai=False)
    assert bot.most_in_window(window) <= limit
    photos = [s for s in bot.sent if s.kind == "photo"]
    assert len(photos) == deals + 1
    assert "🏆" in bot.texts[bot.sent[-1].message_id]
    assert bot.edits > 0


@pytest.mark.parametrize(
    ("limit", "text_limit"),
    [(GROUP_LIMIT - 2, 4096), (3, 1600)],
    ids=["group-limit", "tight-budget-short-messages"],
)
async def test_fast_play_shows_every_play_and_pass_in_order(
    db: Database, limit: int, text_limit: int
) -> None:
    """A minute is scaled to 0.3 s, so the AI plays several moves per scaled second: tricks
    start and end between two redraws, and with the tight budget the live message grows
    over many tricks and splits at the length limit."""
    service, table = await seated_table(db, seed=5)
    published: list[Event] = []
    bot = FakeBot(public=lambda: public_faces(published))
    window = 0.3
    board = publisher(
        bot,
        service,
        db,
        budget=ChatBudget(limit=limit, window=window),
        interval=0.02,
        reserve=1,
        text_limit=text_limit,
    )  # type: ignore[arg-type]
    await play_fast(service, table, board, published)
    assert table.match is not None
    assert missing_moves(moves_in_order(table.match.events), bot.board_lines()) == []
    assert bot.leaks == []
    assert bot.most_in_window(window) <= min(limit, GROUP_LIMIT)
    texts = [bot.texts[s.message_id] for s in bot.sent if s.kind == "text"]
    assert max(len(text) for text in texts) <= text_limit
    assert max(text.count("✔") for text in texts) >= 2  # a message that covers several tricks
    assert not any("⏳" in text for text in texts)  # every message ended with exactly its tricks


async def test_a_deleted_board_message_is_replaced_without_losing_plays(db: Database) -> None:
    service, table = await seated_table(db, seed=5)
    bot = FakeBot(delete_first=True)
    board = publisher(bot, service, db, budget=ChatBudget(limit=3, window=0.3), interval=0.02)  # type: ignore[arg-type]
    await play_fast(service, table, board, [])
    assert table.match is not None
    assert bot.gone
    assert missing_moves(moves_in_order(table.match.events), bot.board_lines()) == []


def test_tricks_are_split_by_length_without_dropping_any() -> None:
    sizes = [50, 400, 300, 700, 100, 100]
    assert split_tricks(sizes, 0, 5, 800) == [(0, 2), (3, 4), (5, 5)]
    assert split_tricks(sizes, 1, 4, 500) == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert split_tricks(sizes, 3, 3, 100) == [(3, 3)]


def test_plays_and_passes_use_one_separator_per_language() -> None:
    """名字：顺子 … and 名字：不出 alike (full-width in Chinese, ": " in English)."""
    match = Match.new(Rules.default(), seed=7)
    events = list(match.events)
    while not any(isinstance(e, TrickWon) for e in events):
        seat = match.to_act[0]
        events += match.apply(seat, choose_action(observe(match, seat), match.rules))
    moves = [e for e in events if isinstance(e, Played | Passed)]
    assert any(isinstance(e, Passed) for e in moves)
    for locale, colon, other in (("zh", "：", ": "), ("en", ": ", "：")):
        text = finished_board_text(
            heading="", events=events, first=0, last=0, tributes=(), names=NAMES, locale=locale
        )
        lines = text.split("\n")
        prefixes = tuple(f"{seat_name(seat, locale)} P{seat}{colon}" for seat in range(4))
        assert len([line for line in lines if line.startswith(prefixes)]) == len(moves)
        assert not any(other in line for line in lines if line.startswith(prefixes))
        assert lines[-1].startswith("✔")


async def test_a_six_deal_match_costs_the_group_at_most_three_messages_a_deal(db: Database) -> None:
    """The default board: one message per deal edited in place (two only past the length limit)
    and the deal's result; the older per-trick style spends several times that (issue 17)."""
    counts = {}
    for per_trick in (False, True):
        service = TableService(db, new_seed=lambda: 11)
        _, rules = rules_from_args(["wechat-6-deals"])
        table = await service.create(chat_id=-7 - per_trick, creator_id=1, preset="x", rules=rules)
        for seat in range(4):
            await service.take_seat(table, seat=seat, user_id=20 + seat, name=NAMES[seat], locale=None)
        bot = FakeBot()
        board = publisher(
            bot,  # type: ignore[arg-type]
            service,
            db,
            budget=ChatBudget(limit=18, window=0.3),
            interval=0.02,
            per_trick=per_trick,
        )
        deals = await play_fast(service, table, board, [])
        await board.outbox.join()
        assert deals == 6
        counts[per_trick] = len(bot.sent)
        if not per_trick:
            assert all("🃏" in bot.texts[s.message_id] for s in bot.sent if s.kind == "text")
            assert len(bot.sent) <= 3 * deals and bot.edits > deals
    assert counts[True] > 2 * counts[False]


async def paced_play(service: TableService, table: LiveTable, board: BoardPublisher, pause: float) -> None:
    """The AI's moves ``pause`` seconds apart, each published: a pace the redraws can follow."""
    outcome = await service.start(table)
    board.publish(table, outcome.events)
    assert table.match is not None
    while not table.match.is_over:
        seat = table.match.to_act[0]
        action = choose_action(observe(table.match, seat), table.rules)
        board.publish(table, (await service.act(table, seat=seat, action=action)).events)
        await asyncio.sleep(pause)
    await board.drain(table.id)


@pytest.mark.parametrize("everyone_in_miniapp", [False, True])
async def test_the_board_redraws_less_while_every_seat_is_in_the_mini_app(
    db: Database, monkeypatch: pytest.MonkeyPatch, everyone_in_miniapp: bool
) -> None:
    """No player needs the board: it waits ``UNWATCHED_INTERVAL`` between redraws, and still
    shows every play and pass of the match in order, each deal's result and the match's end."""
    monkeypatch.setattr(board_module, "UNWATCHED_INTERVAL", 0.25)
    monkeypatch.setattr(board_module, "UNWATCHED_STEP", 0.01)
    service, table = await seated_table(db, seed=5)
    bot = FakeBot()
    board = publisher(bot, service, db, budget=ChatBudget(limit=1000, window=1.0), interval=0.02)  # type: ignore[arg-type]
    board.unwatched = lambda _table: everyone_in_miniapp
    await paced_play(service, table, board, pause=0.005)
    assert table.match is not None
    assert missing_moves(moves_in_order(table.match.events), bot.board_lines()) == []
    deals = sum(isinstance(e, DealEnded) for e in table.match.events)
    assert len([s for s in bot.sent if s.kind == "photo"]) == deals + 1
    seconds = bot.sent[-1].at - bot.sent[0].at
    redraws = bot.edits + len([s for s in bot.sent if s.kind == "text"])
    if everyone_in_miniapp:  # one a quarter second, and one more for each deal's end
        assert redraws <= seconds / 0.25 + 3 * deals + 2
    else:
        assert redraws > seconds / 0.25 + 3 * deals + 2
