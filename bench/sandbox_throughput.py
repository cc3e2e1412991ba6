"""Full launches per second that one sandbox sustains at --slot-ms 0 (target: >= 50/s).

A full launch: create, sign, send each transaction, confirm it (batched status polls),
register. The sandbox runs in its own process (`launchops sandbox serve`), as a user runs
it; this script is the client, with N launches in flight.

    python bench/sandbox_throughput.py [--launches 300] [--concurrency 16] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import statistics
import sys
import time
from pathlib import Path

import httpx
from solders.keypair import Keypair
from solders.message import to_bytes_versioned
from solders.transaction import VersionedTransaction

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from launchops.api import AsyncServiceClient, LaunchConfig
from launchops.sandbox.process import serving
from tests.api import examples


def sign(raw: bytes, keypair: Keypair) -> bytes:
    tx = VersionedTransaction.from_bytes(raw)
    signers = list(tx.message.account_keys[: tx.message.header.num_required_signatures])
    signatures = list(tx.signatures)
    signatures[signers.index(keypair.pubkey())] = keypair.sign_message(
        to_bytes_versioned(tx.message)
    )
    return bytes(VersionedTransaction.populate(tx.message, signatures))


class Rpc:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def call(self, method: str, params: list) -> object:
        answer = (
            await self.http.post(
                "/", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
            )
        ).json()
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]


async def one_launch(client: AsyncServiceClient, rpc: Rpc, creator: Keypair) -> float:
    started = time.perf_counter()
    launch = examples.launchpool_launch()
    launch["publicKey"] = str(creator.pubkey())
    config = LaunchConfig.model_validate(launch)
    created = await client.create_launch(creator.pubkey(), config)
    for raw in created.transactions:
        signed = base64.b64encode(sign(raw, creator)).decode()
        signature = await rpc.call(
            "sendTransaction", [signed, {"encoding": "base64", "skipPreflight": True}]
        )
        while True:
            [status] = (await rpc.call("getSignatureStatuses", [[signature]]))["value"]
            if status and status["confirmationStatus"] in ("confirmed", "finalized"):
                assert status["err"] is None, status
                break
    await client.register_launch(created.genesis_account, config)
    return time.perf_counter() - started


async def run(url: str, launches: int, concurrency: int) -> dict:
    limits = httpx.Limits(max_connections=concurrency * 2)
    async with (
        AsyncServiceClient(url + "/v1", max_connections=concurrency * 2) as client,
        httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as http,
    ):
        rpc = Rpc(http)
        creators = [Keypair() for _ in range(launches)]
        for creator in creators:  # funding is set-up, not part of a launch
            await rpc.call("requestAirdrop", [str(creator.pubkey()), 10 * 10**9])
        queue: asyncio.Queue[Keypair] = asyncio.Queue()
        for creator in creators:
            queue.put_nowait(creator)
        latencies: list[float] = []

        async def worker() -> None:
            while not queue.empty():
                latencies.append(await one_launch(client, rpc, queue.get_nowait()))

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
        stats = (await http.get("/_sandbox/stats")).json()
    return {
        "launches": launches,
        "concurrency": concurrency,
        "seconds": round(elapsed, 2),
        "launches_per_second": round(launches / elapsed, 1),
        "median_launch_ms": round(statistics.median(latencies) * 1000, 1),
        "registered": stats["launches"]["registered"],
        "rpc_calls_per_launch": round((stats["rpcTotal"] - launches) / launches, 1),
        "api_calls_per_launch": round(stats["apiTotal"] / launches, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with serving("--slot-ms", "0") as sandbox:
        result = asyncio.run(run(sandbox.url, args.launches, args.concurrency))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:<24} {value}")
        print(
            "target >= 50 launches/s:", "met" if result["launches_per_second"] >= 50 else "NOT MET"
        )


if __name__ == "__main__":
    main()
