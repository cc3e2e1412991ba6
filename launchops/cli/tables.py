"""Tables that fit the terminal: one line of short columns per row (addresses shortened,
a long key cut with "…"), and what does not fit a column (a launch page, an error) on an
indented line below it, wrapped at word boundaries; a word longer than the line (a URL)
ends in "…", never broken over two lines. `--json` keeps everything whole.

Only rich is imported, when something is printed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from launchops.cli.common import short
from launchops.pipeline import stopping

# A base58 address or signature inside a sentence: shown short, as the tables show it.
_BASE58_WORD = re.compile(r"\b[1-9A-HJ-NP-Za-km-z]{32,90}\b")
GAP = "  "


def shorten_addresses(text: str) -> str:
    """Every base58 address or signature in `text` in its short form (`HrpvHK…N1j2DS`)."""
    return _BASE58_WORD.sub(lambda found: short(found.group()), text)


def fit(text: str, width: int) -> str:
    """`text` in at most `width` characters: cut with "…" when longer."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def fit_middle(text: str, width: int) -> str:
    """`text` in at most `width` characters: its middle cut with "…" when longer, its end
    kept (a claim key's `-N`, which tells its rows apart)."""
    if len(text) <= width or width < 5:
        return fit(text, width)
    tail = min(8, (width - 1) // 2)
    return text[: width - 1 - tail] + "…" + text[-tail:]


def fit_path(text: str, width: int) -> str:
    """A path in at most `width` characters: its middle replaced by "…" (the file name
    kept), when longer."""
    if len(text) <= width:
        return text
    tail = text.rsplit("/", 1)[-1]
    if len(tail) + 2 > width:
        return fit(tail, width)
    return text[: width - len(tail) - 2] + "…/" + tail


def show_path(path: object, width: int) -> str:
    """A path as short as it reads: `~` for the home folder, relative below the working
    folder, then its middle cut with "…" (the file name kept) if still too long."""
    import os

    text = str(path)
    here, home = os.getcwd() + os.sep, os.path.expanduser("~") + os.sep
    if text.startswith(here):
        text = text[len(here) :]
    elif text.startswith(home) and home != os.sep:
        text = "~" + os.sep + text[len(home) :]
    return fit_path(text, width)


@dataclass
class Column:
    header: str
    shrinks: bool = False  # the column cut with "…" when the line is too wide
    right: bool = False
    keeps_end: bool = False  # cut in its middle, not at its end


@dataclass
class Listing:
    """Rows of short cells, each with an optional detail line below it."""

    title: str
    columns: list[Column]
    rows: list[tuple[list[str], str]] = field(default_factory=list)
    caption: str = ""

    def add(self, cells: Sequence[Any], detail: str | None = None) -> None:
        self.rows.append(([str(c) if c is not None else "-" for c in cells], detail or ""))

    def widths(self, width: int) -> list[int]:
        found = [len(c.header) for c in self.columns]
        for cells, _ in self.rows:
            found = [max(w, len(cell)) for w, cell in zip(found, cells, strict=True)]
        # A column short of the screen: a row that fills it reads as one the terminal wrapped.
        over = sum(found) + len(GAP) * (len(found) - 1) - (width - 1)
        for index, column in enumerate(self.columns):
            if over > 0 and column.shrinks:
                cut = min(over, found[index] - max(len(column.header), 8))
                found[index] -= max(cut, 0)
                over -= max(cut, 0)
        return found

    def line(self, cells: Sequence[str], widths: list[int]) -> str:
        parts = []
        for cell, width, column in zip(cells, widths, self.columns, strict=True):
            text = fit_middle(cell, width) if column.keeps_end else fit(cell, width)
            parts.append(text.rjust(width) if column.right else text.ljust(width))
        return GAP.join(parts).rstrip()

    def render(self, width: int) -> Any:
        from rich.console import Group
        from rich.padding import Padding
        from rich.text import Text

        widths = self.widths(width)
        out: list[Any] = [Text(self.title, style="bold")] if self.title else []
        if self.rows:
            out.append(Text(self.line([c.header for c in self.columns], widths), style="dim"))
        for cells, detail in self.rows:
            out.append(Text(self.line(cells, widths)))
            if detail:
                text = Text(shorten_addresses(detail), overflow="ellipsis", style="dim")
                out.append(Padding(text, (0, 0, 0, 4), expand=False))
        if self.caption:
            out.append(Text(self.caption, style="dim"))
        return Group(*out)


def print_listing(listing: Listing) -> None:
    from launchops.cli.common import console

    out = console()
    out.print(listing.render(out.width), soft_wrap=False)


# ── a batch's result ────────────────────────────────────────────────────────


def print_batch(result: dict[str, Any], as_json: bool, what: str) -> None:
    """A batch's result as a listing (or JSON); exit 1 unless every row is `ok` (finished,
    or another worker's). A funding batch has its own columns: agent, amount, state,
    signature, and the error below."""
    import typer

    from launchops.cli.common import console, print_json

    if as_json:
        print_json(result)
    else:
        out = console()
        counts = ", ".join(f"{n} {s}" for s, n in result["counts"].items())
        title = f"{what}: {counts or 'nothing to do'}"
        rows = result["launches"]
        listing = _funding(title, rows) if what == "funding" else _launches(title, rows, out.width)
        out.print(listing.render(out.width), soft_wrap=False)
        spent = result.get("spent") or {}
        if spent.get("lamportsSpent"):
            out.print(
                f"spent:   {spent['lamportsSpent']} lamports in all (tips "
                f"{spent.get('tipLamports', 0)})",
                markup=False,
            )
        for label, path in (
            ("reports:", result["reports"]["json"]),
            ("", result["reports"]["csv"]),
        ):
            out.print(f"{label:<9}{show_path(path, out.width - 9)}", markup=False)
    if result.get("stopped") and stopping.asked() is None:
        # the one line: what stopped the run, and what to do (a signal's: launchops.cli.stops)
        from launchops.cli.common import error_line

        error_line(result["stopped"])
    if any(row.get("state") == "refused" for row in result.get("launches", ())):
        from launchops.cli.common import REFUSED_EXIT

        raise typer.Exit(REFUSED_EXIT)  # its rows say which: nothing of them signed
    if not result["ok"]:
        raise typer.Exit(1)


def _launches(title: str, rows: list[dict[str, Any]], width: int) -> Listing:
    wide = width >= 120  # the file gets its own column; else it shows where no key does
    columns = [Column("key", shrinks=True), Column("state"), Column("mint")]
    if wide:
        columns.append(Column("file", shrinks=True))
    listing = Listing(title, columns)
    for row in rows:
        cells = [row["key"] or row["file"], str(row["state"]), short(row["mint"])]
        if wide:
            cells.append(row["file"])
        detail = _one_line(row["error"]) or row.get("launchPage") or _when(row)
        if row.get("sniped"):
            detail = f"{detail or ''} · sniped: {row['sniped']} buys of others before its first buy"
        listing.add(cells, detail)
    return listing


def _when(row: dict[str, Any]) -> str | None:
    """A scheduled row's line: when its own deployment launches it."""
    when = row.get("scheduledFor")
    if not when:
        return None
    at = f"at {when}" if when[:1].isdigit() else f"on cron '{when}' (UTC)"
    return f"left to its deployment: launches {at}"


def _funding(title: str, rows: list[dict[str, Any]]) -> Listing:
    columns = [
        Column("agent"),
        Column("amount", right=True),
        Column("state"),
        Column("signature"),
        Column("key", shrinks=True),
    ]
    listing = Listing(title, columns)
    for row in rows:
        amount = f"{row['amount']} SOL" if row.get("amount") else "-"
        cells = [short(row.get("agent")), amount, str(row["state"]), short(row.get("signature"))]
        listing.add([*cells, row["key"] or row["file"]], _one_line(row["error"]))
    return listing


def _one_line(error: str | None) -> str:
    """An error's first line, with "…" when more followed."""
    lines = (error or "").strip().splitlines()
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 else "")


__all__ = [
    "Column",
    "Listing",
    "fit",
    "fit_path",
    "print_batch",
    "print_listing",
    "shorten_addresses",
    "show_path",
]
