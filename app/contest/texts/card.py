"""The contest's card and sign-up: the card, the formats' help, the privacy note, a sign-up's
answer; and the organiser's words about the mirror and partner changes.
"""

from __future__ import annotations

from app.contest.texts.words import (
    TEXT_LIMIT,
    _fitted,
    deadline_line,
    format_title,
    pair_label,
    phase_text,
    report_example,
)
from app.table.texts import _, escape, preset_title
from engine.contest import (
    FORMATS,
    Contest,
    ContestPhase,
)
from render.words import is_english


def card_text(contest: Contest, locale: str, budget: int = TEXT_LIMIT) -> str:
    """The contest card: name, format, rules, deadline, sign-ups (the first ones, when they
    would not fit ``budget`` characters), the seed's commitment."""
    lines = [
        f"🏆 <b>{escape(contest.name)}</b>",
        _("Format: {title}", locale, title=escape(format_title(contest, locale))),
        _(
            "Match rules: {preset}",
            locale,
            preset=escape(preset_title(contest.settings.match_preset, locale)),
        ),
        deadline_line(contest, locale),
        _(
            "Report a result in this group as {example} (the winning pair's group number).",
            locale,
            example=report_example(contest.settings.event_word),
        ),
        phase_text(contest, locale),
    ]
    if contest.phase is ContestPhase.SIGN_UP:
        lines.append(
            _(
                "Signed up: {n} (sign up with the button, /signup @partner or /signup alone).",
                locale,
                n=len(contest.entries),
            )
        )
        entries = [_entry_line(contest, i, locale) for i in range(len(contest.entries))]
    else:
        entries = []
        lines.append(
            _("Pairs: {n}, still in: {alive}.", locale, n=len(contest.pairs), alive=len(contest.alive))
        )
    tail = [_("Draw seed SHA-256: <code>{commitment}</code>", locale, commitment=contest.seed.commitment)]
    if contest.published_seed is not None:
        tail.append(_("Draw seed: <code>{seed}</code>", locale, seed=contest.published_seed))
    more = _("… and {n} more sign-ups (/contest export lists them all).", locale, n="{n}")
    return _fitted(lines, entries, tail, more, budget)


def _entry_line(contest: Contest, index: int, locale: str) -> str:
    entry = contest.entries[index]
    if entry.partner is None:
        return f"{index + 1}. {escape(entry.player.name)} " + _("(alone: partner by lot)", locale)
    waiting = "" if entry.confirmed else " " + _("(waiting for the partner)", locale)
    return f"{index + 1}. {escape(entry.player.name)} / {escape(entry.partner.name)}{waiting}"


def formats_help(locale: str) -> str:
    """``/contest help``: the formats one line each, how to start one, the commands; short
    (one screen). ``/contest help FORMAT`` is :func:`format_help`."""
    lines = [_("Contest formats (/contest help FORMAT for one format's rules):", locale)]
    for fmt in FORMATS.values():
        title = fmt.title_en if is_english(locale) else fmt.title_zh
        lines.append(f"• <code>{fmt.name}</code> {escape(title)}")
    lines.append(
        _(
            "Start one: /contest new NAME [format=…] [preset=…] "
            "[deadline=YYYY-MM-DD[THH:MM]] "
            "[tz=Asia/Shanghai] [event=掼蛋] [prizes=冠军:1,亚军:1,季军:1] [late_out=3]",
            locale,
        )
    )
    lines.append(
        _(
            "Players: /signup @partner or /signup, /withdraw, /leave (请假, before your match). "
            "Organiser: /draw, /contest deadline, /round close, /round next, "
            "/round start [TABLE] (table clocks), /late CODE GROUP MINUTES, /result, "
            "/contest export, /contest close, /contest wechat (private). "
            "Everyone: /standings, /bracket, /report 掼蛋3组, /newgame match=CODE.",
            locale,
        )
    )
    lines.append(result_help(locale))
    return "\n".join(lines)


def result_help(locale: str) -> str:
    return _(
        "/result CODE WINNER 9:5: the figures come the winner's first, as a score is written "
        "(/result CODE 6 9:5: 6组 won 9 to 5).",
        locale,
    )


def format_help(name: str, locale: str) -> str:
    """``/contest help FORMAT``: one format's title, sources and rules; the short list for a
    name that is no format."""
    fmt = FORMATS.get(name.strip().lower())
    if fmt is None:
        unknown = _("“{name}” is not a contest format.", locale, name=escape(name[:40]))
        return unknown + "\n" + formats_help(locale)
    title = fmt.title_en if is_english(locale) else fmt.title_zh
    description = fmt.description if is_english(locale) else fmt.description_zh or fmt.description
    lines = [
        f"<b>{escape(title)}</b> · <code>{fmt.name}</code> ({', '.join(fmt.sources)})",
        escape(description),
        _("Start one: /contest new NAME format={name}", locale, name=fmt.name),
        result_help(locale),
    ]
    return "\n".join(lines)


def privacy_text(can_read_all: bool, is_admin: bool, event_word: str, locale: str) -> str:
    """Whether typed report lines will reach the bot in this group, and how to make it so."""
    example = report_example(event_word)
    if can_read_all or is_admin:
        return _(
            "✅ I can read this group's messages: a typed {example} line counts as a report.",
            locale,
            example=example,
        )
    return _(
        "⚠️ I cannot read ordinary messages in this group (privacy mode), so a "
        "typed {example} line would not "
        "reach me. Make me an administrator of the group (or turn privacy mode "
        "off with @BotFather: "
        "/setprivacy → Disable, then add me again). Until then, report with "
        "/report {example} or by "
        "replying to the pairing message.",
        locale,
        example=example,
    )


def signup_done_text(contest: Contest, name: str, partner: str | None, locale: str) -> str:
    if partner is None:
        return _(
            "{name} signed up alone: the partner is drawn by lot at the draw.", locale, name=escape(name)
        )
    return _(
        "{name} invites {partner} as a partner: {partner}, please confirm with the button.",
        locale,
        name=escape(name),
        partner=escape(partner),
    )


def tag_text(uses_tags: str, tag: str, locale: str) -> str:
    """The unit (000-S) or time slot (002-E) a sign-up gave."""
    if uses_tags == "slot":
        return _("Time slot: {tag}", locale, tag=escape(tag))
    return _("Unit: {tag} (its A and B teams are drawn into different halves)", locale, tag=escape(tag))


def mirror_set_for_text(name: str, group: str, masked: str, locale: str) -> str:
    return _(
        "Enterprise WeChat mirror of {name} (group {group}) set: {masked}. Every official "
        "announcement of this contest is also posted there.",
        locale,
        name=escape(name),
        group=escape(group),
        masked=escape(masked),
    )


def mirror_off_text(name: str, group: str, locale: str) -> str:
    return _(
        "Enterprise WeChat mirror of {name} (group {group}) turned off.",
        locale,
        name=escape(name),
        group=escape(group),
    )


def which_contest_text(locale: str) -> str:
    return _("You organise several contests: which one gets this webhook?", locale)


def partner_changed_text(name: str, partner: str, number: int, locale: str) -> str:
    return _(
        "{name} now plays with {partner} ({pair}).",
        locale,
        name=escape(name),
        partner=escape(partner),
        pair=pair_label(number, locale),
    )


def mask_url(url: str) -> str:
    """The webhook address without its secret key: ``…key=ab…yz``."""
    head, sep, key = url.partition("key=")
    if not sep:
        return head[:30] + "…"
    return f"{head}key={key[:2]}…{key[-2:]}" if len(key) > 6 else f"{head}key=…"
