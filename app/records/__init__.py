"""The records' Telegram-free side: summaries written and back-filled, ratings, texts."""
