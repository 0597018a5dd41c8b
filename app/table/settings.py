"""Reading ``/newgame [preset] [setting=value …]`` as typed by a person.

The words are read here, with a small reader per kind of setting (no ``json.loads`` on
user text: a value is at most :data:`MAX_VALUE_CHARS` characters and never nested);
what each setting accepts — type, range, ``None`` — is :data:`engine.rules.SETTINGS`,
the same schema stored rules are checked against. A refusal is a
:class:`SettingProblem` that names the setting, so the reply can say what is allowed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from enum import Enum
from typing import Any

from app.table.refusals import SettingRefusal
from engine.rules import PRESETS, SETTINGS, Rules, Setting, SettingError, SettingKind

MAX_VALUE_CHARS = 64
"""The longest value read: ``must_play=3,4,…,13`` is 25 characters, an enum name 25."""

MAX_WORDS = len(SETTINGS) + 1
"""A preset and every setting once; more words are refused unread."""

MAX_NAME_CHARS = 40  # an unknown name is shown back cut to this length

NONE_WORDS = frozenset({"null", "none", "off", "no", "不限", "无", "关", "默认"})
TRUE_WORDS = frozenset({"true", "on", "yes", "1", "是", "开"})
FALSE_WORDS = frozenset({"false", "off", "no", "0", "否", "关"})
_SEPARATORS = re.compile(r"[,，、/\s]+")
_INTEGER = re.compile(r"[+-]?\d{1,9}")  # nine digits: far beyond any range, never a huge int


class SettingProblem(ValueError):
    """``/newgame`` words refused; ``code`` picks the message, the rest fills it in.

    ``UNKNOWN_PRESET`` / ``UNKNOWN_SETTING`` come with ``name`` and ``suggestions``,
    ``BAD_SETTING`` / ``SETTING_TOO_LONG`` with ``setting``, ``SETTING_SYNTAX`` with ``name``
    (the word).
    """

    def __init__(
        self,
        code: SettingRefusal,
        *,
        name: str = "",
        setting: Setting | None = None,
        suggestions: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"{code}: {name}")
        self.code = code
        self.name = name[:MAX_NAME_CHARS]
        self.setting = setting
        self.suggestions = suggestions


def rules_from_args(words: Iterable[str]) -> tuple[str, Rules]:
    """The preset (first word unless it holds ``=``; default ``default``) with the overrides."""
    words = list(words)
    if len(words) > MAX_WORDS:
        raise SettingProblem(SettingRefusal.TOO_MANY_SETTINGS)
    name = words.pop(0) if words and "=" not in words[0] else "default"
    if name not in PRESETS:
        raise SettingProblem(SettingRefusal.UNKNOWN_PRESET, name=name, suggestions=closest(name, PRESETS))
    changes: dict[str, Any] = {}
    for word in words:
        key, equals, raw = word.partition("=")
        if not equals or not key:
            raise SettingProblem(SettingRefusal.SETTING_SYNTAX, name=word)
        setting = SETTINGS.get(key)
        if setting is None:
            raise SettingProblem(SettingRefusal.UNKNOWN_SETTING, name=key, suggestions=closest(key, SETTINGS))
        changes[key] = read_value(setting, raw)
    try:
        return name, PRESETS[name].rules.replace(**changes)
    except SettingError as error:  # each value passed alone; a rule spanning settings did not
        raise SettingProblem(
            SettingRefusal.BAD_SETTING, name=error.setting.name, setting=error.setting
        ) from None


def read_value(setting: Setting, raw: str) -> object:
    """One typed, range-checked value of ``setting`` from a person's text."""
    if len(raw) > MAX_VALUE_CHARS:
        raise SettingProblem(SettingRefusal.SETTING_TOO_LONG, name=setting.name, setting=setting)
    text = raw.strip().strip("\"'“”").strip().lower()
    try:
        value = _read(setting, text)
        setting.check(value)
    except (SettingError, ValueError):
        raise SettingProblem(SettingRefusal.BAD_SETTING, name=setting.name, setting=setting) from None
    return value


def _read(setting: Setting, text: str) -> object:
    if setting.optional and text in NONE_WORDS:
        return None
    if setting.kind is SettingKind.NUMBER:
        return _integer(text)
    if setting.kind is SettingKind.SWITCH:
        return _switch(text)
    if setting.kind is SettingKind.CHOICE:
        assert setting.choices is not None
        return _choice(setting.choices, text)
    inner = text.removeprefix("[").removesuffix("]").strip()
    if not inner or (setting.count is None and inner in NONE_WORDS):
        return ()
    return tuple(_integer(part) for part in _SEPARATORS.split(inner))


def _integer(text: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise ValueError(text)
    return int(text)


def _switch(text: str) -> bool:
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise ValueError(text)


def _choice(choices: type[Enum], text: str) -> Enum:
    """A member by its value or name, any case, ``-`` for ``_``: ``match_format=best-of``."""
    wanted = text.replace("-", "_")
    for member in choices:
        if wanted in (member.value, member.name.lower()):
            return member
    raise ValueError(text)


def closest(name: str, known: Iterable[str]) -> tuple[str, ...]:
    """Up to three known names that look like ``name`` (a typo, a missing underscore)."""
    return tuple(difflib.get_close_matches(name[:MAX_NAME_CHARS].lower(), list(known), n=3, cutoff=0.6))
