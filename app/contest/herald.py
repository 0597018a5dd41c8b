"""Which group announcements a contest's events call for, each under its outbox key, with the
WeChat mirror's text (written in Chinese when the event happens; the group's text is rebuilt
when it is sent). Telegram-free: the desk posts what :func:`posts` returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

from app.contest import texts
from app.contest.announcements import (
    Announcement,
    BothOut,
    ClockNote,
    DeadlineNote,
    Decided,
    Final,
    MatchFactNote,
    Official,
    Pairings,
    PairWithdrawn,
    RoundComplete,
    What,
)
from app.contest.views import plain
from engine.contest import (
    ClockStarted,
    Contest,
    ContestClosed,
    ContestDecided,
    ContestMatch,
    DeadlineMoved,
    Drawn,
    Event,
    MatchNote,
    MatchUpdated,
    PairWithdrew,
    PartnerChanged,
    PartnerConfirmed,
    PartnerDeclined,
    RoundCompleted,
    RoundDrawn,
    SignedUp,
    Withdrew,
    official_line,
)


@dataclass(frozen=True, slots=True)
class Post:
    """One announcement for the group, its outbox key (within the contest), and its mirror text
    (``None``: the mirror does not repeat it)."""

    announcement: Announcement
    key: str
    mirror: str | None


def posts(contest: Contest, events: Sequence[Event]) -> list[Post]:
    """The group messages (and their mirror) that these events call for, in order; matches put
    both out by a deadline are one message, first."""
    found: list[Post] = []
    both_out: list[ContestMatch] = []
    for event in events:
        match event:
            case RoundDrawn(played):
                number = played.number
                body = (
                    texts.draw_message(contest, "zh")
                    if number == 1
                    else texts.round_text(contest, number, "zh")
                )
                found.append(Post(Pairings(number), f"round:{number}", plain(body)))
            case MatchUpdated(updated, _fact, note):
                if note is MatchNote.BOTH_OUT:
                    both_out.append(updated)
                else:
                    found.extend(match_posts(contest, updated, note))
            case RoundCompleted(number, _alive):
                done = plain(texts.round_complete_text(contest, number, "zh"))
                found.append(Post(RoundComplete(number), f"complete:{number}", done))
            case ContestDecided():
                found.append(Post(Decided(), "decided", plain(texts.decided_text(contest, "zh"))))
            case ContestClosed():
                found.append(Post(Final(), "final", plain(texts.final_text(contest, "zh"))))
            case ClockStarted(number, clocks):
                tables = tuple(c.table for c in clocks)
                text = plain(texts.clock_started_text(contest, number, clocks, "zh"))
                key = f"clock:{number}:{','.join(map(str, tables))}"
                found.append(Post(ClockNote(What.CLOCK, number, tables), key, text))
            case DeadlineMoved(round_number, deadline):
                key = f"deadline:{round_number}:{deadline.closes_at.isoformat()}"
                found.append(Post(DeadlineNote(), key, plain(texts.deadline_moved_text(contest, "zh"))))
            case PairWithdrew(withdrawal):
                text = plain(texts.withdrew_text(contest, withdrawal.number, "zh"))
                found.append(Post(PairWithdrawn(withdrawal.number), f"withdrew:{withdrawal.number}", text))
            case (
                SignedUp() | PartnerConfirmed() | PartnerDeclined() | Withdrew() | PartnerChanged() | Drawn()
            ):
                continue  # the draw is announced with round 1 (one message); sign-ups refresh the card
            case _:
                assert_never(event)  # a new event must say whether the group hears of it
    if both_out:
        codes = tuple(m.code for m in both_out)
        summary = plain(texts.both_out_text(contest, both_out, "zh"))
        found.insert(0, Post(BothOut(codes), f"both_out:{','.join(codes)}", summary))
    return found


def official_keys(match: ContestMatch) -> list[str]:
    """The outbox keys of the official lines the match's facts called for (:func:`match_posts`)."""
    return [
        f"official:{match.code}:{index}"
        for index, fact in enumerate(match.facts)
        if fact.result is not None and fact.result.winner is not None
    ]


def match_posts(contest: Contest, match: ContestMatch, note: MatchNote) -> list[Post]:
    """A match's newest fact: the official line and its details, a dispute, or a decision."""
    index = len(match.facts) - 1
    fact = match.facts[index]
    key = f"{match.code}:{index}"  # official_keys names the lines' keys
    official: list[Post] = []
    result = fact.result
    if result is not None and result.winner is not None:
        line = official_line(result.winner, contest.settings.event_word)
        official = [
            Post(Official(line), f"official:{key}", line),
            Post(MatchFactNote(What.DETAILS, match.code, index), f"details:{key}", None),
        ]
    elif result is not None and result.no_winner:  # no 掼蛋N组 line names nobody: details only
        details = plain(texts.details_text(contest, match, fact, name_of(contest, fact.by), "zh"))
        official = [Post(MatchFactNote(What.DETAILS, match.code, index), f"details:{key}", details)]
    if note in (MatchNote.REPORTED, MatchNote.BOT_RESULT):
        return official
    if note in (MatchNote.CONTRADICTION, MatchNote.DISPUTED):
        return [Post(MatchFactNote(What.DISPUTE, match.code, index), f"dispute:{key}", None)]
    if note in (MatchNote.DECIDED, MatchNote.WALKOVER):
        assert result is not None
        first = match.first_report
        reported = first.result.winner if first is not None and first.result is not None else None
        repeat = note is MatchNote.DECIDED and reported == result.winner  # that line is posted already
        mirrored = plain(texts.decision_text(contest, match, fact, "zh"))
        decision = Post(MatchFactNote(What.DECISION, match.code, index), f"decision:{key}", mirrored)
        return [decision] if repeat or result.winner is None else [decision, *official]  # no_winner: said
    return []  # duplicates and confirmations: answered to the person, nothing posted


def name_of(contest: Contest, user_id: int | None) -> str | None:
    """A signed-up player's name as the pair gave it, else the user id."""
    if user_id is None:
        return None
    pair = contest.pair_of_user(user_id)
    if pair is not None:
        return next(p.name for p in pair.players if p.user_id == user_id)
    return str(user_id)
