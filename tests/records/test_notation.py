"""The transcript notation: written, read back and replayed to the same match; bad lines named."""

from __future__ import annotations

import pytest

from engine.notation import TranscriptError, action_line, read_transcript, write_transcript
from engine.rules import Rules
from tests.records.support import SHORT, played


@pytest.mark.parametrize(("rules", "seed", "planner"), [(SHORT, 3, True), (Rules.default(), 11, False)])
def test_a_transcript_reads_back_and_replays_to_the_same_match(
    rules: Rules, seed: int, planner: bool
) -> None:
    match = played(rules, seed, planner=planner)
    text = write_transcript(rules, seed, match.history, header=["players: A B C D"])
    transcript = read_transcript(text)
    assert transcript.rules == rules and transcript.seed == seed
    assert transcript.history == match.history
    assert transcript.replay().events == match.events
    assert write_transcript(rules, seed, transcript.history, header=["players: A B C D"]) == text
    actions = [line for line in text.splitlines() if line and not line.startswith(("#", "rules", "seed"))]
    assert len(actions) == len(match.history)  # one line per action


def test_the_notation_of_each_verb() -> None:
    match = played(SHORT, 3)
    lines = {action_line(v, seat, action).split()[2] for v, (seat, action) in enumerate(match.history, 1)}
    assert {"play", "pass", "tribute", "return"} <= lines
    first_seat, first = match.history[0]
    assert action_line(1, first_seat, first).startswith(f"1 {first_seat} play ")


def bad(text: str, line: int) -> str:
    with pytest.raises(TranscriptError) as error:
        read_transcript(text)
    assert error.value.line == line
    return str(error.value)


def test_bad_transcripts_name_the_line() -> None:
    match = played(SHORT, 3)
    good = write_transcript(SHORT, 3, match.history).splitlines()
    first = next(i for i, line in enumerate(good) if line.startswith("1 "))
    assert "rules and seed" in bad("1 0 pass\n", 1)
    assert "needs a rules line" in bad("# nothing\n", 0)
    assert "bad rules" in bad("rules {\n", 1)
    lines = list(good)
    lines[first] = "2 " + lines[first].split(" ", 1)[1]
    assert "version 2" in bad("\n".join(lines), first + 1)
    lines = list(good)
    lines[first] = lines[first].replace(" play ", " fly ")
    assert "cannot read" in bad("\n".join(lines), first + 1)
    lines = list(good)
    lines[first] = "1 7 pass"
    assert "seat" in bad("\n".join(lines), first + 1)
    lines = list(good)
    lines[first] = "1 " + str((int(good[first].split()[1]) + 1) % 4) + " pass"
    assert "refused by the rules" in bad("\n".join(lines), first + 1)
    lines = list(good)
    lines[first] = lines[first].rsplit(" ", 1)[0] + " ZZ"
    bad("\n".join(lines), first + 1)
