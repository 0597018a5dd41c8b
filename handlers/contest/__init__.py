"""Contests in Telegram (issue 9): the glue between :mod:`engine.contest` and the chats.

``commands/`` (the commands, typed reports and buttons, by topic), ``desk.py`` (the contest's
pieces wired), ``channels.py``, ``compose.py`` and ``wechat.py`` (delivery), ``alarms.py``
(deadline, reminder and clock jobs), ``tables.py`` (matches played through the bot),
``sheets.py`` (score sheets). The Telegram-free side (the service, announcements, views and
texts) is :mod:`app.contest`.
"""
