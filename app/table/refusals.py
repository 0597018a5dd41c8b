"""Why a table request is refused, one member per reason, with values equal to the codes stored
and tested before (issue 19): :func:`app.table.texts.refusal_text` and
:func:`app.table.texts.setting_problem_text` word every member, ``mypy --strict`` finds a member
without a text, and no code falls back to a generic sentence (issue 41)."""

from __future__ import annotations

from enum import StrEnum


class TableRefusal(StrEnum):
    """A lobby or table request refused (``TableError.code``), or a hand button's alert."""

    NO_TABLE = "no_table"
    TABLE_EXISTS = "table_exists"
    SEAT_TAKEN = "seat_taken"
    TABLE_FULL = "table_full"
    NOT_SEATED = "not_seated"
    NOT_YOUR_HAND = "not_your_hand"
    SEATS_MISSING = "seats_missing"
    TABLE_NOT_LOBBY = "table_not_lobby"
    TABLE_NOT_PLAYING = "table_not_playing"
    NOT_ALLOWED = "not_allowed"
    STALE = "stale"
    BAD_BUTTON = "bad_button"
    NOT_YOUR_TURN = "not_your_turn"
    EMPTY = "empty"
    NO_SUCH_PLAY = "no_such_play"
    MUST_LEAD = "must_lead"
    NO_HINT = "no_hint"
    PRIVATE_ONLY = "private_only"
    GROUP_ONLY = "group_only"
    OPEN_PRIVATE = "open_private"
    NOT_SAVED = "not_saved"
    INTERNAL = "internal"
    RESERVED_TABLE = "reserved_table"
    RESERVED_RULES = "reserved_rules"
    BUSY = "busy"
    NO_SPECTATORS = "no_spectators"  # 观战 is turned off at this table (spectators=off)
    PLAYING_HERE = "playing_here"  # a seated player pressed 观战
    SPECTATORS_FULL = "spectators_full"
    NOT_WATCHING = "not_watching"
    WATCH_FROM_BOARD = "watch_from_board"  # the Mini App's 观战 before 观战 was pressed in the group
    NO_WATCH_HAND = "no_watch_hand"  # this table shows spectators no seat's hand (watch_hand=off)
    RESTORED = "restored"  # a hand message from before a restart or a restore: a new one is below
    PAGE_BOUND = "page_bound"  # a Mini App page's second hello: its first fixed the table and seat


class SettingRefusal(StrEnum):
    """Why ``/newgame`` words were refused (``SettingProblem.code``)."""

    UNKNOWN_PRESET = "unknown_preset"  # the first word names no preset
    UNKNOWN_SETTING = "unknown_setting"  # name=value with a name no setting has
    SETTING_SYNTAX = "setting_syntax"  # a word after the preset without "="
    TOO_MANY_SETTINGS = "too_many_settings"  # more words than a preset and every setting once
    BAD_SETTING = "bad_setting"  # a value the setting does not accept
    SETTING_TOO_LONG = "setting_too_long"  # a value longer than any the setting accepts
