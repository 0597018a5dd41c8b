"""Entrants: players, sign-ups (a pair, an invitation, or a single) and drawn pairs (组).

Sign-up follows the seeds (docs/rules.md §4.1): players register as a pair ("二人结对报名"),
the partner confirming; people without a partner sign up alone and are paired by lot
at the draw ("无配对者将现场进行两人抽签，同号码为一对"). Every pair then gets its
group number 组号 1..N, the number used in reports (`掼蛋3组`).

The draw of entrants, exactly (lots as in :mod:`engine.contest.lots`):

1. An invitation still unconfirmed at the draw leaves its inviter as a single.
2. **Singles**, sorted by user id, are shuffled with the label ``"singles"``; the 1st
   and 2nd form a pair, the 3rd and 4th, and so on, in that player order.
3. **All pairs** (registered and drawn), sorted by their players' user ids (smaller
   id first, then the larger), are shuffled with the label ``"numbers"``; the pair
   in position k gets group number k + 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.contest.errors import DrawRefused, Refusal, SignupRefused
from engine.contest.lots import DrawSeed
from engine.names import clean_name


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int
    name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name))  # also names stored before


@dataclass(frozen=True, slots=True)
class Entry:
    """One sign-up: a single (``partner`` None), an invitation, or a confirmed pair."""

    player: Player
    partner: Player | None = None
    confirmed: bool = False  # the partner accepted the invitation
    tag: str = ""  # the pair's unit (000-S: A and B teams apart) or time slot (002-E: A or B)

    @property
    def is_single(self) -> bool:
        return self.partner is None

    @property
    def user_ids(self) -> tuple[int, ...]:
        return (self.player.user_id,) if self.partner is None else (self.player.user_id, self.partner.user_id)


@dataclass(frozen=True, slots=True)
class Pair:
    """A drawn pair (组 / 搭档), fixed for the whole contest (V32)."""

    number: int  # 组号, 1..N
    players: tuple[Player, Player]
    by_lot: bool = False  # formed from two singles at the draw
    tag: str = ""  # see Entry.tag; a pair drawn from singles keeps a tag both gave

    @property
    def user_ids(self) -> tuple[int, int]:
        return (self.players[0].user_id, self.players[1].user_id)

    @property
    def names(self) -> str:
        return f"{self.players[0].name} / {self.players[1].name}"


# ---------------------------------------------------------------- sign-up rules


def entry_of(entries: Sequence[Entry], user_id: int) -> Entry | None:
    """The sign-up that names ``user_id``, as player or as (invited) partner."""
    return next((entry for entry in entries if user_id in entry.user_ids), None)


def add_entry(entries: Sequence[Entry], player: Player, partner: Player | None, tag: str = "") -> Entry:
    """A new sign-up for ``player``, alone or inviting ``partner``; refused if anyone is taken."""
    if entry_of(entries, player.user_id) is not None:
        raise SignupRefused(Refusal.ALREADY_SIGNED_UP, str(player.user_id))
    if partner is not None and partner.user_id == player.user_id:
        raise SignupRefused(Refusal.SELF_PARTNER)
    if partner is not None and entry_of(entries, partner.user_id) is not None:
        raise SignupRefused(Refusal.PARTNER_TAKEN, str(partner.user_id))
    return Entry(player, partner, tag=tag.strip())


def username_placeholder(username: str) -> Player:
    """The partner of an invitation by ``@username`` to someone the bot has not seen yet (in
    privacy mode a bot sees only commands and presses): a stand-in with a negative id, which
    no Telegram user has, named ``@username``. Whoever presses 接受 with that username takes
    the place (:func:`claim_invitation`); the same username always gives the same stand-in."""
    key = username.strip().lstrip("@").casefold()
    digest = hashlib.sha256(key.encode()).digest()
    return Player(-1 - int.from_bytes(digest[:6], "big"), "@" + username.strip().lstrip("@"))


def is_placeholder(player: Player) -> bool:
    return player.user_id < 0


def find_invitation(entries: Sequence[Entry], user_id: int, username: str | None = None) -> Entry:
    """The unconfirmed invitation naming ``user_id``, else the one naming the stand-in of their
    ``username`` (:func:`username_placeholder`); NO_INVITATION otherwise."""
    try:
        return invitation_for(entries, user_id)
    except SignupRefused:
        if not username:
            raise
    return invitation_for(entries, username_placeholder(username).user_id)


def taking_place(entries: Sequence[Entry], invitation: Entry, player: Player) -> Entry:
    """``invitation`` with ``player`` in its stand-in's place (the invitation by @username);
    refused when ``player`` is signed up already."""
    if invitation.partner is None or not is_placeholder(invitation.partner):
        return invitation
    if entry_of(entries, player.user_id) is not None:
        raise SignupRefused(Refusal.ALREADY_SIGNED_UP, str(player.user_id))
    if player.user_id == invitation.player.user_id:
        raise SignupRefused(Refusal.SELF_PARTNER)
    return replace(invitation, partner=player)


def invitation_for(entries: Sequence[Entry], user_id: int) -> Entry:
    """The unconfirmed invitation naming ``user_id`` as the partner."""
    for entry in entries:
        if entry.partner is not None and entry.partner.user_id == user_id and not entry.confirmed:
            return entry
    raise SignupRefused(Refusal.NO_INVITATION, str(user_id))


def confirmed(entry: Entry) -> Entry:
    return replace(entry, confirmed=True)


def as_single(entry: Entry) -> Entry:
    """The inviter alone: a declined or withdrawn partner leaves them signed up as a single."""
    return Entry(entry.player, tag=entry.tag)


def remaining_after_withdrawal(entry: Entry, user_id: int) -> Entry | None:
    """Who stays signed up when ``user_id`` withdraws from ``entry``: the other player, alone.

    Why keep them: a partner's withdrawal is not the other player's, and a single is
    paired by lot at the draw anyway; they can still withdraw themselves.
    """
    if entry.partner is None:
        return None
    if entry.player.user_id == user_id:
        return Entry(entry.partner, tag=entry.tag) if entry.confirmed else None
    return Entry(entry.player, tag=entry.tag)


# ---------------------------------------------------------------- the draw of entrants


def draw_pairs(entries: Sequence[Entry], seed: DrawSeed) -> tuple[Pair, ...]:
    """Pair the singles by lot and number every pair (see the module docstring)."""
    registered = [(e.player, e.partner, e.tag) for e in entries if e.partner is not None and e.confirmed]
    single_entries = sorted(
        (e for e in entries if e.partner is None or not e.confirmed), key=lambda e: e.player.user_id
    )
    if len(single_entries) % 2:
        raise DrawRefused(Refusal.ODD_SINGLES, f"{len(single_entries)} singles")
    tags = {e.player.user_id: e.tag for e in single_entries}
    shuffled = seed.lots("singles").shuffle([e.player for e in single_entries])
    drawn = [(shuffled[i], shuffled[i + 1]) for i in range(0, len(shuffled), 2)]
    everyone = [(a, b, False, tag) for a, b, tag in registered] + [
        (a, b, True, tags[a.user_id] if tags[a.user_id] == tags[b.user_id] else "") for a, b in drawn
    ]
    if len(everyone) < 2:
        raise DrawRefused(Refusal.TOO_FEW_PAIRS, f"{len(everyone)} pairs")
    ordered = sorted(everyone, key=lambda t: sorted((t[0].user_id, t[1].user_id)))
    numbered = seed.lots("numbers").shuffle(ordered)
    return tuple(Pair(k, (a, b), by_lot, tag) for k, (a, b, by_lot, tag) in enumerate(numbered, start=1))
