"""Telegram-free contest views: texts, button data, command arguments, tables and CSV."""
