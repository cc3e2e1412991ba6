"""A batch's report as a Prefect table artifact, seen in the UI beside the flow run.

Its description opens with one line of counts per state and one per worker; its table
leads with what a person reads first (launch, state, worker, short mint, launch page,
error), file names relative to the batch's folder; the full addresses, paths and errors
are in the JSON and CSV reports."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import acreate_table_artifact

from launchops.pipeline.batch import BatchRow, counts

ERROR_CHARS = 160


def short(address: str | None) -> str | None:
    """`7xKX…gAsU`: enough to tell mints apart at a glance."""
    return f"{address[:4]}…{address[-4:]}" if address and len(address) > 12 else address


def clipped(text: str | None, limit: int = ERROR_CHARS) -> str | None:
    return text if text is None or len(text) <= limit else text[: limit - 1] + "…"


def relative_files(files: list[str]) -> dict[str, str]:
    """Each file's name relative to the folder the batch's files share."""
    paths = [Path(f) for f in files if Path(f).is_absolute()]
    base = os.path.commonpath([p.parent for p in paths]) if paths else None
    return {str(p): os.path.relpath(p, base) for p in paths} if base else {}


def summary_lines(rows: list[BatchRow], noun: str = "launches") -> list[str]:
    """`4 launches: 1 needs_attention, 3 registered` and `by worker: w1 3, w2 1`."""
    by_state = ", ".join(f"{n} {state}" for state, n in counts(rows).items())
    workers: dict[str, int] = {}
    for row in rows:
        if row.state == "scheduled":  # left to its own deployment: no worker of this batch's
            continue
        workers[row.worker or "-"] = workers.get(row.worker or "-", 0) + 1
    by_worker = ", ".join(f"{name} {n}" for name, n in sorted(workers.items()))
    return [f"{len(rows)} {noun}: {by_state or 'none'}", f"by worker: {by_worker or 'none'}"]


def table(rows: list[BatchRow]) -> list[dict[str, Any]]:
    """One dict a row, its keys the columns in the order a person reads them."""
    names = relative_files([row.file for row in rows])
    transfers = any(row.agent for row in rows)
    scheduled = any(row.scheduled_for for row in rows)
    found = []
    for row in rows:
        cells: dict[str, Any] = {
            "launch": row.key,
            "state": str(row.state),
            "worker": row.worker,
            "mint": short(row.mint),
            "launch page": row.launch_page,
            "error": clipped(row.error),
            "file": names.get(row.file, row.file),
        }
        if scheduled:  # when its own deployment launches a file the batch left to it
            cells["scheduled for"] = row.scheduled_for
        if transfers:
            cells |= {"agent": short(row.agent), "amount": row.amount}
            cells["signature"] = short(row.signature)
        found.append(cells)
    return found


@task(name="report", persist_result=False)
async def publish_report(rows: list[BatchRow], key: str, title: str) -> str:
    lines = summary_lines(rows, "transfers" if any(row.agent for row in rows) else "launches")
    await acreate_table_artifact(  # a line each: markdown's hard line breaks
        key=key, table=table(rows), description="  \n".join([f"**{title}**", *lines])
    )
    return lines[0]
