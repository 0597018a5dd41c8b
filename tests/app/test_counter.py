"""记牌器: the cards still out, from the public history and the viewer's own hand only."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.table.counter import cards_out
from app.table.texts import counter_line
from engine.actions import Pass, PlayCards
from engine.cards import Rank
from engine.match import Match, observe
from engine.rules import PRESETS, Rules


def _played(seed: int, turns: int) -> Match:
    match = Match.new(Rules.default(), seed=seed)
    for _ in range(turns):
        seat = match.to_act[0]
        plays = match.legal_plays(seat)  # none beat the table: 不出 (seed 589717, turn 11)
        match.apply(seat, PlayCards(min(plays, key=lambda p: (p.size, p.rank))) if plays else Pass())
    return match


@settings(max_examples=25, deadline=None)
@example(seed=589717, turns=11)  # the seat to act cannot beat the table
@given(seed=st.integers(0, 10**6), turns=st.integers(0, 12))
def test_out_plus_played_plus_own_hand_is_two_decks(seed: int, turns: int) -> None:
    match = _played(seed, turns)
    seat = match.to_act[0]
    obs = observe(match, seat)
    out = cards_out(obs)
    played = sum(len(turn.play.cards) for turn in obs.history if turn.play is not None)
    assert sum(n for _, n in out.ranks) + out.wildcards + played + len(obs.hand) == 108
    assert all(n >= 0 for _, n in out.ranks) and 0 <= out.wildcards <= 2
    # the same public history and own hand give the same counter, whatever the others hold
    assert cards_out(observe(match, seat)) == out


def test_counter_line_and_presets() -> None:
    obs = observe(_played(3, 0), 0)
    line = counter_line(cards_out(obs), "zh")
    assert line.startswith("🧮 记牌器：大王×") and line.endswith(
        f"配×{2 - sum(c.is_wildcard(obs.level) for c in obs.hand)}"
    )
    assert counter_line(cards_out(obs), "en").startswith("🧮 Cards out: RJ×")
    assert obs.level is Rank.TWO
    casual = {"default", "noshuffle"}  # the casual tables' presets: 记牌器 on, as the apps have it
    assert all(PRESETS[name].rules.card_counter for name in casual)
    assert not any(p.rules.card_counter for name, p in PRESETS.items() if name not in casual)
