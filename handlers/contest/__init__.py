"""Contests in Telegram (issue 9): the glue between :mod:`engine.contest` and the chats.

``commands.py`` (the commands, typed reports and buttons), ``desk.py`` (announcements
through the outbox, deadline and reminder jobs, the WeChat mirror), ``tables.py``
(matches played through the bot). Telegram-free views and texts are in ``service/``.
"""
