"""`python -m tests.support.open_journal URL`: a process that opens the journal at URL (and
so makes it, when it is new) and closes it. Tests start several at once."""

import asyncio
import sys

from launchops.journal.store import Journal


async def main(url: str) -> None:
    journal = await Journal.open(url)
    await journal.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
