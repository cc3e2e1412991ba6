"""What a launch or a transfer ended as, in a panel that fits the terminal: addresses
whole when they fit (short when not), errors wrapped at word boundaries, and for a state
that needs someone to act, the command that acts (`next`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from launchops.cli.common import console, short
from launchops.cli.tables import fit, shorten_addresses, show_path
from launchops.pipeline import stopping
from launchops.states import REGISTRABLE, LaunchState

if TYPE_CHECKING:
    from launchops.config.profiles import Profile

LABEL = 12  # the label column, its gap included
FRAME = 4  # a panel's borders and padding
# Landed, not registered, and no refusal kept: a register that gave up (5xx, no answer).
UNREGISTERED = REGISTRABLE - {LaunchState.REGISTER_FAILED}


def next_step(result: dict[str, Any], again: str) -> tuple[str, str] | None:
    """What to do next for a launch left in `result['state']`, and the command that does
    it; `again` is the command that ran it."""
    state, key = result["state"], result["key"]
    if result.get("finished"):
        return None
    if state == "register_failed":
        what = "the service refused the registration; once fixed, register what landed:"
        return what, "launchops registrations retry"
    if state in UNREGISTERED:
        what = "the token is live (its transactions landed) but not registered; register it:"
        return what, "launchops registrations retry"
    if state == "needs_attention":
        what = f"{_landed(result)}: a person decides what to do with what landed. What happened:"
        return what, f"launchops status {key}"
    if state == "failed":
        return "nothing landed: fix what the error says, then run it again:", again
    if state == "refused":
        what = (
            "nothing signed: the service's answer asks for what the file does not. Check "
            "who answers for the service (the profile's base_url, a proxy); run again to "
            "create again:"
        )
        return what, again
    if result.get("resumable", True):
        return "nothing is lost; continue it with:", f"launchops resume {key}"
    return "where it stands:", f"launchops status {key}"


def live_line(result: dict[str, Any]) -> str | None:
    """The one line for a launch whose transactions landed but that is not registered (a
    register that gave up): that its token is live, its mint, and what registers it."""
    if result.get("finished") or result["state"] not in UNREGISTERED or stopping.asked():
        return None  # after a stop, its one line says where the launch was left
    return (
        f"{result['key']} is live but not registered: its transactions landed (state "
        f"{result['state']}, mint {result.get('mint')}); launchops registrations retry "
        f"registers it. Register failed: {result.get('error') or 'no answer'}"
    )


def _landed(result: dict[str, Any]) -> str:
    details = next((d for d in result.get("errorDetails") or [] if isinstance(d, dict)), {})
    landed, missing = details.get("landed"), details.get("notLanded")
    if landed is None or missing is None:
        return "some transactions landed and the rest cannot be repaired"
    total = len(landed) + len(missing)
    return (
        f"{len(landed)} of {total} transactions landed (the mint and genesis account exist) "
        "and the rest cannot land, so launchops will not create it again"
    )


def spent_line(result: dict[str, Any]) -> str:
    """`25000 lamports: fees 15000, tip 10000 (bundle); attempt 1 tip 5000 not paid`."""
    attempts = result.get("spent") or []
    fees = sum(a.get("feeLamports", 0) for a in attempts)
    tips = sum(a.get("tipLamports", 0) for a in attempts if a.get("tipPaid"))
    modes = "/".join(dict.fromkeys(a.get("mode", "plain") for a in attempts))
    line = (
        f"{result.get('lamportsSpent', fees + tips)} lamports: fees {fees}, tips {tips} ({modes})"
    )
    unpaid = [a for a in attempts if a.get("tipLamports") and not a.get("tipPaid")]
    for attempt in unpaid:
        line += f"; attempt {attempt['attempt']} offered {attempt['tipLamports']}, not paid"
    return line


def sniped_line(signatures: list[str]) -> str:
    """Plain mode's finding: others bought before the creator's first buy."""
    count = len(signatures)
    shown = ", ".join(short(s) for s in signatures[:3])
    return (
        f"{count} buy{'s' if count > 1 else ''} of others landed between the create and "
        f"your first buy ({shown}): it paid more than the opening price; landing.mode: "
        "bundle leaves no gap"
    )


def explorer_note(settings: Profile) -> str:
    """Why a result has no explorer links."""
    if settings.service == "sandbox":
        return "none: the sandbox has no explorer (the result JSON's links are null)"
    return f"none: profile {settings.name} sets no `explorer` (the result JSON's links are null)"


def print_launch(
    result: dict[str, Any], written: Path | None, settings: Profile, again: str
) -> None:
    """The panel of a launch's result (`written`: where its JSON was written, if it was)."""
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    room = max(out.width - FRAME - LABEL, 20)
    grid = _Grid(room)
    grid.add("state", result["state"])
    grid.add("launch page", result.get("launchPage"))
    if result.get("launchPage") and result.get("launchPageServedBy"):
        grid.add("", f"(open while `{result['launchPageServedBy']}` runs)")
    grid.address("mint", result.get("mint"))
    grid.address("genesis", result.get("genesisAccount"))
    explorer = result.get("explorer") or {}
    links = [explorer.get("mint"), *(explorer.get("transactions") or [])]
    if not any(links) and (result.get("mint") or result.get("signatures")):
        grid.add("explorer", explorer.get("note") or explorer_note(settings))
    if result.get("spent"):
        grid.add("spent", spent_line(result))
    if result.get("snipedBy"):
        grid.add("sniped", sniped_line(result["snipedBy"]))
    _add_error(grid, result)
    step = next_step(result, again)
    if step is not None:
        grid.add("next", step[0])
        grid.add("", step[1], whole=True)
    if written is not None:
        grid.add("result", show_path(written, room))
    # a Text: a Panel reads a str title as markup
    title = Text(f"{fit(result['key'], out.width - 40)}: {_outcome(result)}")
    style = "green" if result["finished"] else "red"
    out.print(Panel(grid.table, title=title, border_style=style, expand=False), soft_wrap=False)
    for link in filter(None, links):  # whole, below: a link cut short opens nothing
        out.print(f"explorer  {link}", markup=False, highlight=False)


def _add_error(grid: _Grid, result: dict[str, Any]) -> None:
    """The result's error, and a line for each of its details."""
    if result.get("error"):
        grid.add("error", shorten_addresses(result["error"]))
    for detail in result.get("errorDetails") or []:
        for line in _detail_lines(detail):
            grid.add("", line)


def _outcome(result: dict[str, Any]) -> str:
    """What the panel's title says happened."""
    if result["state"] in UNREGISTERED:
        return f"live, not registered ({result['state']})"
    if not result["finished"]:
        return result["state"]
    if result.get("fromJournal"):  # a re-run: nothing was done, the journal reports it
        return f"already {result['state']}, from the journal"
    return "launched"


def print_transfer(result: dict[str, Any]) -> None:
    """A fund's or a withdraw's result: what moved, where it stands, what to do next; one
    sent before this run says it was, and that nothing was sent again."""
    out = console()
    if result.get("fromJournal"):
        sent = (result["signatures"] or [None])[-1]
        again = "nothing was sent again; to pay again on purpose, give it a new --id"
        out.print(f"already sent, from the journal: {short(sent)} ({again})", markup=False)
    grid = _Grid(max(out.width - LABEL, 20))
    grid.add(result["kind"], f"{result['amount']} SOL")
    grid.address("agent", result["agent"])
    grid.add("state", result["state"])
    for signature in result["signatures"] or []:
        grid.address("signature", signature)
    if result["error"]:
        grid.add("error", shorten_addresses(result["error"]))
    if not result["finished"]:
        grid.add("next", "fix what the error says, then run the same command again")
    out.print(grid.table, soft_wrap=False, style=None if result["finished"] else "red")


def print_dry_run(report: dict[str, Any]) -> None:
    """What a dry run found: the accounts create made, and each transaction's simulation;
    a later transaction that fails where every earlier one would succeed is said to build
    on them (a dry run sends none, so that alone can fail it)."""
    out = console()
    out.print(f"dry run of {report['key']}: nothing was sent or recorded", markup=False)
    grid = _Grid(max(out.width - LABEL, 20))
    grid.address("mint", report.get("mint"))
    grid.address("genesis", report.get("genesisAccount"))
    clean = True  # every earlier transaction would succeed
    for sim in report["simulations"]:
        err, index = sim["err"], sim["transaction"]
        label = f"transaction {index}"
        if err is None:
            grid.add(label, "would succeed")
            continue
        text = err if isinstance(err, str) else json.dumps(err)
        if clean and index > 1:
            earlier = "transaction 1" if index == 2 else f"transactions 1 to {index - 1}"
            grid.add(
                label,
                f"fails in simulation ({shorten_addresses(text)}), as expected: it builds on "
                f"{earlier}, which a dry run does not send",
            )
        else:
            grid.add(label, f"would fail: {shorten_addresses(text)}")
        clean = False
    if report.get("landing"):
        grid.add("landing", report["landing"])
    out.print(grid.table, soft_wrap=False)


class _Grid:
    """Label and value, the value wrapped at words in `room` columns."""

    def __init__(self, room: int) -> None:
        from rich.table import Table

        self.room = room
        self.table = Table.grid(padding=(0, 1))
        self.table.add_column(no_wrap=True, min_width=LABEL - 1)
        self.table.add_column(overflow="ellipsis", max_width=room)

    def add(self, label: str, value: str | None, *, whole: bool = False) -> None:
        """A row; `whole`: on one line (a command), cut with "…" only if it cannot fit."""
        from rich.text import Text

        if value:
            self.table.add_row(label, Text(value, overflow="ellipsis", no_wrap=whole))

    def address(self, label: str, value: str | None) -> None:
        """An address or signature: whole when it fits, else short."""
        if value:
            self.add(label, value if len(value) <= self.room else short(value))


def _detail_lines(detail: Any) -> list[str]:
    """A kept error detail as short lines: `landed: 3KBNGo…KjAXB`, one a field."""
    if not isinstance(detail, dict):
        return [shorten_addresses(json.dumps(detail))]
    lines = []
    for name, value in detail.items():
        words = re.sub(r"(?<=[a-z])([A-Z])", lambda m: " " + m.group(1).lower(), name)
        if isinstance(value, list):
            shown = ", ".join(v if isinstance(v, str) else json.dumps(v) for v in value)
        elif isinstance(value, str):
            shown = value
        else:
            shown = json.dumps(value)
        lines.append(f"{words}: {shorten_addresses(shown) or '-'}")
    return lines


__all__ = [
    "explorer_note",
    "live_line",
    "next_step",
    "print_dry_run",
    "print_launch",
    "print_transfer",
]
