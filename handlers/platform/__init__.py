"""Telegram plumbing shared by every feature: the typed context and its services, the Bot API
transport, the rate-limit-aware sender, translations and button answers."""
