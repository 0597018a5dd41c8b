"""A small 000-E contest through the emulator, from sign-up to the final places.

Four pairs: one pair signs up together, an invitation is declined, the rest sign up alone
(by command and by the card's button) and one withdraws before the draw; the contest card
is edited after each of these. After the draw the organiser moves the deadline (the jobs
are armed again for it), one semi-final is typed as ``掼蛋N组`` (its ▶ button leaves the
pairing message), and the 48-hour reminder (the clock moved, the armed job run) mentions
the other semi-final's four players in the group and writes to each of them privately;
they report with ``/report`` and the opponents confirm. ``/round next at=… place=…`` draws
the final and the 3rd-place match for a fixed time and place: the final is played through
the bot in the players' own group (its lobby names the match), the 3rd-place match is
typed by a player. ``/bracket`` posts the picture and ``/contest close`` announces places
1–3 with their prizes, once.

A second test runs the group in privacy mode: what ``/contest new`` says, ``/report`` and
replies to the pairing message, a partner change refused after the draw (V32), ``/withdraw``
after the draw (a walkover), ``/round close`` with its confirmation, typed reports once the
bot is an administrator or privacy mode is off, and ``/contest wechat`` for an organiser of
two contests. A third checks that a contest command answers "not saved" when the database
is locked.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import storage.backend
from emulator.client import BotMessage, Chat, Emulator, Telegram, User, wait_for
from engine.contest import Contest, ContestMatch, MatchKind, official_line
from tests.e2e.contest_support import (
    BOT,
    CARD,
    Clock,
    FakeWeChat,
    card_shows,
    contest_in,
    details_of,
    near,
    play_table,
    press,
    running_bot,
    sides_of,
    wait_text,
)
from tests.e2e.test_match_e2e import Table, answered_after
from tests.faults import StorageFault

ORGANISER = User(4000, "Olga", username="olga4")
PLAYERS = [User(4001 + i, f"P{i}", username=f"p{i}x") for i in range(8)]
LEAVER = User(4009, "Xena", username="xena9")
CENTRE = Chat.group(-6001, "中心群")
CLUB = Chat.group(-6002, "球友群")


def sides(contest: Contest, match: ContestMatch) -> list[list[User]]:
    return sides_of([ORGANISER, LEAVER, *PLAYERS], contest, match)


def play_buttons(message: BotMessage) -> list[str]:
    return [b.text for row in message.buttons for b in row if b.text.startswith("▶")]


async def sign_up(telegram: Telegram) -> None:
    """P0+P1 as a pair; P2 invites P3, who declines; P2..P7 end up alone; Xena joins and leaves."""
    for player in PLAYERS[1:4]:
        await telegram.send(player, CENTRE, "你好")  # the bot learns @username from what it sees
    await telegram.wait_idle()
    await telegram.send(PLAYERS[0], CENTRE, f"/signup @{PLAYERS[1].username}")
    invitation = await wait_text(telegram, CENTRE, "P0 邀请 P1")
    await press(telegram, PLAYERS[1], invitation, "接受")
    await wait_text(telegram, CENTRE, "P1 接受了邀请")
    await card_shows(telegram, CENTRE, "P0 / P1")
    await telegram.send(PLAYERS[2], CENTRE, f"/signup @{PLAYERS[3].username}")
    invitation = await wait_text(telegram, CENTRE, "P2 邀请 P3")
    await card_shows(telegram, CENTRE, "P2 / P3")
    text, alert = await press(telegram, PLAYERS[4], invitation, "拒绝")
    assert alert, text  # only the invited partner answers
    await press(telegram, PLAYERS[3], invitation, "拒绝")
    await wait_text(telegram, CENTRE, "P3 拒绝了邀请")
    await card_shows(telegram, CENTRE, "P2 （单独报名")
    await telegram.send(PLAYERS[3], CENTRE, "/signup")
    await card_shows(telegram, CENTRE, "P3 （单独报名")
    for player in [*PLAYERS[4:], LEAVER]:
        card = await card_shows(telegram, CENTRE, CARD)
        text, alert = await press(telegram, player, card, "报名")
        assert not alert, text
    await card_shows(telegram, CENTRE, "Xena")
    await telegram.send(LEAVER, CENTRE, "/withdraw")
    await wait_text(telegram, CENTRE, "Xena 已退出")
    card = await card_shows(telegram, CENTRE, "Xena", present=False)
    assert "P7 （单独报名" in card.content


async def play_through_bot(telegram: Telegram, contest: Contest, match: ContestMatch, db_path: Path) -> None:
    sides = sides_of([ORGANISER, LEAVER, *PLAYERS], contest, match)
    await telegram.send(sides[0][0], CLUB, f"/newgame match={match.code}")
    table = Table(telegram, CLUB, db_path)
    lobby = await table.lobby()
    for number in match.pairs:  # the lobby says which contest match it is
        assert f"{number}组" in lobby.content
    assert match.code in lobby.content and contest.name in lobby.content
    await play_table(telegram, table, sides)


async def test_a_small_contest_played_to_its_final_places(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "small.db"
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock) as app:
        await telegram.set_admins(CENTRE, [ORGANISER, BOT])
        for player in PLAYERS:
            await telegram.send(player, Chat.private(player), "/start")
        await telegram.send(ORGANISER, CENTRE, f"/contest new 小杯 deadline={clock.typed(18)}")
        await card_shows(telegram, CENTRE, CARD)
        await sign_up(telegram)

        await telegram.send(ORGANISER, CENTRE, "/draw")
        pairings = await wait_text(telegram, CENTRE, "第 1 轮对阵")
        contest = await contest_in(db_path, CENTRE)
        assert len(contest.pairs) == 4 and sum(p.by_lot for p in contest.pairs) == 3
        assert len(play_buttons(pairings)) == 2
        await card_shows(telegram, CENTRE, "仍在比赛：4 组")  # the card after the draw: no sign-up buttons

        # the deadline moves; its job and the reminders are armed again for it
        await telegram.send(PLAYERS[0], CENTRE, f"/contest deadline {clock.typed(17, '20:00')}")
        await wait_text(telegram, CENTRE, "只有比赛的组织者")
        await telegram.send(ORGANISER, CENTRE, f"/contest deadline {clock.typed(17, '20:00')}")
        await wait_text(telegram, CENTRE, f"{clock.shown(17, '20:00')} Asia/Shanghai")
        closes = clock.local(17, "20:01")
        (job,) = app.job_queue.get_jobs_by_name("contest:1:deadline")
        assert near(clock.due(job), closes)
        reminders = sorted(app.job_queue.get_jobs_by_name("contest:1:remind"), key=lambda j: j.next_t)
        assert [job.data[-1] for job in reminders] == [48 * 3600, 24 * 3600]  # seconds left
        assert near(clock.due(reminders[0]), closes - timedelta(hours=48))
        assert near(clock.due(reminders[1]), closes - timedelta(hours=24))

        # semi-final 1 typed in the group: its ▶ button leaves the pairing message
        first, second = contest.rounds[0].matches
        (winner, _), _losers = sides(contest, first)
        await telegram.send(winner, CENTRE, f"掼蛋{first.pairs[0]}组")
        await telegram.wait_message(CENTRE, lambda m: m.content == f"掼蛋{first.pairs[0]}组", timeout=70)

        async def one_button_left() -> BotMessage | None:
            shown = next(m for m in await telegram.messages(CENTRE) if m.message_id == pairings.message_id)
            return shown if len(play_buttons(shown)) == 1 else None

        pairings = await wait_for(one_button_left, timeout=20, what="the pairing message without ▶ 1")
        assert f"{second.pairs[0]}组" in play_buttons(pairings)[0]
        assert f"{first.code} → {first.pairs[0]}组" in pairings.content  # the result, in the pairings

        # the 48-hour reminder: a mention in the group, a private message to each of the four
        clock.now = closes - timedelta(hours=48) + timedelta(seconds=1)
        await reminders[0].run(app)
        reminder = await wait_text(telegram, CENTRE, "还剩 48 小时")
        owed = [u for side in sides(contest, second) for u in side]
        mentioned = {e["url"] for e in reminder.raw.get("entities", []) if e["type"] == "text_link"}
        assert mentioned == {f"tg://user?id={u.id}" for u in owed}
        for user in owed:
            dm = await wait_text(telegram, Chat.private(user), "还没有结果")
            assert second.code in dm.content
        for user in (u for side in sides(contest, first) for u in side):
            assert not any("⏳" in m.content for m in await telegram.messages(Chat.private(user)))

        # semi-final 2 by /report, confirmed by the opponents
        (reporter, _), (opponent, _) = sides(contest, second)
        await telegram.send(reporter, CENTRE, f"/report 掼蛋{second.pairs[0]}组")
        details = await details_of(telegram, CENTRE, second)
        await press(telegram, opponent, details, "确认")
        await wait_text(telegram, CENTRE, "第 1 轮结束")

        async def no_button_left() -> bool:
            shown = next(m for m in await telegram.messages(CENTRE) if m.message_id == pairings.message_id)
            return not shown.buttons

        await wait_for(no_button_left, timeout=20, what="the pairing message without ▶")

        # round 2 at a fixed time and place: the final through the bot, 3rd place typed
        await telegram.send(ORGANISER, CENTRE, f"/round next at={clock.typed(25, '25:00')} place=6楼会议室")
        await wait_text(telegram, CENTRE, "不是有效的时间")
        await telegram.send(ORGANISER, CENTRE, f"/round next at={clock.typed(25, '14:00')} place=6楼会议室")
        round2 = await wait_text(telegram, CENTRE, "第 2 轮对阵")
        assert f"集中比赛：{clock.shown(25, '14:00')} 6楼会议室" in round2.content
        contest = await contest_in(db_path, CENTRE)
        final = next(m for m in contest.rounds[1].matches if m.kind is MatchKind.MAIN)
        third = next(m for m in contest.rounds[1].matches if m.kind is MatchKind.THIRD_PLACE)
        assert set(final.pairs) == {first.pairs[0], second.pairs[0]}

        await play_through_bot(telegram, contest, final, db_path)
        finished = (await contest_in(db_path, CENTRE)).match_by_code(final.code)
        assert finished.winner is not None
        line = official_line(finished.winner)
        await telegram.wait_message(CENTRE, lambda m: m.content == line, timeout=70)
        (typist, _), _ = sides(contest, third)
        await telegram.send(typist, CENTRE, f"掼蛋{third.pairs[0]}组")
        await wait_text(telegram, CENTRE, "比赛已决出名次")

        await telegram.send(PLAYERS[0], CENTRE, "/bracket")
        bracket = await telegram.wait_message(
            CENTRE, lambda m: m.photo_id is not None and "小杯" in m.content, timeout=70
        )
        assert (await telegram.photo(bracket)).startswith(b"\x89PNG")
        await telegram.send(ORGANISER, CENTRE, "/contest close")
        places = await wait_text(telegram, CENTRE, "比赛结束。最终名次")
        runner_up = final.opponent(finished.winner)
        lines = places.content.splitlines()
        for place, number, prize in (
            (1, finished.winner, "冠军"),
            (2, runner_up, "亚军"),
            (3, third.pairs[0], "季军"),
        ):
            assert any(x.startswith(f"{place}. {number}组") and x.endswith(prize) for x in lines), lines
        before = (await telegram.messages(CENTRE))[-1].message_id
        await telegram.send(ORGANISER, CENTRE, "/contest close")
        await telegram.wait_idle()
        await app.bot_data.services.outbox.join()
        await telegram.wait_message(CENTRE, lambda m: m.message_id > before)  # the second close's answer
        finals = [m for m in await telegram.messages(CENTRE) if "比赛结束。最终名次" in m.content]
        assert len(finals) == 1  # announced once; the second close is answered, not re-posted

        await telegram.send(PLAYERS[1], CENTRE, "/contest list")  # the group remembers it
        past = await wait_text(telegram, CENTRE, "往届比赛")
        assert "小杯" in past.content and f"冠军：{finished.winner}组" in past.content


QUIET = Chat.group(-6011, "隐私群")
OPEN = Chat.group(-6012, "第二群")
SINGLES = [User(4101 + i, f"Q{i}", username=f"q{i}x") for i in range(12)]


def members(contest: Contest, match: ContestMatch) -> list[list[User]]:
    return sides_of(SINGLES, contest, match)


async def reports_of(db_path: Path, chat: Chat, code: str) -> int:
    return len((await contest_in(db_path, chat)).match_by_code(code).facts)


async def test_privacy_mode_withdrawals_round_close_and_the_mirror_of_two_contests(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path
) -> None:
    db_path = tmp_path / "privacy.db"
    wechat = FakeWeChat()
    await wechat.start()
    try:
        async with running_bot(emulator, token, db_path, Clock()):
            await telegram.set_privacy(True)
            await telegram.set_admins(QUIET, [ORGANISER])
            await telegram.send(ORGANISER, QUIET, f"/contest new 隐私杯 deadline={Clock().typed(18)}")
            warning = await wait_text(telegram, QUIET, "读不到普通消息")
            assert "/report 掼蛋3组" in warning.content
            for player in SINGLES:
                card = await telegram.wait_message(
                    QUIET, lambda m: CARD in m.content and bool(m.buttons), timeout=70
                )
                text, alert = await press(telegram, player, card, "报名")
                assert not alert, text
            await telegram.send(ORGANISER, QUIET, "/draw")
            pairings = await wait_text(telegram, QUIET, "第 1 轮对阵")
            contest = await contest_in(db_path, QUIET)
            typed, withdrawn, silent = contest.rounds[0].matches
            (winner, partner), _ = members(contest, typed)

            # privacy mode: a typed line never reaches the bot; /report and a reply do
            await telegram.send(winner, QUIET, f"掼蛋{typed.pairs[0]}组")
            await telegram.wait_idle()
            await answered_after(telegram, winner, QUIET)  # had the line reached the bot, it was handled
            assert await reports_of(db_path, QUIET, typed.code) == 0
            await telegram.send(winner, QUIET, f"/report 掼蛋{typed.pairs[0]}组")
            await telegram.wait_message(QUIET, lambda m: m.content == f"掼蛋{typed.pairs[0]}组", timeout=70)
            await telegram.send(partner, QUIET, f"{typed.pairs[0]}组", reply_to=pairings)
            await wait_text(telegram, QUIET, "已经上报过")

            # after the draw: a partner change is refused (V32); /withdraw is a walkover
            (quitter, _), (stayer, _) = members(contest, withdrawn)
            await telegram.send(quitter, QUIET, f"/signup @{stayer.username}")
            await wait_text(telegram, QUIET, "规则 V32")
            await telegram.send(quitter, QUIET, "/withdraw")
            await wait_text(telegram, QUIET, f"{withdrawn.pairs[0]}组 退出比赛（弃权）")
            await telegram.wait_message(
                QUIET, lambda m: m.content == f"掼蛋{withdrawn.pairs[1]}组", timeout=70
            )

            # /round close asks first; Cancel keeps the round, Close puts the silent pairs out
            await telegram.send(ORGANISER, QUIET, "/round close")
            question = await wait_text(telegram, QUIET, "没有结果的 1 场比赛")
            text, alert = await press(telegram, winner, question, "结束本轮")
            assert alert and "组织者" in text
            await press(telegram, ORGANISER, question, "取消")
            await wait_text(telegram, QUIET, "本轮继续")
            assert (await contest_in(db_path, QUIET)).match_by_code(silent.code).facts == ()
            await telegram.send(ORGANISER, QUIET, "/round close")
            question = await telegram.wait_message(
                QUIET, lambda m: "没有结果的 1 场比赛" in m.content and bool(m.buttons), timeout=70
            )
            await press(telegram, ORGANISER, question, "结束本轮")
            both_out = await wait_text(telegram, QUIET, "两组均出局")
            assert f"{silent.pairs[0]}组" in both_out.content and f"{silent.pairs[1]}组" in both_out.content
            await wait_text(telegram, QUIET, "第 1 轮结束")

            # once the bot is an administrator, a typed line reaches it
            await telegram.set_admins(QUIET, [ORGANISER, BOT])
            await telegram.send(partner, QUIET, f"掼蛋{typed.pairs[0]}组")

            async def stored_thrice() -> bool:  # /report, the reply, the typed line
                return await reports_of(db_path, QUIET, typed.code) == 3

            await wait_for(stored_thrice, timeout=70, what="the typed duplicate stored")
            # its acknowledgement is the same words to the same person: one within the replies'
            # coalescing window is enough (a flood of duplicates gets one answer)
            assert any("已经上报过" in m.content for m in await telegram.messages(QUIET))

            # privacy mode off: /contest new says typed lines are seen, and they are
            await telegram.set_privacy(False)
            await telegram.set_admins(OPEN, [ORGANISER])
            await telegram.send(ORGANISER, OPEN, "/contest new 第二杯")
            await wait_text(telegram, OPEN, "我能读到本群的消息")
            await telegram.send(SINGLES[0], OPEN, "掼蛋3组")
            await wait_text(telegram, OPEN, "还没有抽签")

            # /contest wechat for an organiser of two contests: by button, or by name
            dm = Chat.private(ORGANISER)
            await telegram.send(ORGANISER, dm, "/start")
            await telegram.send(ORGANISER, dm, f"/contest wechat {wechat.url}")
            choice = await wait_text(telegram, dm, "你组织了多个比赛")
            assert [b.text for row in choice.buttons for b in row] == ["隐私杯", "第二杯"]
            await press(telegram, ORGANISER, choice, "第二杯")
            chosen = await wait_text(telegram, dm, "已为 第二杯（群 第二群）设置企业微信同步")
            assert "SECRETKEY123" not in chosen.content
            await telegram.send(ORGANISER, dm, f"/contest wechat 没有这个 {wechat.url}")
            await wait_text(telegram, dm, "没有组织名为“没有这个”")
            await telegram.send(ORGANISER, dm, f"/contest wechat 隐私杯 {wechat.url}")
            await wait_text(telegram, dm, "已为 隐私杯（群 隐私群）设置企业微信同步")
            await wait_for(
                lambda: _mirrored(wechat, ["第二杯", "隐私杯"]), timeout=30, what="both cards mirrored"
            )
    finally:
        await wechat.stop()


async def _mirrored(wechat: FakeWeChat, names: list[str]) -> bool:
    return all(any(name in text for text in wechat.texts) for name in names)


async def test_a_locked_database_answers_not_saved_and_the_deadline_is_applied_later(
    emulator: Emulator, telegram: Telegram, token: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another process holds the database's write lock, a contest command and a contest
    button answer "not saved" (nothing changes), and a deadline job tries again later instead of
    losing its both-out."""
    monkeypatch.setattr(storage.backend, "WRITER_BUSY_TIMEOUT", 0.2)  # the contest writer's busy timeout
    db_path = tmp_path / "locked.db"
    clock = Clock()
    async with running_bot(emulator, token, db_path, clock) as app:
        await telegram.set_admins(CENTRE, [ORGANISER, BOT])
        await telegram.send(ORGANISER, CENTRE, f"/contest new 锁杯 deadline={clock.typed(18)}")
        card = await card_shows(telegram, CENTRE, CARD)
        fault = StorageFault("locked", app.bot_data.services.tables.db, db_path)
        await fault.on()
        try:
            await telegram.send(PLAYERS[0], CENTRE, "/signup")
            await wait_text(telegram, CENTRE, "未保存")
            text, alert = await press(telegram, PLAYERS[1], card, "报名")
            assert alert and "未保存" in text
        finally:
            await fault.off()
        assert (await contest_in(db_path, CENTRE)).entries == ()
        await telegram.send(PLAYERS[0], CENTRE, "/signup")
        await wait_text(telegram, CENTRE, "P0 单独报名")
        for player in PLAYERS[1:4]:
            card = await card_shows(telegram, CENTRE, CARD)
            await press(telegram, player, card, "报名")
        await card_shows(telegram, CENTRE, "P3 （单独报名")
        await telegram.send(ORGANISER, CENTRE, "/draw")
        await wait_text(telegram, CENTRE, "第 1 轮对阵")

        clock.now = clock.after(18)  # just past the deadline
        (armed,) = app.job_queue.get_jobs_by_name("contest:1:deadline")
        await fault.on()
        try:
            await armed.run(app)
        finally:
            await fault.off()
        assert (await contest_in(db_path, CENTRE)).current_round.matches[0].facts == ()
        soon = datetime.now(UTC) + timedelta(minutes=1)
        (retry,) = [j for j in app.job_queue.get_jobs_by_name("contest:1:deadline") if j.next_t < soon]
        await retry.run(app)
        await wait_text(telegram, CENTRE, "两组均出局")
