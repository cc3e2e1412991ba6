"""CPU a sandbox call costs: JSON-RPC `getLatestBlockhash` and the `/v1` API's
`GET /v1/tokens/{mint}` (a 404), each over one kept connection, the sandbox in this
process (its share and the client's both counted).

    python bench/sandbox_rpc.py [--calls 2000] [--json]

Run by hand, never by CI: these machines are shared and noisy. Every test and every
launch against the sandbox pays this a call.
"""

from __future__ import annotations

import argparse
import json
import time

import httpx

from launchops.sandbox.server import Sandbox, SandboxConfig


def per_call(client: httpx.Client, calls: int, send: callable) -> tuple[float, float]:
    """(ms of CPU, ms of wall) a call, after 100 calls to warm up."""
    for _ in range(100):
        send(client)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(calls):
        send(client)
    return (
        (time.process_time() - cpu) / calls * 1e3,
        (time.perf_counter() - wall) / calls * 1e3,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    body = {"jsonrpc": "2.0", "id": 1, "method": "getLatestBlockhash"}
    with Sandbox(SandboxConfig(port=0, slot_ms=0)) as sandbox, httpx.Client() as client:
        rpc = per_call(client, args.calls, lambda c: c.post(sandbox.rpc_url, json=body))
        api = per_call(client, args.calls, lambda c: c.get(f"{sandbox.base_url}/tokens/{'1' * 32}"))
    found = {
        "rpc_cpu_ms": round(rpc[0], 3),
        "rpc_wall_ms": round(rpc[1], 3),
        "api_cpu_ms": round(api[0], 3),
        "api_wall_ms": round(api[1], 3),
    }
    if args.json:
        print(json.dumps(found))
        return
    for name, value in found.items():
        print(f"{name:<12} {value:8.3f}")


if __name__ == "__main__":
    main()
