"""The 标准 (``normal``) player: plans the hand as a split into plays and reads the table.

Every candidate is scored as "this play + the best split of what remains"
(:mod:`players.handvalue`), then adjusted to the situation a club player watches:

- leading, the weakest play of the split goes first, but never a single (or pair) a
  one- (two-) card opponent could beat when something else can be led; with the partner
  at one card a low single goes first for him; with two plays left the likely winner
  goes first;
- following, a play is worth making when what remains is no worse than before by more
  than the lead it may win, counted from the unseen cards (what is neither in the hand
  nor in :attr:`Observation.history`); an opponent near out raises that worth to any
  bomb; a partner's winning play is overtaken only to shed a weak play cheaply, and
  never when the partner is out (接风 gives us the lead anyway);
- bombs come out when they save the deal or when few plays are left, so a hand does not
  die holding them;
- tribute pays the one of equal cards the hand misses least; a return gives the card
  whose loss costs the hand least, low cards first, so the receiver gains little.

It works from an :class:`Observation` only and uses no randomness, so it is
deterministic and may play for anyone (托管) or answer 提示.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from engine.actions import Action, ChooseSeat, GiveTribute, Pass, Phase, PlayCards, ReturnTribute, partner_of
from engine.cards import CARDS, Card, Rank, Suit, card_order
from engine.errors import NotYourTurn
from engine.moves import HandCounts, legal_plays, plays_of_kind
from engine.observation import Observation
from engine.plays import Play, PlayKind
from engine.rules import Rules
from players.easy import LEAD_KINDS  # legal_plays' order of kinds (first reading kept)
from players.handvalue import Evaluator, pair_cost, run_cost, single_cost, triple_cost

LEAD_WORTH = 1.0
"""Winning a trick lets the hand lead its weakest play: about one weak play saved."""

CLOSE_OUT_WORTH = 0.8
"""Extra worth of the lead when at most two plays remain after this one."""

DANGER_WORTH = 3.0
"""Extra worth of taking the trick from an opponent at one or two cards."""

NEAR_WORTH = 0.6
"""Extra worth when an opponent shows six cards or fewer."""

PARTNER_SHED = 0.75
"""Overtake a partner's winning play only when it sheds at least this much weakness."""

MAX_PLAY_SIZE = 10
"""The most cards one play holds (a bomb of eight naturals and both wildcards)."""

_SEQUENCE_LENGTH = {PlayKind.STRAIGHT: 5, PlayKind.PAIR_RUN: 3, PlayKind.TRIPLE_RUN: 2}
_CODE_KINDS = {"ST": PlayKind.STRAIGHT, "PR": PlayKind.PAIR_RUN, "TR": PlayKind.TRIPLE_RUN}
_RUN_CODES = {PlayKind.STRAIGHT: "ST", PlayKind.PAIR_RUN: "PR", PlayKind.TRIPLE_RUN: "TR"}


@lru_cache(maxsize=16)
def evaluator(level: Rank) -> Evaluator:
    """One evaluator (and memo) per level, shared by every decision at that level."""
    return Evaluator(level)


def choose_action(obs: Observation, rules: Rules) -> Action:
    """The action this seat takes now; raises :class:`NotYourTurn` if it is not to act."""
    if obs.seat is None or obs.seat not in obs.to_act:
        raise NotYourTurn(f"seat {obs.seat} is not to act")
    if obs.phase is Phase.TRIBUTE:
        return GiveTribute(_tribute(obs))
    if obs.phase is Phase.RETURN_TRIBUTE:
        return ReturnTribute(_return(obs))
    if obs.choice is not None:
        return ChooseSeat(obs.choice[1][0])
    table = _Table(obs, rules)
    if obs.table_play is None:
        return PlayCards(table.lead())
    choice = table.follow()
    return Pass() if choice is None else PlayCards(choice)


def ranked_plays(obs: Observation, rules: Rules, limit: int = 6) -> list[Play]:
    """提示: the plays this player would consider, best first (its choice, then others)."""
    if obs.seat is None or obs.phase is not Phase.PLAY or obs.seat not in obs.to_act:
        return []
    table = _Table(obs, rules)
    scored = table.scored_leads() if obs.table_play is None else table.scored_follows()
    return [play for _, play in scored[:limit]]


def _without(hand: Sequence[Card], cards: Sequence[Card]) -> list[Card]:
    rest = list(hand)
    for card in cards:
        rest.remove(card)
    return rest


def _tribute(obs: Observation) -> Card:
    """Of equal cards, the one whose loss leaves the best split (a straight flush kept)."""
    ev = evaluator(obs.level)
    return min(obs.must_tribute_from, key=lambda c: (ev.evaluate(_without(obs.hand, [c])).cost, c.index))


def _return(obs: Observation) -> Card:
    """The card the hand misses least, low before high: the receiver gains least."""
    ev = evaluator(obs.level)

    def key(card: Card) -> tuple[float, int]:
        return (ev.evaluate(_without(obs.hand, [card])).cost + 0.05 * card_order(card, obs.level), card.index)

    return min(obs.may_return, key=key)


class _Table:
    """One decision: the hand's split, the unseen cards and the seats' counts."""

    def __init__(self, obs: Observation, rules: Rules) -> None:
        assert obs.seat is not None
        self.obs = obs
        self.rules = rules
        self.seat = obs.seat
        self.level = obs.level
        self.ev = evaluator(obs.level)
        self.hand = list(obs.hand)
        self.split = self.ev.evaluate(self.hand)
        self.wild = Card(obs.level, Suit.HEARTS)
        unseen = [2] * 54
        for card in obs.hand:
            unseen[card.index] -= 1
        for turn in obs.history:
            if turn.play is not None:
                for card in turn.play.cards:
                    unseen[card.index] -= 1
        self.unseen = unseen
        self._orders: dict[int, int] | None = None
        self.lead_evaluations = 0

    # ------------------------------------------------------------ facts about the table

    def left(self, seat: int) -> int | None:
        """Cards a seat holds as far as shown; 0 once out; None when hidden."""
        view = self.obs.seats[seat]
        return 0 if view.place is not None else view.cards_left

    def opponents(self) -> list[int]:
        return [s for s in ((self.seat + 1) % 4, (self.seat + 3) % 4) if self.left(s) != 0]

    def opponent_min(self) -> int:
        shown = [self.left(s) for s in self.opponents()]
        return min((n for n in shown if n is not None), default=27)

    def allowed(self, play: Play) -> bool:
        return play.kind is not PlayKind.BOMB or play.size <= self.rules.max_bomb_size

    def legal(self) -> list[Play]:
        plays = legal_plays(self.hand, self.level, self.obs.table_play)
        return [play for play in plays if self.allowed(play)]

    # ------------------------------------------------------------ how likely a play holds

    def holds(self, play: Play) -> float:
        """How likely ``play`` wins its trick, from the unseen cards and its strength."""
        if play.is_bomb:
            return 0.95 if not self._bigger_bomb_possible(play) else 0.75
        if not self._beatable_by_kind(play):
            return 0.9
        kind = play.kind
        if kind is PlayKind.SINGLE:
            return 1.0 - single_cost(play.rank)
        if kind is PlayKind.PAIR:
            return 1.0 - pair_cost(play.rank)
        if kind in (PlayKind.TRIPLE, PlayKind.FULL_HOUSE):
            return 1.0 - triple_cost(play.rank)
        return 1.0 - run_cost(_RUN_CODES[kind], play.rank)

    def _unseen_of_order(self) -> dict[int, int]:
        """Unseen cards per singles order; counted once per decision (大师's rollouts ask often)."""
        if self._orders is None:
            counts: dict[int, int] = {}
            for index, n in enumerate(self.unseen):
                if n > 0:
                    order = card_order(CARDS[index], self.level)
                    counts[order] = counts.get(order, 0) + n
            self._orders = counts
        return self._orders

    def _beatable_by_kind(self, play: Play) -> bool:
        need = {PlayKind.SINGLE: 1, PlayKind.PAIR: 2, PlayKind.TRIPLE: 3, PlayKind.FULL_HOUSE: 3}.get(
            play.kind
        )
        if need is None:
            return True
        wild = max(self.unseen[self.wild.index], 0)
        for order, n in self._unseen_of_order().items():
            if order > play.rank:
                extra = wild if order <= 15 and order != 15 else 0
                if n + extra >= need and not (order >= 16 and need == 3):
                    return True
        return False

    def _bigger_bomb_possible(self, play: Play) -> bool:
        wild = max(self.unseen[self.wild.index], 0)
        jokers = self.unseen[52] >= 2 and self.unseen[53] >= 2
        if jokers:
            return True
        tier, rank = play.bomb_power
        for order, n in self._unseen_of_order().items():
            if order >= 16:
                continue
            size = n + (wild if order != 15 else 0)
            if size >= 4:
                best_tier = {4: 3, 5: 4}.get(size, size)
                if (best_tier, order) > (tier, rank) or size > play.size:
                    return True
        return False

    # ------------------------------------------------------------ leading

    def lead(self) -> Play:
        return self.scored_leads()[0][1]

    def scored_leads(self) -> list[tuple[float, Play]]:
        """Lead candidates (one play per split combo, plus the lowest of each kind), best first."""
        plays = self._lead_plays()
        out = [play for play in plays if play.size == len(self.hand)]
        if out:
            return [(-100.0, min(out, key=lambda p: (p.is_bomb, p.bomb_power)))]
        scored = []
        seen: set[tuple[PlayKind, int, tuple[int, ...]]] = set()
        for play in self._lead_candidates(plays):
            key = (play.kind, play.rank, tuple(sorted(card.index for card in play.cards)))
            if key in seen:
                continue
            seen.add(key)
            scored.append((self._lead_score(play), play))
        scored.sort(key=lambda item: (item[0], item[1].rank, [c.index for c in item[1].cards]))
        return scored

    def _lead_plays(self) -> list[Play]:
        """The legal leads :meth:`_lead_candidates` may pick, in :func:`legal_plays` order.

        With more cards than any play holds, only the kinds of the split and singles are
        generated (a hand with wildcards has thousands of leads, most of kinds the split
        does not use), and no bombs: singles are always there to lead instead.
        """
        if len(self.hand) <= MAX_PLAY_SIZE:
            return self.legal()
        kinds = {key[0] for key in self._split_keys()[0]} | {PlayKind.SINGLE}
        counts = HandCounts(self.hand, self.level)
        return [play for kind in LEAD_KINDS if kind in kinds for play in plays_of_kind(counts, kind)]

    def _lead_candidates(self, plays: list[Play]) -> list[Play]:
        """The plays of the split (one reading per kind, rank, wildcards and ranks), the lowest and
        highest singles; bombs only if nothing else can be led."""
        wanted, pair_orders = self._split_keys()
        best: dict[tuple[PlayKind, int, int, tuple[int, ...]], Play] = {}
        singles = [play for play in plays if play.kind is PlayKind.SINGLE]
        extremes = {id(play) for play in singles[:1] + singles[-1:]}
        kind_ranks = {(kind, rank) for kind, rank, _ in wanted}
        for play in plays:
            if (play.kind, play.rank) not in kind_ranks and id(play) not in extremes:
                continue
            wilds = sum(1 for card in play.cards if card is self.wild)
            if (play.kind, play.rank, wilds) not in wanted and id(play) not in extremes:
                continue
            if play.kind is PlayKind.FULL_HOUSE and self._pair_of(play) not in pair_orders:
                continue
            ranks = tuple(sorted(int(card.rank) for card in play.cards if card is not self.wild))
            key = (play.kind, play.rank, wilds, ranks)
            if key not in best:
                best[key] = play
        ordinary = [play for key, play in best.items() if not key[0].is_bomb]
        return ordinary or list(best.values()) or plays

    def _pair_of(self, play: Play) -> int:
        """The order of a full house's pair (wildcards read as the triple's or the pair's rank)."""
        orders = [card_order(card, self.level) for card in play.cards if card is not self.wild]
        others = [order for order in orders if order != play.rank]
        return others[0] if others else 15

    def _split_keys(self) -> tuple[set[tuple[PlayKind, int, int]], set[int]]:
        """(kind, rank, wildcards) of the split's plays, full houses included; the pairs' orders."""
        ev = self.ev
        keys: set[tuple[PlayKind, int, int]] = set()
        triples: list[tuple[int, int]] = []
        pairs: list[tuple[int, int]] = []
        group = {1: PlayKind.SINGLE, 2: PlayKind.PAIR, 3: PlayKind.TRIPLE}
        for code, positions, per, wild in self.split.combos:
            if code in ("S", "P", "T", "B"):
                order, size = ev.order(positions[0]), per + wild
                kind = group.get(size, PlayKind.BOMB)
                keys.add((kind, order, wild))
                (triples if size == 3 else pairs if size == 2 else []).append((order, wild))
            elif code in _CODE_KINDS:
                top = 5 if positions[-1] == 12 and positions[0] == 0 else positions[-1] + 2
                keys.add((_CODE_KINDS[code], top, wild))
            elif code == "W":
                keys.add((PlayKind.SINGLE if wild == 1 else PlayKind.PAIR, 15, wild))
                if wild == 2:
                    pairs.append((15, 2))
            elif code == "J" and per <= 2:
                order = 16 if positions[0] == 13 else 17
                keys.add((PlayKind.SINGLE if per == 1 else PlayKind.PAIR, order, 0))
                if per == 2:
                    pairs.append((order, 0))
        for order, wild in triples:
            for _, pair_wild in pairs:
                keys.add((PlayKind.FULL_HOUSE, order, wild + pair_wild))
        return keys, {order for order, _ in pairs}

    def _lead_score(self, play: Play) -> float:
        """Lower is better: what remains, minus the play's weakness shed, plus the table's concerns."""
        rest = self.ev.evaluate(_without(self.hand, play.cards))
        self.lead_evaluations += 1
        score = rest.cost
        if play.is_bomb:
            score += 0.5
        holds = self.holds(play)
        nxt, partner, prev = (self.seat + 1) % 4, partner_of(self.seat), (self.seat + 3) % 4
        for opponent, weight in ((nxt, 1.0), (prev, 0.7)):
            left = self.left(opponent)
            if left == 1 and play.kind is PlayKind.SINGLE:
                score += 3.0 * weight * (1.0 - holds)
            elif left == 2 and play.kind in (PlayKind.PAIR, PlayKind.SINGLE):
                score += (2.0 if play.kind is PlayKind.PAIR else 0.6) * weight * (1.0 - holds)
            elif left is not None and 0 < left <= 5 and play.size == left and not play.is_bomb:
                score += 1.5 * weight * (1.0 - holds)
        partner_left = self.left(partner)
        if partner_left == 1 and play.kind is PlayKind.SINGLE and self.opponent_min() > 2:
            score -= 2.0 * (1.0 - 1.0 / 17 * play.rank)
        if rest.plays <= 1 and holds < 0.85:
            score += 0.8 * (1.0 - holds)  # lead the likely winner first, then go out
        return score + 0.002 * play.rank - 0.001 * play.size

    # ------------------------------------------------------------ following

    def follow(self) -> Play | None:
        scored = self.scored_follows(with_pass=True)
        return scored[0][1] if scored else None

    def scored_follows(self, with_pass: bool = False) -> list[tuple[float, Play]]:
        """Follow candidates best first; with ``with_pass`` passing competes (listed as no play)."""
        obs = self.obs
        assert obs.table_play is not None and obs.table_seat is not None
        plays = self.legal()
        if not plays:
            return []
        out = [play for play in plays if play.size == len(self.hand)]
        if out:
            return [(-100.0, min(out, key=lambda p: (p.is_bomb, p.bomb_power)))]
        pass_score = self.split.cost
        scored: list[tuple[float, Play]] = []
        for play in self._follow_candidates(plays):
            score = self._follow_score(play)
            if score is not None:
                scored.append((score, play))
        scored.sort(key=lambda item: (item[0], item[1].bomb_power, [c.index for c in item[1].cards]))
        if with_pass and (not scored or scored[0][0] >= pass_score - 1e-9):
            return []
        return scored

    def _follow_candidates(self, plays: list[Play]) -> list[Play]:
        """One reading per (kind, rank, size, wildcards); a full house carries a pair of the split
        (else its lowest pair)."""
        _, pair_orders = self._split_keys() if plays[0].kind is PlayKind.FULL_HOUSE else (None, set())
        best: dict[tuple[PlayKind, int, int, int], tuple[tuple[bool, int], Play]] = {}
        for play in plays:
            wilds = sum(1 for card in play.cards if card is self.wild)
            key = (play.kind, play.rank, play.size, wilds)
            rank = (False, 0)
            if play.kind is PlayKind.FULL_HOUSE:
                pair = self._pair_of(play)
                rank = (pair not in pair_orders, pair)
            if key not in best or rank < best[key][0]:
                best[key] = (rank, play)
        return [play for key, (_, play) in best.items() if not self._dominated(key, best)]

    @staticmethod
    def _dominated(
        key: tuple[PlayKind, int, int, int], best: Mapping[tuple[PlayKind, int, int, int], object]
    ) -> bool:
        """A reading spending wildcards where fewer would do (the same kind, rank and size), or a
        bomb lengthened by wildcards beyond the shortest bomb of its rank."""
        kind, rank, size, wilds = key
        if not wilds:
            return False
        if any((kind, rank, size, fewer) in best for fewer in range(wilds)):
            return True
        return kind is PlayKind.BOMB and any(
            (kind, rank, shorter, w) in best for shorter in range(4, size) for w in range(3)
        )

    def _follow_score(self, play: Play) -> float | None:
        """Lower is better; None when the play is never worth making here."""
        obs = self.obs
        assert obs.table_seat is not None
        table_seat = obs.table_seat
        rest = self.ev.evaluate(_without(self.hand, play.cards))
        if table_seat == partner_of(self.seat):
            if self.left(table_seat) == 0 or play.is_bomb:
                return None  # 接风: the partner's last play gives us the lead anyway
            partner_left = self.left(table_seat)
            if partner_left is not None and partner_left <= 6:
                return None
            if rest.cost > self.split.cost - PARTNER_SHED or play.rank > 13:
                return None
            return rest.cost - 0.1
        worth = LEAD_WORTH
        if rest.plays <= 2:
            worth += CLOSE_OUT_WORTH
        danger = self.opponent_min()
        if danger <= 2:
            worth += DANGER_WORTH
        elif danger <= 6:
            worth += NEAR_WORTH
        if self.left(table_seat) == 0:
            worth += 0.5  # its partner would lead by 接风
        return rest.cost - self.holds(play) * worth
