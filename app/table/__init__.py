"""The Telegram-free side of a table: the live tables and their persistence, the texts, the
card selection, callback data and the deal results. Nothing here imports ``telegram``."""
