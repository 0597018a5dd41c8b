"""Contest settings as stable JSON (sorted keys, enums by value), like ``Rules.to_json``.

Storage keeps the settings as one text column; everything else of a contest is rows.
Settings added later (rounds, match points, lateness disqualification) read their
defaults from older JSON, so the version stays 1.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.contest.deadlines import Deadline
from engine.contest.pairing import MatchPoints, ThirdPlace
from engine.contest.state import ContestSettings, PrizeTier

VERSION = 1


def deadline_to_dict(deadline: Deadline | None) -> dict[str, str] | None:
    if deadline is None:
        return None
    return {"closes_at": deadline.closes_at.isoformat(), "zone": deadline.zone_name}


def deadline_from_dict(data: dict[str, str] | None) -> Deadline | None:
    if data is None:
        return None
    return Deadline(datetime.fromisoformat(data["closes_at"]), data["zone"])


def settings_to_json(settings: ContestSettings) -> str:
    data: dict[str, Any] = {
        "format": settings.format_name,
        "preset": settings.preset,
        "event_word": settings.event_word,
        "zone": settings.zone_name,
        "deadline": deadline_to_dict(settings.deadline),
        "third_place": settings.third_place.value,
        "prize_tiers": [[tier.name, tier.pairs] for tier in settings.prize_tiers],
        "rounds": settings.rounds,
        "match_points": [
            settings.match_points.win,
            settings.match_points.loss,
            settings.match_points.bye,
            settings.match_points.draw,
        ],
        "late_disqualify_after": settings.late_disqualify_after,
    }
    return json.dumps({"version": VERSION, "settings": data}, sort_keys=True, ensure_ascii=False)


def settings_from_json(text: str) -> ContestSettings:
    data = json.loads(text)["settings"]
    return ContestSettings(
        format_name=data["format"],
        preset=data["preset"],
        event_word=data["event_word"],
        zone_name=data["zone"],
        deadline=deadline_from_dict(data["deadline"]),
        third_place=ThirdPlace(data["third_place"]),
        prize_tiers=tuple(PrizeTier(name, int(pairs)) for name, pairs in data["prize_tiers"]),
        rounds=data.get("rounds"),
        match_points=MatchPoints(*data.get("match_points", (2, 0, 2))),
        late_disqualify_after=data.get("late_disqualify_after"),
    )
