"""A batch's report as a Prefect table artifact, seen in the UI beside the flow run."""

from __future__ import annotations

from prefect import task
from prefect.artifacts import acreate_table_artifact

from launchops.pipeline.batch import BatchRow, counts


@task(name="report", persist_result=False)
async def publish_report(rows: list[BatchRow], key: str, title: str) -> str:
    summary = ", ".join(f"{n} {state}" for state, n in counts(rows).items())
    await acreate_table_artifact(
        key=key, table=[row.as_json() for row in rows], description=f"{title}: {summary}"
    )
    return summary
