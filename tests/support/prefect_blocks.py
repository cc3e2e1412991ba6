"""`python -m tests.support.prefect_blocks`: Prefect's block types and schemas registered in
the database PREFECT_API_DATABASE_CONNECTION_URL names (an already migrated one), as a
server's start registers them. The suite's migrated databases are made with them
(`tests/support/prefect_db.py`), so that the servers started on their copies skip that
step: ~1 s of CPU a start."""

import asyncio

from prefect.server.database import provide_database_interface
from prefect.server.models.block_registration import run_block_auto_registration


async def main() -> None:
    database = provide_database_interface()
    async with await database.session() as session:
        await run_block_auto_registration(session=session)


if __name__ == "__main__":
    asyncio.run(main())
