"""Run the Guandan bot: ``make run`` (needs TELEGRAM_BOT_TOKEN); ``make demo`` plays on an emulator.

Environment: ``TELEGRAM_BOT_TOKEN`` (from @BotFather), ``GUANDAN_DB`` (SQLite file,
default ``./guandan.db``), ``TELEGRAM_API_BASE`` (optional Bot API base URL, e.g. an
emulator's ``http://127.0.0.1:PORT/bot``). Updates come by long polling unless
``TELEGRAM_WEBHOOK_URL`` is set: then by webhook (``handlers/platform/webhook.py``, which
requires ``TELEGRAM_WEBHOOK_SECRET``). ``GUANDAN_METRICS_PORT`` serves ``/healthz`` and
``/metrics`` on that port (``handlers/platform/monitor.py``; ``GUANDAN_METRICS_LISTEN``, default
127.0.0.1, is the address it listens on); docs/operations.md.

With ``GUANDAN_DB`` a PostgreSQL URL, several processes may run for one token: the one
holding the token's lease leads, the others stand by and take over when it dies
(``handlers/platform/leader.py``, docs/postgresql.md); a leader that loses its lease exits
with status 75 for its supervisor to start it again, as a standby.

On start every unfinished table resumes: its match is replayed from the action
log, the turn clocks are re-armed and each player's hand message is refreshed,
which makes buttons from before the restart stale (they answer so, never act).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import gc
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from telegram import BotCommand, Update
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    Defaults,
    MessageHandler,
    filters,
)

from app.contest.service import Clock
from app.contest.store import ContestStore, StoreBusy
from app.i18n import normalize_locale
from app.minutes import GroupMinutes
from app.records.coaching import Coach
from app.records.desk import RecordDesk
from app.records.keeper import RecordKeeper
from app.records.players import PlayerRecords
from app.records.replays import Replays
from app.table.boards import Boards
from app.table.refusals import TableRefusal
from app.table.spectators import Spectators
from app.table.tables import DEFAULT_CAPACITY, TableService
from app.table.texts import N_, _, error_text, quarantined_text, too_many_text
from app.table.thinking import yield_to_the_loop
from common import metrics
from handlers import general
from handlers.contest import commands as contest_commands
from handlers.contest import sheets as contest_sheets
from handlers.contest import tables as contest_tables
from handlers.contest.desk import ContestDesk
from handlers.platform.chats import ChatFairProcessor, ChatReplies, MessagesOnlyLimiter
from handlers.platform.context import BotData, Context, Services
from handlers.platform.leader import serve
from handlers.platform.locales import reply_locale
from handlers.platform.monitor import Monitor, MonitorConfig
from handlers.platform.outbox import Outbox, Payload, Sender
from handlers.platform.scheduler import GROUP_LIMIT, PriorityLimiter, priority_limiter
from handlers.platform.sender import TrackingLimiter
from handlers.platform.transport import AiohttpRequest, UpdatesRequest
from handlers.platform.webhook import WebhookConfig, run_webhook
from handlers.records import commands as records
from handlers.table import flow, lobby, members, play, spectators, timers
from handlers.table.answers import refuse
from handlers.table.board import BoardPublisher
from handlers.table.miniapp import open_miniapp
from handlers.table.spectators import SpectatorDesk
from storage import Database, StorageUnavailable, TableStatus
from storage.backend import is_postgresql
from storage.database import default_path
from storage.lease import Lease, bot_id_of
from storage.postgresql import ONE_BOT, Session

log = logging.getLogger("guandan")

App = Application[Any, Context, dict[Any, Any], dict[Any, Any], BotData, Any]

NO_TOKEN = """\
TELEGRAM_BOT_TOKEN is not set.

1. In Telegram, open @BotFather, send /newbot and follow the steps; it replies with a token.
2. Run:  TELEGRAM_BOT_TOKEN=<that token> make run
   (the database is ./guandan.db unless GUANDAN_DB names another file)

No Telegram account at hand? `make demo` plays a deal against a local emulator.
"""

COMMANDS = (
    ("newgame", N_("open a table")),
    ("stop", N_("stop the table")),
    ("lang", N_("language: zh|en")),
    ("rules", N_("rule presets")),
    ("fourcolor", N_("four-colour suits")),
    ("autopass", N_("pass by itself when nothing beats")),
    ("arrange", N_("bombs set apart in your hand picture")),
    ("contest", N_("contest: card, help, new")),
    ("signup", N_("sign up for the contest")),
    ("report", N_("report a contest result: 掼蛋3组")),
    ("leave", N_("ask for leave from the contest (请假)")),
    ("late", N_("organiser: a pair came late (CODE GROUP MINUTES)")),
    ("standings", N_("contest standings")),
    ("stats", N_("a player's record: /stats [@user]")),
    ("top", N_("the group's ranking")),
    ("history", N_("last matches, replays and transcripts")),
    ("help", N_("help")),
    ("start", N_("start the private chat")),
)
"""The command menu: Chinese for everyone, English for Telegram apps set to English."""


CONNECTIONS = 16
"""Requests to the Bot API in flight at once. The rate limiter lets about 30 a second
through (plus the unlimited callback answers); a round trip to Telegram takes well under
a second, so a few dozen connections would already be idle most of the time."""


MALLOC_ARENAS = 2
"""glibc gives each thread that allocates its own malloc arena and rarely returns their
memory; the render pool's picture buffers then kept RSS growing. Two arenas suffice for
the event loop, the render pool and the database thread."""

MMAP_THRESHOLD = 128 * 1024
"""Allocations of this size and more get pages of their own, returned when freed. glibc's
default starts here but rises to the largest block freed so far (up to 32 MiB): after the first
hand picture (a few MiB of pixels) was drawn and freed, every later one came from the heap,
whose freed holes stay resident. Fixed at 128 KiB, the bot's RSS at 100 busy tables grew
0.88 MiB a table instead of 1.10–1.30 (bench/load.py)."""


def tune_malloc() -> None:
    """Cap glibc's malloc arenas and fix its mmap threshold before any thread starts (no-op
    elsewhere). Process-wide: called by :func:`main` and the benchmarks (:mod:`bench.tuned`),
    not by :func:`build_application`."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.mallopt(-8, MALLOC_ARENAS)  # M_ARENA_MAX
    libc.mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD (also stops its dynamic rise)


SWITCH_INTERVAL = 0.0005
"""Seconds a thread may hold the GIL while another waits for it (Python's default: 0.005).
The event loop gives the GIL up at every socket call; with a render or computer-player
thread busy, taking it back cost up to 5 ms each time, several times a press."""


def prefer_the_loop() -> None:
    """Shorten the GIL's switch interval (:data:`SWITCH_INTERVAL`). Process-wide: called by
    :func:`main` and the benchmarks (:mod:`bench.tuned`), not by :func:`build_application`."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def build_application(
    token: str,
    *,
    db_path: str,
    base_url: str | None = None,
    base_file_url: str | None = None,
    board_interval: float = 3.0,
    rate_limiter: bool = True,
    group_per_minute: int = GROUP_LIMIT,
    after_open: Callable[[], None] | None = None,
    monitor: MonitorConfig | None = None,
    lease: Lease | None = None,
) -> App:
    """The bot's Application, handlers registered; services open in ``post_init``.

    ``group_per_minute`` is the group budget the scheduler spends (Telegram's 20; functional
    tests that are not about the budget give more, so a small test group is not a full one).
    ``after_open`` runs once the services are open (``main`` settles the heap there);
    ``monitor``: where ``/healthz`` and ``/metrics`` are served (None: not at all).
    ``lease``: one of several processes for this token (PostgreSQL): every Bot API request
    waits for it and is refused without it, and the store's sessions are fenced by it."""

    async def post_init(app: App) -> None:
        session = lease.session if lease is not None else ONE_BOT
        await open_services(app, db_path=db_path, board_interval=board_interval, session=session)
        if monitor is not None:
            start_monitor(app, monitor)
        if after_open is not None:
            after_open()

    context_types = ContextTypes(context=Context, bot_data=BotData)
    requests = AiohttpRequest(connections=CONNECTIONS), UpdatesRequest(connections=1)
    for request in requests:
        request.admit = lease.admit if lease is not None else None
        request.fence = lease.fenced if lease is not None else None
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
        Application.builder()
        .token(token)
        .context_types(context_types)
        .concurrent_updates(ChatFairProcessor())  # a flooded chat holds at most a few slots
        .defaults(Defaults(block=True))
        .post_init(post_init)
        .post_stop(stop_sending)
        .post_shutdown(close_services)
        .request(requests[0])
        .get_updates_request(requests[1])
    )
    if rate_limiter:
        limiter = PriorityLimiter(group_limit=group_per_minute)
        builder = builder.rate_limiter(TrackingLimiter(MessagesOnlyLimiter(limiter)))
    if base_url:
        builder = builder.base_url(base_url)
        builder = builder.base_file_url(base_file_url or base_url.replace("/bot", "/file/bot"))
    app: App = builder.build()
    register_handlers(app)
    return app


def start_monitor(app: App, config: MonitorConfig) -> Monitor:
    """Serve ``/healthz`` and ``/metrics`` for the open services; :func:`close_services` stops it."""
    services = app.bot_data.services
    limiter = priority_limiter(app.bot.rate_limiter)
    metrics.watch(open_tables=services.tables.open_tables, waiting=limiter.queued if limiter else None)
    monitor = Monitor(asyncio.get_running_loop(), services, app.bot.get_me)
    monitor.start(config.port, config.host)
    services.monitor = monitor
    return monitor


def table_capacity(setting: str | None) -> int | None:
    """``GUANDAN_MAX_TABLES``: the tables open at once beyond which /newgame says the bot is
    busy (unset: the measured default; 0: no limit)."""
    if setting is None or not setting.strip():
        return DEFAULT_CAPACITY
    try:
        value = int(setting)
    except ValueError:
        log.warning("GUANDAN_MAX_TABLES=%r is not a number: using %d", setting, DEFAULT_CAPACITY)
        return DEFAULT_CAPACITY
    return value if value > 0 else None


async def open_services(
    app: App,
    *,
    db_path: str,
    board_interval: float = 3.0,
    clock: Clock | None = None,
    session: Session = ONE_BOT,
) -> None:
    """Open the database, build the services and resume unfinished tables.

    ``run_polling`` calls this as ``post_init``; an embedding (tests, the demo) calls
    it after ``app.initialize()``. ``clock`` is the contests' time (tests move it): given
    here, it is the time the resumed contests' deadlines and clocks are armed by. The
    store's rows are this bot's (its id is the token's first part: several bots may share a
    PostgreSQL store); ``session`` names and guards its PostgreSQL sessions (the lease).
    """
    await app.initialize()
    db = await Database.open(db_path, bot_id=bot_id_of(app.bot.token), session=session)
    minutes = GroupMinutes(db.group_sends)
    limiter = priority_limiter(app.bot.rate_limiter)
    if limiter is not None:  # before anything is sent: each group's minute goes on where it was
        await minutes.restore(limiter)
    tables = TableService(db, capacity=table_capacity(os.environ.get("GUANDAN_MAX_TABLES")))
    renderer = ThreadPoolExecutor(max_workers=2, thread_name_prefix="render", initializer=yield_to_the_loop)
    per_trick = os.environ.get("GUANDAN_BOARD", "deal").strip().lower() == "trick"
    board = BoardPublisher(
        app.bot,
        Boards(tables, db, per_trick=per_trick),
        outbox=Outbox(db.outbox),
        interval=board_interval,
        renderer=renderer,
        limiter=limiter,
    )
    replies = ChatReplies(board.budget, notice=too_many_text)
    contests = ContestDesk(
        app.bot, ContestStore(db), board.outbox, board.budget, renderer, job_queue=app.job_queue
    )
    if clock is not None:
        contests.clock = clock
    # a contest table's result reports itself; its lobby names its match
    tables.finished_hooks.append(contests.bot_tables.on_table_finished)
    tables.lobby_headings.append(contests.bot_tables.lobby_heading)
    keeper = RecordKeeper(db)
    tables.finished_hooks.append(keeper.on_table_finished)  # a finished match's record and ratings
    contests.time_up_hooks.append(contest_sheets.time_up_hook(contests))  # a table's time-up on its sheet
    app.bot_data.open(
        Services(
            db=db,
            tables=tables,
            board=board,
            bot_username=app.bot.username,
            renderer=renderer,
            replies=replies,
            contests=contests,
            records=RecordDesk(keeper, Replays(db), Coach(db), PlayerRecords(db)),
            job_queue=app.job_queue,
            unreachable=members.unreachable,
            minutes=minutes,
        )
    )
    spectators = Spectators(db, board, interval=board_interval)  # 观战
    watchers = SpectatorDesk(app.bot, app.bot_data.services.sender, spectators)
    app.bot_data.services.spectators = spectators
    board.extras = watchers.board_extras
    board.outbox.register(
        members.AWAY_NOTICE, members.away_sender(app.bot, app.bot_data.services.languages, board.budget)
    )
    board.outbox.register(QUARANTINE_NOTICE, quarantine_sender(app))
    await board.expect_left()  # a result the outbox resends waits for its deal's board to close
    await board.outbox.start()  # what the last run stored and never sent goes out first
    for locale, language_code in (("zh", None), ("en", "en")):
        menu = [BotCommand(name, _(text, locale)) for name, text in COMMANDS]
        await app.bot.set_my_commands(menu, language_code=language_code)
    await resume_tables(app)
    # GUANDAN_WEBAPP_URL: pages served once the tables are back (a page's hello finds its seat)
    await open_miniapp(app.bot, app.bot_data.services, app.job_queue, os.environ, lease_check=session.check)
    await board.finish_left()
    app.bot_data.services.backfill = asyncio.create_task(backfill_records(keeper))
    await contests.resume()  # deadline and reminder jobs re-armed from storage


def settle_heap() -> None:
    """Freeze what exists once the services are open and collect young objects less often.

    The cyclic collector stops the event loop, and every press in flight waits: at 100
    tables full collections took up to ~90 ms and the middle generation 5-18 ms, several
    times a second (bench/load.py). What exists now (modules, PTB, fonts, card sprites,
    resumed tables) lives as long as the bot: frozen, no collection scans it again. A
    press's garbage is freed by reference counting; collecting young objects every 10,000
    allocations instead of 700 means the objects of pending requests rarely survive into
    older generations. With both, no collection over 5 ms was seen during play.

    Process-wide, so :func:`main` calls it (and the benchmarks, :mod:`bench.tuned`), never a
    library function that tests or an embedding call."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


async def backfill_records(keeper: RecordKeeper) -> None:
    """Records for finished matches stored before records existed (or whose hook failed):
    in the background, as it replays each such log once (``bench/records.py`` times it)."""
    try:
        done = await keeper.backfill()
    except Exception:
        log.exception("the records back-fill failed; it runs again on the next start")
        return
    if done.written or done.skipped:
        log.info(
            "records back-filled: %s matches (%s skipped), %.0f/s", done.written, done.skipped, done.rate
        )


async def stop_sending(app: App) -> None:
    """Before the HTTP session closes: unsent replies, hand edits and contest refreshes are
    dropped, the outbox keeps its rows, and the boards stop redrawing (a redraw or an edit shows stored state;
    queued behind the scheduler when the session closed, each one failed with a traceback)."""
    if not app.bot_data.is_open:  # closed already, or never opened (an embedding's own app)
        return
    services = app.bot_data.services
    if services.miniapp is not None:  # its pages reconnect to the next process
        await services.miniapp.close()
    await services.sender.close()
    await services.tasks.close()
    if services.contests is not None:
        await services.contests.stop_sending()
    await services.board.close()
    if services.spectators is not None:
        await services.spectators.close()
    await services.replies.close()
    await services.outbox.close()


async def close_services(app: App) -> None:
    """Undo :func:`open_services`, the ``app.initialize()`` it made included.

    ``run_polling`` calls this as ``post_shutdown``, when the application is already shut
    down; an embedding that only opened services (tests, benches) had its HTTP session left
    open, and its garbage collection logged "Unclosed client session" during a later test.
    """
    services = app.bot_data.close()
    if services is not None:
        if services.monitor is not None:
            services.monitor.stop()
        if services.miniapp is not None:
            await services.miniapp.close()
        if services.backfill is not None:
            services.backfill.cancel()
            await asyncio.gather(services.backfill, return_exceptions=True)
        await services.board.close()
        if services.spectators is not None:
            await services.spectators.close()
        await services.replies.close()
        await services.outbox.close()
        if services.contests is not None:
            await services.contests.close()
        services.renderer.shutdown(wait=True)
        await services.tables.thinking.close()
        if services.records is not None:
            await services.records.close()
        if services.minutes is not None:
            await services.minutes.close(priority_limiter(app.bot.rate_limiter))
        await services.close_store()
    await app.shutdown()  # returns at once if already shut down


NEW_MESSAGES = filters.UpdateType.MESSAGE
"""Commands and typed reports are read from new messages only. An edit of an old message is
ignored (PTB's default would take ``edited_message`` like a new one: editing last week's
``掼蛋3组`` line, or a ``/newgame``, would act again); README.md ("Commands") and docs/contests.md
say so."""


def register_handlers(app: App) -> None:
    match_game = filters.Regex(r"(?i)\bmatch=") & NEW_MESSAGES
    app.add_handler(CommandHandler("newgame", contest_tables.new_match_game, match_game))
    app.add_handler(CommandHandler("newgame", lobby.new_game, NEW_MESSAGES))
    watch_link = filters.Regex(rf"^/start(@\w+)? {spectators.WATCH_START}") & NEW_MESSAGES
    app.add_handler(CommandHandler("start", spectators.on_start_watch, watch_link))
    app.add_handler(CommandHandler("start", lobby.start, NEW_MESSAGES))
    app.add_handler(CommandHandler("stop", lobby.stop, NEW_MESSAGES))
    app.add_handler(CommandHandler("lang", general.lang, NEW_MESSAGES))
    app.add_handler(CommandHandler("help", general.help_command, NEW_MESSAGES))
    app.add_handler(CommandHandler("rules", general.rules_command, NEW_MESSAGES))
    app.add_handler(CommandHandler("fourcolor", general.four_color, NEW_MESSAGES))
    app.add_handler(CommandHandler("autopass", general.auto_pass, NEW_MESSAGES))
    app.add_handler(CommandHandler("arrange", general.arrange, NEW_MESSAGES))
    contest_handlers(app)
    record_handlers(app)
    app.add_handler(MessageHandler(filters.StatusUpdate.LEFT_CHAT_MEMBER, members.on_left_message))
    app.add_handler(MessageHandler(filters.StatusUpdate.NEW_CHAT_MEMBERS, members.on_joined_message))
    app.add_handler(ChatMemberHandler(members.on_chat_member, ChatMemberHandler.CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(members.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(CallbackQueryHandler(play.on_hand_press, pattern=r"^h:"))
    app.add_handler(CallbackQueryHandler(lobby.on_lobby_press, pattern=r"^[ls]:"))
    app.add_handler(CallbackQueryHandler(spectators.on_watch_press, pattern=r"^w:"))
    app.add_handler(CallbackQueryHandler(contest_sheets.on_sheet_press, pattern=r"^k:(so|sh):"))
    app.add_handler(CallbackQueryHandler(contest_commands.on_contest_press, pattern=r"^k:"))
    app.add_handler(CallbackQueryHandler(unknown_button))
    app.add_error_handler(on_error)


def record_handlers(app: App) -> None:
    """Match records (handlers/records): /stats, /top, /history, /forgetme and their buttons."""
    who = MessageHandler(filters.COMMAND & NEW_MESSAGES, records.note_sender)  # who @name is
    app.add_handler(who, group=-1)
    for name, callback in (
        ("stats", records.stats_command),
        ("top", records.top_command),
        ("history", records.history_command),
        ("forgetme", records.forgetme_command),
    ):
        app.add_handler(CommandHandler(name, callback))
    app.add_handler(CallbackQueryHandler(records.on_record_press, pattern=r"^r:"))


def contest_handlers(app: App) -> None:
    """Contests (handlers/contest): commands, and typed 掼蛋3组 lines in groups."""
    for name, callback in contest_commands.COMMANDS:
        app.add_handler(CommandHandler(name, callback, NEW_MESSAGES))
    typed = filters.TEXT & ~filters.COMMAND & filters.ChatType.GROUPS & NEW_MESSAGES
    app.add_handler(MessageHandler(typed, contest_commands.on_group_text))


async def unknown_button(update: Update, context: Context) -> None:
    """Buttons this bot never made (or from an older version of it)."""
    if update.callback_query is not None:
        await refuse(update.callback_query, TableRefusal.BAD_BUTTON, "zh")


async def on_error(update: object, context: Context) -> None:
    """An update whose handler failed still gets an answer: "not saved, try again" when storage
    was unavailable, otherwise a short apology (the traceback goes to the log, never the chat)."""
    error = context.error
    unsaved = isinstance(error, StorageUnavailable | StoreBusy)  # StoreBusy: app/contest's word for it
    if not unsaved:
        log.error("update %s failed", update, exc_info=error)
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    code = TableRefusal.NOT_SAVED if unsaved else TableRefusal.INTERNAL
    try:
        locale = await _error_locale(update, context)
        if update.callback_query is not None:
            await refuse(update.callback_query, code, locale)
        elif update.effective_message is not None:
            await update.effective_message.reply_text(error_text(code, locale))
    except TelegramError as failed:  # answered already, or Telegram is the trouble
        log.info("no error answer for update %s: %s", update.update_id, failed)


async def _error_locale(update: Update, context: Context) -> str:
    """The answer's language; the default when storage cannot even tell that."""
    try:
        languages = context.services.languages
        if update.callback_query is not None:
            return await languages.of_user(update.callback_query.from_user.id)
        assert update.effective_chat is not None
        return await reply_locale(languages, update.effective_chat)
    except (StorageUnavailable, RuntimeError):
        return normalize_locale(None)


RESTORE_RETRY_SECONDS = 10.0
"""How soon tables that could not be read on start (storage unavailable) are tried again."""

QUARANTINE_NOTICE = "table_quarantined"
"""Outbox kind: the group's one notice that its table could not be resumed."""


async def resume_tables(app: App, only: list[int] | None = None) -> None:
    """Replay every unfinished table, let bots catch up, refresh hands, re-arm clocks.

    A table that fails to load, replay or re-arm is quarantined (logged with its traceback)
    and its group told once; every other table resumes, so one broken table never keeps
    the bot from starting. A table that cannot be read because storage is unavailable is
    not broken: it is tried again in :data:`RESTORE_RETRY_SECONDS`.
    """
    services = app.bot_data.services
    restored = await services.tables.restore_all(only)
    broken = list(restored.quarantined)
    for table in restored.tables:
        if table.record.status is not TableStatus.PLAYING:
            continue
        try:
            async with table.lock:
                outcome = await services.tables.resume(table)
                await flow.show(app.bot, services, app.job_queue, table, outcome)
        except TelegramError as error:  # Telegram's trouble, not the table's: it plays on
            log.warning("table %s resumed but not shown: %s", table.id, error)
        except Exception as error:
            if app.job_queue is not None:
                timers.cancel(app.job_queue, table.id)
            broken.append(await services.tables.quarantine(table.id, table.record.chat_id, error))
            continue
        log.info("resumed table %s at version %s", table.id, table.version)
    for closed in broken:
        services.outbox.post(
            closed.chat_id, QUARANTINE_NOTICE, {"table": closed.id}, key=f"quarantined:{closed.id}"
        )
    if restored.deferred and app.job_queue is not None:
        app.job_queue.run_once(_resume_deferred, RESTORE_RETRY_SECONDS, data=restored.deferred)


async def _resume_deferred(context: Context) -> None:
    assert context.job is not None and isinstance(context.job.data, list)
    await resume_tables(cast(App, context.application), only=context.job.data)


def quarantine_sender(app: App) -> Sender:
    """Sends :data:`QUARANTINE_NOTICE` rows in the group's language of the moment (plain text)."""

    async def send(chat_id: int, payload: Payload) -> None:
        services = app.bot_data.services
        text = quarantined_text(await services.languages.of_chat(chat_id))
        await services.board.budget.acquire(chat_id)
        await app.bot.send_message(chat_id, text)

    return send


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)  # a line per turn-timer job otherwise
    token = os.environ.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        webhook = WebhookConfig.from_env(os.environ)
        monitor = MonitorConfig.from_env(os.environ)
    except ValueError as error:  # WebhookConfigError included
        print(error, file=sys.stderr)
        return 2
    tune_malloc()  # before any thread starts
    prefer_the_loop()
    db_path = default_path()
    if is_postgresql(db_path):
        return serve_with_lease(token, db_path, webhook, monitor)
    app = build_application(
        token,
        db_path=db_path,
        base_url=os.environ.get("TELEGRAM_API_BASE") or None,
        after_open=settle_heap,
        monitor=monitor,
    )
    if webhook is None:
        app.run_polling(allowed_updates=Update.ALL_TYPES, close_loop=False)
    else:
        log.info("webhook mode: %s, served on %s:%s", webhook.url, webhook.listen, webhook.port)
        run_webhook(app, webhook)
    close_loop(asyncio.get_event_loop())
    return 0


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Close the loop the stopped bot ran on. Every service cancels and awaits the tasks it
    started (``app/tasks.py``), so none should be left: one that is was forgotten by its owner,
    and is named in an ERROR line (asyncio would destroy it silently if something still held
    it, or log "Task was destroyed" if nothing did), then cancelled and awaited."""
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        log.error("task left running after the stop: %r", task)
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


def serve_with_lease(
    token: str, db_path: str, webhook: WebhookConfig | None, monitor: MonitorConfig | None
) -> int:
    """On PostgreSQL: one of several processes for the token, leading only while it holds the
    lease (handlers/platform/leader.py); the exit status says whether it stepped down. The
    monitor's port answers a standby's ``/healthz`` until it leads, then the full monitor's."""
    lease = Lease(db_path, bot_id_of(token))
    app = build_application(
        token,
        db_path=db_path,
        base_url=os.environ.get("TELEGRAM_API_BASE") or None,
        lease=lease,
        monitor=monitor,
    )
    serving = serve(app, lease, webhook=webhook, health=monitor, after_open=settle_heap)
    return asyncio.run(_serve_with_hooks(serving))


TEST_HOOKS = "GUANDAN_TEST_HOOKS"
"""Test-only: with ``GUANDAN_TEST_HOOKS=1``, SIGUSR1 blocks the event loop for
:data:`BLOCK_SECONDS` (a long computation on the loop, as tests/e2e/test_fencing_e2e.py needs
to show that a leader whose loop stalls stops renewing and is replaced). Never set in
production: nothing else reads it."""
BLOCK_SECONDS = 20.0


async def _serve_with_hooks(serving: Awaitable[int]) -> int:
    if os.environ.get(TEST_HOOKS) == "1":
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, time.sleep, BLOCK_SECONDS)
    return await serving


if __name__ == "__main__":
    sys.exit(main())
