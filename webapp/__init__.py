"""The table as a Telegram Mini App (issue 42): a second front end of the same tables.

The page (``webapp/static/``) talks to the bot's own aiohttp server over a WebSocket, not
through the Bot API: the server validates Telegram's ``initData`` (:mod:`webapp.initdata`),
seats the connection by the validated user id, pushes the seat's view the moment the table
changes and turns the page's moves into the same :class:`app.table.tables.TableService` calls
the chat buttons make (:mod:`webapp.moves`), refused with the chat's own texts.

This package imports ``app``, ``engine`` and ``render`` only: no storage, no handlers, no
``telegram`` (``tests/test_layers.py``); ``bot.py`` wires it to the chat side.
"""
