"""Telegram handlers by feature: :mod:`handlers.table` (a table in a group), :mod:`handlers.general`
(/lang, /help, /rules, /fourcolor), and the plumbing they share in :mod:`handlers.platform`."""
