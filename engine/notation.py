"""A match transcript as text: one line per action, read back and replayed to the same match.

The notation (docs/records.md, "Transcripts")::

    # guandan transcript 1
    rules {"rules": {...}, "version": 1}
    seed 123456789
    # deal 1 · level 2
    1 2 play pair 5 S5 H5
    2 3 pass
    3 0 tribute SA
    4 1 return H3
    5 1 choose 2
    6 - time

An action line is ``VERSION SEAT VERB [ARGUMENTS]``: the match version the action produced
(1, 2, 3… without gaps), the seat 0–3 (北 西 南 东) or ``-`` for the match clock, and one of
``play KIND RANK CARDS…`` (the reading is written out, as wildcards allow several),
``pass``, ``tribute CARD`` (进贡), ``return CARD`` (还贡), ``choose SEAT`` and ``time``. Lines
starting with ``#`` are comments (the writer notes each deal's start and result there) and
blank lines are skipped. Cards use the engine's notation (``S5``, ``HT``, ``BJ``, ``RJ``).

:func:`read_transcript` checks the syntax, then replays every action, so a transcript that
reads is a legal match; :func:`write_transcript` is its inverse.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import (
    Action,
    ChooseSeat,
    DealEnded,
    DealStarted,
    Event,
    GiveTribute,
    MatchEnded,
    Pass,
    PlayCards,
    ReturnTribute,
    TimeExpired,
)
from engine.cards import Card, format_cards, parse_cards
from engine.errors import EngineError
from engine.match import Match
from engine.plays import Play, PlayKind
from engine.rules import Rules

MAGIC = "# guandan transcript 1"
_INTEGER = re.compile(r"-?[0-9]{1,18}")


class TranscriptError(EngineError):
    """A transcript that does not read or does not replay; ``line`` is 1-based (0: the whole)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True, slots=True)
class Transcript:
    rules: Rules
    seed: int
    history: tuple[tuple[int | None, Action], ...]

    def replay(self) -> Match:
        return Match.replay(self.rules, self.seed, self.history)


def action_line(version: int, seat: int | None, action: Action) -> str:
    """``17 2 play pair 5 S5 H5``: one action in the notation."""
    return f"{version} {'-' if seat is None else seat} {_verb(action)}"


def _verb(action: Action) -> str:
    if isinstance(action, PlayCards):
        play = action.play
        return f"play {play.kind.value} {play.rank} {format_cards(play.cards)}"
    if isinstance(action, GiveTribute):
        return f"tribute {action.card}"
    if isinstance(action, ReturnTribute):
        return f"return {action.card}"
    if isinstance(action, ChooseSeat):
        return f"choose {action.seat}"
    return "pass" if isinstance(action, Pass) else "time"


def write_transcript(
    rules: Rules, seed: int, history: Sequence[tuple[int | None, Action]], *, header: Sequence[str] = ()
) -> str:
    """The transcript of a match; ``header`` lines (players, date) become comments at the top."""
    match = Match.new(rules, seed)
    lines = [MAGIC, *(f"# {line}" for line in header), f"rules {rules.to_json()}", f"seed {seed}"]
    lines += _comments(match.events)
    for seat, action in history:
        events = match.apply(seat, action)
        lines.append(action_line(match.version, seat, action))
        lines += _comments(events)
    return "\n".join(lines) + "\n"


def _comments(events: Sequence[Event]) -> list[str]:
    notes = []
    for event in events:
        if isinstance(event, DealStarted):
            level, team = event.level.char, event.declarer_team
            notes.append(f"# deal {event.deal_number} · level {level} · team {team}")
        elif isinstance(event, DealEnded):
            order = " ".join(str(seat) for seat in event.finish_order)
            notes.append(f"# deal {event.deal_number} ends: order {order} · {event.outcome}")
        elif isinstance(event, MatchEnded):
            notes.append(f"# match over: winner team {event.winner_team} ({event.reason})")
    return notes


def read_transcript(text: str) -> Transcript:
    """Parse and replay a transcript; raises :class:`TranscriptError` naming the bad line."""
    rules: Rules | None = None
    seed: int | None = None
    history: list[tuple[int | None, Action]] = []
    match: Match | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "rules" and rules is None and match is None:
            rules = _rules(number, rest)
        elif word == "seed" and seed is None and match is None:
            seed = _integer(number, rest, "seed")
        else:
            if rules is None or seed is None:
                raise TranscriptError(number, "rules and seed come before the first action")
            match = match or Match.new(rules, seed)
            seat, action = parse_action(number, line, len(history) + 1)
            try:
                match.apply(seat, action)
            except EngineError as error:
                raise TranscriptError(number, f"refused by the rules: {error}") from error
            history.append((seat, action))
    if rules is None or seed is None:
        raise TranscriptError(0, "a transcript needs a rules line and a seed line")
    return Transcript(rules, seed, tuple(history))


def parse_action(number: int, line: str, expected: int) -> tuple[int | None, Action]:
    """One action line (see the module's docstring); ``expected`` is its version."""
    words = line.split()
    if len(words) < 3:
        raise TranscriptError(number, f"expected 'VERSION SEAT VERB …', got {line!r}")
    if _integer(number, words[0], "version") != expected:
        raise TranscriptError(number, f"version {words[0]} where {expected} was expected")
    seat = None if words[1] == "-" else _seat(number, words[1])
    return seat, _action(number, words[2], words[3:])


def _action(number: int, verb: str, args: list[str]) -> Action:
    try:
        if verb == "play" and len(args) >= 3:
            cards = tuple(sorted(parse_cards(args[2:]), key=lambda card: card.index))
            return PlayCards(Play(PlayKind(args[0]), _integer(number, args[1], "rank"), cards))
        if verb in ("tribute", "return") and len(args) == 1:
            card = Card.parse(args[0])
            return GiveTribute(card) if verb == "tribute" else ReturnTribute(card)
        if verb == "choose" and len(args) == 1:
            return ChooseSeat(_seat(number, args[0]))
        if verb in ("pass", "time") and not args:
            return Pass() if verb == "pass" else TimeExpired()
    except ValueError as error:  # an unknown kind, a card that is not one
        raise TranscriptError(number, str(error)) from error
    raise TranscriptError(number, f"cannot read {verb!r} with {len(args)} argument(s)")


def _rules(number: int, text: str) -> Rules:
    try:
        return Rules.from_json(text)
    except ValueError as error:
        raise TranscriptError(number, f"bad rules: {error}") from error


def _integer(number: int, text: str, what: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise TranscriptError(number, f"{what} must be a whole number, got {text!r}")
    return int(text)


def _seat(number: int, text: str) -> int:
    if text not in ("0", "1", "2", "3"):
        raise TranscriptError(number, f"a seat is 0, 1, 2 or 3, got {text!r}")
    return int(text)
