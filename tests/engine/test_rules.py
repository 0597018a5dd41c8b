"""Rules settings, presets and their JSON form."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.rules import (
    PRESETS,
    SETTING_RANGES,
    SETTINGS,
    AFailureCount,
    APass,
    AReset,
    CountVisibility,
    EqualTribute,
    MatchFormat,
    Overflow,
    PointsTieBreak,
    ReturnLimit,
    Rules,
    SettingError,
    SettingKind,
)


def test_defaults_follow_rules_md_section_4() -> None:
    rules = Rules.default()
    assert rules.level_ups == (3, 2, 1)  # A2
    assert rules.a_pass is APass.NOT_FOURTH  # A3
    assert (rules.a_failure_limit, rules.a_failure_count, rules.a_reset) == (
        3,
        AFailureCount.TOTAL,
        AReset.TO_TWO,
    )
    assert rules.overflow is Overflow.STOP_AT_A  # A5
    assert rules.max_bomb_size == 10  # A7
    assert rules.partner_tribute  # A8
    assert rules.equal_tribute is EqualTribute.L1_TO_FIRST  # A10
    assert rules.return_limit is ReturnLimit.TEN_OR_BELOW and rules.return_level_card  # A11
    assert rules.turn_seconds == 30  # A13
    assert rules.count_visibility is CountVisibility.AT_THRESHOLD and rules.report_threshold == 6  # A29
    assert not rules.bonus_levels  # A28
    assert rules.match_format is MatchFormat.LEVEL_RACE


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_json(name: str) -> None:
    preset = PRESETS[name]
    assert preset.title_zh and preset.title_en and preset.description and preset.sources
    assert Rules.from_json(preset.rules.to_json()) == preset.rules
    assert Rules.preset(name) == preset.rules


def test_json_is_stable_and_tolerates_missing_settings() -> None:
    text = Rules.default().to_json()
    assert text == Rules.default().to_json()
    data = json.loads(text)
    assert list(data["rules"]) == sorted(data["rules"])
    del data["rules"]["turn_seconds"]
    assert Rules.from_json(json.dumps(data)) == Rules.default()


def test_unknown_settings_and_presets_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown rule settings"):
        Rules.from_json('{"rules": {"no_such_rule": 1}}')
    with pytest.raises(KeyError, match="unknown preset"):
        Rules.preset("no-such-preset")


def test_replace_changes_one_setting_and_validates() -> None:
    rules = Rules.default().replace(tribute=False)
    assert not rules.tribute and rules.level_ups == (3, 2, 1)
    with pytest.raises(ValueError):
        Rules.default().replace(max_bomb_size=11)
    with pytest.raises(ValueError):
        Rules.default().replace(best_of=4)


def test_presets_encode_their_documents() -> None:
    assert Rules.preset("wechat-6-deals").match_format is MatchFormat.POINTS
    assert Rules.preset("wechat-6-deals").points_deals == 6 and Rules.preset("wechat-6-deals").tribute
    assert not Rules.preset("jingfang").tribute and Rules.preset("jingfang").a_pass is APass.REACH
    anhui = Rules.preset("anhui-jianzhu")
    assert (anhui.points_deals, anhui.tribute, anhui.points_tie_break) == (
        10,
        False,
        PointsTieBreak.MORE_THREES_THEN_EXTRA,
    )
    assert Rules.preset("spring-festival").level_ups == (6, 4, 2)
    assert Rules.preset("huaian").points_target == 13 and Rules.preset("huaian").points_deals == 8
    assert Rules.preset("wuyi-2015").a_failure_limit == 2
    assert Rules.preset("canmou").a_failure_limit is None
    assert Rules.preset("knockout-135").overflow is Overflow.DEMOTE_OPPONENTS
    assert Rules.preset("best-of-3").match_format is MatchFormat.BEST_OF
    assert 11 in Rules.preset("nanjing-forestry").must_play


def test_rules_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Rules.default().tribute = False  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "stored"),
    [
        ("turn_seconds", '"abc"'),
        ("turn_seconds", "NaN"),
        ("turn_seconds", "1e18"),
        ("turn_seconds", "-1"),
        ("turn_seconds", "true"),
        ("tribute_seconds", "30.0"),
        ("points_deals", "null"),
        ("tribute", "1"),
        ("match_format", '"chess"'),
        ("level_ups", "[3, 2]"),
        ("level_ups", "[[3], 2, 1]"),
        ("must_play", '"J"'),
    ],
)
def test_stored_rules_are_checked_like_typed_ones(name: str, stored: str) -> None:
    """A row an older, laxer version stored (turn_seconds="abc") fails to load, naming the setting."""
    with pytest.raises(SettingError, match=f"^{name} must be") as error:
        Rules.from_json(f'{{"version": 1, "rules": {{"{name}": {stored}}}}}')
    assert error.value.setting is SETTINGS[name]


def test_every_setting_is_in_the_schema_and_every_number_bounded() -> None:
    assert list(SETTINGS) == [field.name for field in dataclasses.fields(Rules)]
    for setting in SETTINGS.values():
        if setting.kind in (SettingKind.NUMBER, SettingKind.NUMBERS):
            assert (setting.low, setting.high) == SETTING_RANGES[setting.name]
    with pytest.raises(SettingError):
        Rules(turn_seconds="abc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="object of settings"):
        Rules.from_json("[1, 2]")
