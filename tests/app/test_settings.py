"""``/newgame`` settings: every value typed and range-checked where it is read, refusals that
name the setting and what it accepts (zh and en), no user text fed to ``json.loads``."""

from __future__ import annotations

import pytest

from app.table.settings import (
    MAX_VALUE_CHARS,
    MAX_WORDS,
    SettingProblem,
    rules_from_args,
)
from app.table.texts import format_summary, setting_problem_text
from engine.rules import SETTINGS, MatchFormat, ReturnLimit, Rules, SettingKind, ShuffleProcedure


def refusal(*words: str) -> SettingProblem:
    with pytest.raises(SettingProblem) as caught:
        rules_from_args(words)
    return caught.value


@pytest.mark.parametrize(
    "value", ["abc", "NaN", "nan", "inf", "1e18", "-1", "0", "1", "601", "30.5", "true", "[]"]
)
def test_bad_clock_values_are_refused_naming_the_range(value: str) -> None:
    """Finding 1: these were accepted and crashed the clock (and the next start)."""
    problem = refusal(f"turn_seconds={value}")
    assert (problem.code, problem.name) == ("bad_setting", "turn_seconds")
    assert (
        setting_problem_text(problem, "zh")
        == "turn_seconds 的取值应为 2 到 600 之间的整数，或 none（不设）。"
    )
    assert (
        setting_problem_text(problem, "en") == "turn_seconds must be a whole number from 2 to 600, or none."
    )


@pytest.mark.parametrize("name", [s.name for s in SETTINGS.values() if s.kind is SettingKind.NUMBER])
def test_every_number_setting_has_bounds(name: str) -> None:
    setting = SETTINGS[name]
    assert setting.low <= setting.high
    for outside in (setting.low - 1, setting.high + 1, 10**18):
        assert refusal(f"{name}={outside}").name == name
    _, rules = rules_from_args([f"{name}={setting.high}"])
    assert getattr(rules, name) == setting.high
    text = setting_problem_text(refusal(f"{name}=x"), "en")
    assert text.startswith(f"{name} must be") and f"from {setting.low} to {setting.high}" in text


def test_deeply_nested_value_is_refused_without_recursion() -> None:
    """Finding 3: 3,000 brackets raised RecursionError inside json.loads (no reply)."""
    problem = refusal("turn_seconds=" + "[" * 3000)
    assert (problem.code, problem.name) == ("setting_too_long", "turn_seconds")
    assert setting_problem_text(problem, "zh").startswith("取值太长。turn_seconds 的取值应为")
    assert refusal("level_ups=[[3,2,1]]").code == "bad_setting"
    assert refusal("turn_seconds=" + "9" * (MAX_VALUE_CHARS + 1)).code == "setting_too_long"
    assert refusal(*["turn_seconds=30"] * (MAX_WORDS + 1)).code == "too_many_settings"


def test_values_in_the_words_people_type() -> None:
    _, rules = rules_from_args(
        [
            "turn_seconds=off",
            "tribute_seconds=NULL",
            "first_turn_seconds=45",
            "tribute=否",
            "partner_tribute=off",
            "bonus_levels=是",
            "returns_face_down=true",
            "match_format=Best-Of",
            "return_limit=ANY",
            "return_limit_double_down=none",
            "level_ups=[5,3,1]",
            "points_scale=3，2，1",
            "must_play=11,12",
            "best_of=5",
        ]
    )
    assert (rules.turn_seconds, rules.tribute_seconds, rules.first_turn_seconds) == (None, None, 45)
    assert (rules.tribute, rules.partner_tribute, rules.bonus_levels, rules.returns_face_down) == (
        False,
        False,
        True,
        True,
    )
    assert rules.match_format is MatchFormat.BEST_OF and rules.return_limit is ReturnLimit.ANY
    assert rules.return_limit_double_down is None
    assert (rules.level_ups, rules.points_scale, rules.must_play, rules.best_of) == (
        (5, 3, 1),
        (3, 2, 1),
        (11, 12),
        5,
    )
    assert rules_from_args(["must_play=none"])[1].must_play == ()
    assert rules_from_args(["wechat-6-deals"]) == ("wechat-6-deals", Rules.preset("wechat-6-deals"))


@pytest.mark.parametrize(
    ("word", "zh", "en"),
    [
        ("tribute=maybe", "tribute 的取值应为 on 或 off（是/否）。", "tribute must be on or off."),
        (
            "match_format=chess",
            "match_format 的取值应为 level_race、points、best_of 之一。",
            "match_format must be one of: level_race, points, best_of.",
        ),
        ("best_of=4", "best_of 的取值应为 1 到 9 之间的奇数。", "best_of must be an odd number from 1 to 9."),
        (
            "level_ups=5,3",
            "level_ups 的取值应为 3 个 0 到 12 之间的整数，例如 3,2,1。",
            "level_ups must be 3 whole numbers from 0 to 12, e.g. 3,2,1.",
        ),
        (
            "must_play=11,11",
            "must_play 的取值应为 3 到 13 之间的整数，用逗号分隔。",
            "must_play must be whole numbers from 3 to 13, separated by commas.",
        ),
    ],
)
def test_refusals_say_what_is_allowed(word: str, zh: str, en: str) -> None:
    problem = refusal(word)
    assert (setting_problem_text(problem, "zh"), setting_problem_text(problem, "en")) == (zh, en)


def test_unknown_names_get_the_closest_ones() -> None:
    problem = refusal("turn_secnds=20")
    assert problem.code == "unknown_setting" and problem.suggestions[0] == "turn_seconds"
    assert setting_problem_text(problem, "en").startswith(
        "Unknown rule setting “turn_secnds”. Did you mean: turn_seconds"
    )
    assert setting_problem_text(problem, "zh").startswith(
        "未知的规则设置“turn_secnds”。你是不是想写：turn_seconds"
    )
    preset = refusal("wechat-6-deal")
    assert preset.code == "unknown_preset" and preset.suggestions == ("wechat-6-deals",)
    assert refusal("colour=red").suggestions == ()
    assert setting_problem_text(refusal("colour=red"), "en") == "Unknown rule setting “colour”."
    assert refusal("x" * 5000 + "=1").name == "x" * 40  # never echoed at length


def test_a_word_without_equals_is_explained() -> None:
    problem = refusal("default", "fast")
    assert problem.code == "setting_syntax"
    assert (
        setting_problem_text(problem, "en")
        == "Write each setting as name=value, e.g. turn_seconds=20 (not “fast”)."
    )


def test_no_shuffle_by_setting_or_by_preset() -> None:
    """不洗牌: ``/newgame shuffle=none`` on any preset, or the casual preset that uses it."""
    _, typed = rules_from_args(["shuffle=none"])
    name, preset = rules_from_args(["noshuffle"])
    assert typed.shuffle is preset.shuffle is ShuffleProcedure.NONE and name == "noshuffle"
    assert "不洗牌" in format_summary(preset, "zh") and "no shuffle" in format_summary(preset, "en")
    assert "不洗牌" not in format_summary(Rules.default(), "zh")
