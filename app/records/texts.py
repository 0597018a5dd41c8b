"""Every sentence of /stats, /top, /history, 复盘 and /forgetme, for one locale passed in.

Chinese is the default; names are escaped (``escape``) wherever the text is HTML.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from enum import Enum

from app.records.players import Place
from app.records.rating import MIN_MATCHES, Skill
from app.table.texts import N_, _, bracketed, cards_text, escape, play_text, preset_title
from engine.actions import partner_of
from engine.cards import Card, Rank
from engine.contest import Contest, PairRecord
from engine.plays import Play
from players.coach import SHOWN
from render.words import place_name, seat_name
from storage.records import ANONYMOUS, MatchRow, PartnerLine, PlayerRow, PlayerTotals, Rating


class Refusal(Enum):
    """Why a records command or button did nothing; each has its text in both languages."""

    NO_RECORD = "no_record"  # /stats @who: nobody by that name has played
    NO_MATCHES = "no_matches"  # /history, /top in a group without recorded matches
    OTHER_GROUP = "other_group"  # a replay button of another group's match
    NOT_A_PLAYER = "not_a_player"  # the replay is for the table's players only
    UNREACHABLE = "unreachable"  # the private chat was never opened
    STALE = "stale"  # a ◀ ▶ press on a replay that has moved on
    GONE = "gone"  # the match is no longer stored
    PRIVATE_ONLY = "private_only"  # /forgetme in a group
    COACH_PRIVATE = "coach_private"  # 点评 asked in a group, or by someone who did not play
    SEATED = "seated"  # /forgetme while sitting at an open table
    DEAL_NOT_ENDED = "deal_not_ended"  # a deal's replay asked for while the deal is played
    DEAL_NOT_SEATED = "deal_not_seated"  # a deal's replay asked by a non-player, or not in private
    DEAL_UNSHUFFLED = "deal_unshuffled"  # 不洗牌: the deal in play was dealt from the deal asked for


_REFUSALS: dict[Refusal, str] = {
    Refusal.NO_RECORD: N_("No finished match of {who} is recorded."),
    Refusal.NO_MATCHES: N_("No finished match is recorded in this group yet."),
    Refusal.OTHER_GROUP: N_("That match was played in another group."),
    Refusal.NOT_A_PLAYER: N_("Only the table's players may see this replay (the table's setting)."),
    Refusal.UNREACHABLE: N_("Open a private chat with me first (/start), then tap again."),
    Refusal.STALE: N_("This button is out of date; use the replay's newest buttons."),
    Refusal.GONE: N_("That match is no longer stored."),
    Refusal.PRIVATE_ONLY: N_("Send /forgetme to me in the private chat."),
    Refusal.COACH_PRIVATE: N_("Coaching is for your own deals only, in your private chat with me."),
    Refusal.SEATED: N_("Leave your open table first, then send /forgetme again."),
    Refusal.DEAL_NOT_ENDED: N_("That deal is still being played: its replay opens once it has ended."),
    Refusal.DEAL_UNSHUFFLED: N_(
        "No shuffle: the deal being played was dealt from this deal's cards in the order they were "
        "played, so its replay opens once the deal being played has ended."
    ),
    Refusal.DEAL_NOT_SEATED: N_(
        "Only the table's players can replay its deals, each in their private chat with me."
    ),
}


def refusal_text(code: Refusal, locale: str, **values: object) -> str:
    return _(_REFUSALS[code], locale, **values)


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "–"


def player_name(key: str, name: str, locale: str) -> str:
    """A rating key's name as shown: people by name, the computer by its difficulty."""
    if key == ANONYMOUS or (not name and not key.startswith("ai:")):
        return _("(removed)", locale)
    if key == "ai:easy":
        return _("Computer (easy)", locale)
    if key == "ai:master":
        return _("Computer (master)", locale)
    if key.startswith("ai:"):
        return _("Computer (normal)", locale)
    return name


# ---------------------------------------------------------------- /stats


def totals_lines(totals: PlayerTotals, locale: str) -> list[str]:
    """A record's figures, one fact per line (HTML)."""
    f = totals.figures
    deals = f.deals
    lines = [
        _(
            "{matches} matches, {won} won ({rate}) · {deals} deals",
            locale,
            matches=totals.matches,
            won=totals.won,
            rate=percent(totals.won, totals.matches - totals.drawn),
            deals=deals,
        ),
        " · ".join(
            f"{place_name(place + 1, locale)} {count}{bracketed(percent(count, deals), locale)}"
            for place, count in enumerate((f.firsts, f.seconds, f.thirds, f.lasts))
        ),
        _(
            "双下: won {won}, suffered {suffered}",
            locale,
            won=f.double_down_won,
            suffered=f.double_down_suffered,
        ),
        _(
            "Levels per deal {levels} · tributes paid {paid}, received {received} · 抗贡 {anti}",
            locale,
            levels=f"{f.levels_gained / deals:.2f}" if deals else "–",
            paid=f.tributes_paid,
            received=f.tributes_received,
            anti=f.anti_tributes,
        ),
    ]
    return lines


def partner_line(partners: tuple[PartnerLine, ...], locale: str) -> str:
    shown = [
        _(
            "{name} {matches} matches, {won} won",
            locale,
            name=escape(player_name(p.partner, p.name, locale)),
            matches=p.matches,
            won=p.won,
        )
        for p in partners[:5]
    ]
    return _("With partners: {list}", locale, list=" · ".join(shown))


CAPTION_LIMIT = 1024
"""Characters of a photo's caption: Telegram takes 1,024 after parsing the HTML, and the HTML
counted here is never shorter than what it shows."""


def stats_caption(
    name: str,
    here: PlayerTotals | None,
    everywhere: PlayerTotals,
    place: Place | None,
    contests: list[str],
    locale: str,
) -> str:
    """The text beside the 战绩 card: this group (if asked in one), everywhere, contests (the
    first ones, when a long career would not fit :data:`CAPTION_LIMIT`)."""
    lines = [_("<b>{name}'s record</b>", locale, name=escape(name))]
    if here is not None:
        lines.append(_("<b>This group</b>", locale))
        lines += totals_lines(here, locale)
        if here.partners:
            lines.append(partner_line(here.partners, locale))
        if place is not None:
            lines.append(rating_line(place.rating, place.place, place.ranked, locale))
    lines.append(_("<b>Everywhere</b>", locale))
    lines += totals_lines(everywhere, locale)
    if here is None and everywhere.partners:
        lines.append(partner_line(everywhere.partners, locale))
    if contests:
        lines.append(_("<b>Contests</b>", locale))
        lines += contests
    return whole_lines(lines, CAPTION_LIMIT)


def whole_lines(lines: list[str], limit: int) -> str:
    """As many whole lines as fit in ``limit`` characters, then "…". Each line closes its own
    markup; a caption cut anywhere else could end inside a tag or an escaped name's ``&amp;``
    (a player of many contests with long names), and Telegram refused the whole /stats reply."""
    text = ""
    for line in lines:
        longer = f"{text}\n{line}" if text else line
        if len(longer) > limit - 2:  # room for the "…" line
            return f"{text}\n…"
        text = longer
    return text


def contest_record_line(contest: Contest, record: PairRecord, locale: str) -> str:
    """One closed contest in /stats: its name, the place (and prize) and the matches."""
    if record.place is None:
        place = _("not decided", locale)
    else:
        place = _("place {place} of {pairs}", locale, place=record.place, pairs=record.pairs)
    prize = f" 🏅{escape(record.prize)}" if record.prize else ""
    return _(
        "{name}: {place}{prize} · {won} won of {played} · with {partner}",
        locale,
        name=escape(contest.name),
        place=place,
        prize=prize,
        won=record.won,
        played=record.played,
        partner=escape(record.partner),
    )


def rating_line(rating: Rating, place: int, ranked: int, locale: str) -> str:
    skill = Skill(rating.mu, rating.sigma)
    if place:
        return _(
            "Rating {figure} ({matches} matches) · #{place} of {ranked}",
            locale,
            figure=f"{skill.conservative:.1f}",
            matches=rating.matches,
            place=place,
            ranked=ranked,
        )
    return _(
        "Rating {figure} ({matches} matches; ranked from {least})",
        locale,
        figure=f"{skill.conservative:.1f}",
        matches=rating.matches,
        least=MIN_MATCHES,
    )


# ---------------------------------------------------------------- /top


def top_text(ranked: list[Rating], computers: list[Rating], locale: str) -> str:
    lines = [_("<b>Ranking</b> (skill rating μ−3σ, at least {least} matches)", locale, least=MIN_MATCHES)]
    if not ranked:
        lines.append(_("Nobody has played {least} matches here yet.", locale, least=MIN_MATCHES))
    for place, rating in enumerate(ranked, start=1):
        figure = Skill(rating.mu, rating.sigma).conservative
        lines.append(
            _(
                "{place}. {name} — {figure} ({matches} matches)",
                locale,
                place=place,
                name=escape(rating.name),
                figure=f"{figure:.1f}",
                matches=rating.matches,
            )
        )
    if computers:
        shown = [
            f"{player_name(r.player, r.name, locale)} {Skill(r.mu, r.sigma).conservative:.1f}"
            + bracketed(str(r.matches), locale)
            for r in computers
        ]
        lines.append(_("Computer players, not ranked: {list}", locale, list=" · ".join(shown)))
    return "\n".join(lines)


# ---------------------------------------------------------------- /history


def history_text(matches: list[MatchRow], locale: str) -> str:
    lines = [_("<b>Last matches</b>", locale)]
    for match in matches:
        lines.append(match_line(match, locale))
    return "\n\n".join(lines)


def match_line(match: MatchRow, locale: str) -> str:
    """``#12 2026-11-30 · 微信6副 · 北 A / 南 C 胜 东 B / 西 D · 6:0``"""
    date = match.ended_at[:16].replace("T", " ")
    sides = [side_names(match, team, locale) for team in (0, 1)]
    if match.winner_team is None:
        result = _("{a} drew with {b}", locale, a=sides[0], b=sides[1])
    else:
        result = _("{a} beat {b}", locale, a=sides[match.winner_team], b=sides[1 - match.winner_team])
    return f"#{match.table_id} {date} UTC · {escape(preset_title(match.preset, locale))}\n{result} · " + _(
        "{deals} deals", locale, deals=match.deals
    )


def side_names(match: MatchRow, team: int, locale: str) -> str:
    by_seat = {player.seat: player for player in match.players}
    return " / ".join(seat_player(by_seat.get(seat), seat, locale) for seat in (team, partner_of(team)))


def seat_player(player: PlayerRow | None, seat: int, locale: str) -> str:
    name = player_name(player.player, player.name, locale) if player is not None else "?"
    return f"{seat_name(seat, locale)} {escape(name)}"


def scope_text(here: bool, locale: str) -> str:
    return _("This group", locale) if here else _("Everywhere", locale)


def group_only_text(locale: str) -> str:
    return _("Send /top in a group: the ranking is the group's.", locale)


def deal_button(direction: int, locale: str) -> str:
    return _("⏪ Previous deal", locale) if direction < 0 else _("Next deal ⏩", locale)


def replay_button(table_id: int, locale: str) -> str:
    return _("复盘 #{id}", locale, id=table_id)


def export_button(table_id: int, locale: str) -> str:
    return _("Export #{id}", locale, id=table_id)


def older_button(locale: str) -> str:
    return _("Older ▸", locale)


# ---------------------------------------------------------------- 复盘


def frame_title(table_id: int, deal: int, level: str, locale: str) -> str:
    return _("复盘 #{id} · deal {deal} · level {level}", locale, id=table_id, deal=deal, level=level)


def frame_step(step: int, steps: int, locale: str) -> str:
    return _("step {step} of {steps}", locale, step=step, steps=steps)


def hands_heading(locale: str) -> str:
    return _("The hands as dealt", locale)


def trick_heading(number: int, tricks: int, locale: str) -> str:
    return _("Trick {number} of {tricks}", locale, number=number, tricks=tricks)


def tribute_heading(locale: str) -> str:
    return _("Tribute and return", locale)


def passed_word(locale: str) -> str:
    return _("Pass", locale)


def cards_left_note(count: int, locale: str) -> str:
    return _("{count} left", locale, count=count)


def trick_won_note(seat: int, name: str, locale: str) -> str:
    return _("{who}'s play stood", locale, who=f"{seat_name(seat, locale)} {name}")


def deal_over_note(order: tuple[int, ...], names: list[str], locale: str) -> str:
    places = " ".join(
        f"{place_name(i + 1, locale)} {seat_name(s, locale)} {names[s]}" for i, s in enumerate(order)
    )
    return _("Deal over: {places}", locale, places=places)


def tribute_note(payer: str, receiver: str, card: Card, locale: str) -> str:
    return _(
        "{payer} pays {card} to {receiver}",
        locale,
        payer=payer,
        receiver=receiver,
        card=cards_text([card], locale),
    )


def return_note(giver: str, receiver: str, card: Card, locale: str) -> str:
    return _(
        "{giver} returns {card} to {receiver}",
        locale,
        giver=giver,
        receiver=receiver,
        card=cards_text([card], locale),
    )


def anti_tribute_note(seats: tuple[int, ...], locale: str) -> str:
    who = " ".join(seat_name(seat, locale) for seat in seats)
    return _("抗贡: {who} hold the red jokers, no tribute", locale, who=who)


def play_note(play: Play | None, level: Rank, locale: str) -> str:
    return passed_word(locale) if play is None else play_text(play, level, locale)


def replay_sent_text(locale: str) -> str:
    return _("The replay is in your private chat.", locale)


def transcript_caption(table_id: int, locale: str) -> str:
    return _("Transcript of match #{id}: one action per line (README: Transcripts).", locale, id=table_id)


# ---------------------------------------------------------------- 复盘点评

_CIRCLED = "①②③④⑤⑥⑦⑧⑨"


def circled(number: int) -> str:
    """①, ②, ③: a marked decision's number, in the caption and on the picture."""
    return _CIRCLED[number - 1] if 0 < number <= len(_CIRCLED) else f"({number})"


def coach_button(locale: str) -> str:
    return _("🎓 Coach this deal", locale)


def deal_replay_button(locale: str) -> str:
    """Under a deal's hand message once the deal has ended: its replay, with 🎓, at once."""
    return _("🎓 Replay and coaching", locale)


def coach_jump_button(direction: int, locale: str) -> str:
    return _("◀ Coaching", locale) if direction < 0 else _("Coaching ▶", locale)


def coaching_wait_text(locale: str) -> str:
    return _("The master is going over your decisions in this deal (under a minute)…", locale)


def coaching_failed_text(locale: str) -> str:
    return _("The coaching could not be worked out just now; tap again later.", locale)


def levels_text(cost: float) -> str:
    """A price in levels to one decimal, halves rounded up: the draws give it to about ±0.3, so
    a second digit would claim more than it has; ``f"{0.25:.1f}"`` would print "0.2" (it rounds
    the binary value half to even)."""
    return str(Decimal(repr(cost)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def coaching_caption(
    deal_number: int,
    seat_label: str,
    lines: list[tuple[int, str, str, float | None]],
    weighed: int,
    locale: str,
    shown: int = SHOWN,
) -> str:
    """The 点评 under a replay picture (HTML): each marked decision (trick, played, suggested,
    cost: ``None`` where the judge is not sure of it, so no figure is given), then how it was
    judged. ``played`` and ``suggested`` are worded already. Fewer marks than ``shown`` say that
    only so many decisions made a clear difference."""
    heading = _("🎓 Coaching · deal {deal} · {seat}", locale, deal=deal_number, seat=escape(seat_label))
    if not lines:
        body = [_("No costly decision found ({weighed} of your decisions weighed).", locale, weighed=weighed)]
    else:
        body = [
            _coached_line(i, trick, escape(played), escape(suggested), cost, locale)
            for i, (trick, played, suggested, cost) in enumerate(lines, start=1)
        ]
        if len(lines) < shown:
            body.append(_fewer_marks(len(lines), weighed, locale))
        if any(cost is None for *_, cost in lines):
            body.append(
                _(
                    "“Probably better”: the master's play came out ahead on the deals tried, "
                    "but not clearly enough to put a figure on it.",
                    locale,
                )
            )
        body.append(
            _(
                "Judged from the cards you could see then, not from the hands the deal showed later. "
                "◀ Coaching ▶ jumps to each moment.",
                locale,
            )
        )
    return whole_lines([f"<b>{heading}</b>", *body], CAPTION_LIMIT)


def _coached_line(n: int, trick: int, played: str, suggested: str, cost: float | None, locale: str) -> str:
    if cost is None:
        return _(
            "{n} Trick {trick} · you: {played} · the master: {suggested}, probably better (not sure)",
            locale,
            n=circled(n),
            trick=trick,
            played=played,
            suggested=suggested,
        )
    return _(
        "{n} Trick {trick} · you: {played} · the master: {suggested}, about {cost} levels a deal better",
        locale,
        n=circled(n),
        trick=trick,
        played=played,
        suggested=suggested,
        cost=levels_text(cost),
    )


def _fewer_marks(marks: int, weighed: int, locale: str) -> str:
    """One or two marks of the three a 点评 can show (“只有两个决定有明显差别”)."""
    if marks == 1:
        return _(
            "Only one of your decisions made a clear difference ({weighed} weighed).", locale, weighed=weighed
        )
    return _(
        "Only two of your decisions made a clear difference ({weighed} weighed).", locale, weighed=weighed
    )


def suggestion_label(locale: str) -> str:
    return _("Master would play", locale)


def suggestion_note(cost: float | None, locale: str) -> str:
    """Under the master's play: its price, or ``None`` where the judge is not sure of it."""
    if cost is None:
        return _("probably better (not sure)", locale)
    return _("about {cost} levels a deal better", locale, cost=levels_text(cost))


# ---------------------------------------------------------------- /forgetme


def forget_prompt(seats: int, groups: int, locale: str) -> str:
    return _(
        "Stored about you: your name and Telegram id at {seats} seats of finished matches in {groups} "
        "groups, your ratings, your @username and your settings. /forgetme removes your name and id: "
        "the matches stay for the other players, with your seat shown as removed. This cannot be undone.",
        locale,
        seats=seats,
        groups=groups,
    )


def forget_buttons(locale: str) -> tuple[str, str]:
    return _("Remove my data", locale), _("Keep it", locale)


def forgotten_text(seats: int, locale: str) -> str:
    return _("Done: your name and id were removed from {seats} seats.", locale, seats=seats)


def kept_text(locale: str) -> str:
    return _("Nothing was removed.", locale)
