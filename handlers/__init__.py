"""Telegram handlers split by feature, and the Telegram-free table service they drive."""
