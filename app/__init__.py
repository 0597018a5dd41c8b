"""The application layer: what the bot does, without Telegram (issue 19).

The table service (live tables, selection, settings, texts), the contest's texts, arguments and
views, and the records' keeper and replays. It imports :mod:`engine`, :mod:`render` and
:mod:`storage`, never ``telegram`` nor :mod:`handlers`; the handlers turn Telegram updates into
calls here and its answers into messages (``tests/test_layers.py`` holds the line).
"""
