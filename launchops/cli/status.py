"""`launchops status`: the journal, every launch's state or one launch's events, filtered
by state and by when it last changed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer

from launchops.cli.command import Call, shared
from launchops.cli.common import console, print_json, refuse, run, short
from launchops.cli.tables import shorten_addresses
from launchops.states import Kind

if TYPE_CHECKING:
    from launchops.config.profiles import Profile


@shared()
def status(
    call: Call,
    key: Annotated[str | None, typer.Argument(help="One launch's key; all when left out.")] = None,
    state: Annotated[
        list[str] | None,
        typer.Option("--state", help="Only launches in this state (repeat for several)."),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only launches changed since: 30m, 2h, 1d, or a time."),
    ] = None,
) -> None:
    """The journal: every launch's state, or one launch in detail with its events."""
    changed_after = _since(since) if since else None
    wanted = _states(state) if state else None
    records, events = run(read_journal(call.settings, key))
    if key is not None and not records:  # an unknown key is refused, as resume refuses it
        raise refuse(f"no launch {key!r} in the journal of profile {call.profile}")
    records = [
        r
        for r in records
        if (wanted is None or str(r.state) in wanted)
        and (changed_after is None or r.updated_at >= changed_after)
    ]
    if call.as_json:
        data: Any = [r.as_dict() for r in records]
        if key is not None:
            data = {
                **data[0],
                "events": [{"at": at.isoformat(), "step": s, "message": m} for at, s, m in events],
            }
        print_json(data)
        return
    if not records:  # a title over nothing reads as a broken table: say what is there
        where = "" if call.profile == "sandbox" else f" --profile {call.profile}"
        console().print(
            f"no launches in the journal of profile {call.profile} yet; "
            f"launchops launch FILE{where} starts one",
            markup=False,
        )
        return
    _print_status(call.profile, records, events)


def _since(text: str) -> datetime:
    """The time `--since` names: a duration ago (`30m`, `2h`, `1d`) or a time with its
    zone; refused in one line otherwise."""
    from launchops.cli.batches import parse_duration

    try:
        return datetime.now(UTC) - parse_duration(text)
    except typer.BadParameter:
        pass
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise refuse(
            f"--since {text!r}: give a duration (30m, 2h, 1d) or a time with its zone "
            "(2027-06-01T15:00:00Z)"
        )
    return when


def _states(given: list[str]) -> set[str]:
    """The states `--state` names (comma-separated or repeated), each a known one."""
    from launchops.states import LaunchState

    names = {part.strip() for item in given for part in item.split(",") if part.strip()}
    known = {str(s) for s in LaunchState}
    unknown = sorted(names - known)
    if unknown:
        raise refuse(
            f"--state {', '.join(unknown)}: not a state; one of {', '.join(sorted(known))}"
        )
    return names


def _print_status(profile: str, records: list[Any], events: list[Any]) -> None:
    """One line a launch (its page or error on a line below it), then the events of one."""
    from rich.text import Text

    from launchops.cli.tables import Column, Listing, print_listing

    key = Column("key", shrinks=True, keeps_end=True)  # a claim key's -N tells its rows apart
    columns = [key, Column("state"), Column("tries", right=True)]
    columns += [Column("mint"), Column("spent", right=True), Column("updated")]
    listing = Listing(f"launches · profile {profile}", columns)
    total = 0
    for r in records:
        detail = r.registered.link if r.registered else r.last_error
        if r.sniped_by:
            detail = f"{detail or ''} · sniped: {len(r.sniped_by)} buys before its first buy"
        updated = r.updated_at.strftime("%m-%d %H:%M:%S")
        spent = r.lamports_spent if r.kind is Kind.LAUNCH else 0
        total += spent
        shown = str(spent) if spent else "-"
        listing.add([r.key, r.state, r.attempt, short(r.mint), shown, updated], detail)
    print_listing(listing)
    if total:
        console().print(f"spent: {total} lamports in all (fees, rent, tips)", markup=False)
    out = console()
    for at, step, message in events:
        line = f"  {at:%H:%M:%S} {step:<9} {shorten_addresses(message)}"
        out.print(Text(line, overflow="ellipsis"), soft_wrap=False)


async def read_journal(settings: Profile, key: str | None) -> tuple[list[Any], list[Any]]:
    from launchops.journal.store import Journal

    journal = await Journal.open(settings.journal)
    try:
        if key is None:
            return await journal.all(attempts=True), []
        record = await journal.get(key)
        return ([record] if record else []), (await journal.events(key) if record else [])
    finally:
        await journal.close()
