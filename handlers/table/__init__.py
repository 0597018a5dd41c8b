"""A table in a group: the lobby, the private hand messages, the group board and the clocks.

The modules here call the Bot API; :mod:`app.table` holds the Telegram-free
part they drive (the table service, texts, selections, callback data).
"""
