"""The app services' tests: what the bot does, without Telegram (tests/handlers test the adapters)."""
