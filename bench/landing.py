"""Landing on a busy cluster: plain sends, plain sends through two more senders, Jito
bundles, and the public JS client, over the sandbox's `congestion` fault; then, with its
sniper on, how often a bonding curve's first buy got the opening price.

    python bench/landing.py                  # the README's table: 20 launches, 400 ms slots
    python bench/landing.py --small          # 3 launches, 40 ms slots, congestion 0 and 0.9
    python bench/landing.py --congestion 0.9 --modes bundle plain --count 20

Each congestion level gets a sandbox of its own (`launchops sandbox serve`); each mode a
journal of its own. launchops runs in this process (a batch at --concurrency); the JS
client in node, one launch after another, as its CLI runs them. Time to registered is the
journal's create-to-registered for launchops and the client's own clock for JS; creates
per launch and lamports per launch (fees and tips; rent left out) come from the journal.
The JS client pays the same fees as a plain create when it lands and no tip; it creates
once (a send that never lands fails the launch). Needs node and `npm ci` in
tests/interop/js for the JS column (else it is skipped). Run by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from launchops.config.profiles import load_profile  # noqa: E402
from launchops.pipeline.batch import run_batch  # noqa: E402
from launchops.pipeline.context import open_context  # noqa: E402
from launchops.sandbox import bonding  # noqa: E402
from launchops.sandbox.genesis_create import plan  # noqa: E402
from launchops.sandbox.process import serving  # noqa: E402
from tests.support.pipeline import dump_yaml, launch_document  # noqa: E402

JS = ROOT / "tests" / "interop" / "js"
BUNDLE = {"mode": "bundle", "tip_lamports": 10_000, "max_tip_lamports": 80_000}
MODES = ("plain", "plain + 2 senders", "bundle", "public JS client")


def landing_of(mode: str, rpc_url: str) -> dict[str, Any]:
    if mode == "bundle":
        return BUNDLE
    if mode == "plain + 2 senders":  # two more paths to the leader: each send is a new chance
        return {"senders": [rpc_url, rpc_url]}
    return {}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def launchops_cell(
    url: str, mode: str, count: int, concurrency: int, curve: bool
) -> dict[str, Any]:
    """`count` launches in one batch; their times, creates, lamports (and first buys)."""
    home = Path(tempfile.mkdtemp(prefix="launchops-landing-"))
    folder = home / "files"
    folder.mkdir()
    paths = []
    for index in range(count):
        key = f"{'curve' if curve else 'busy'}-{index}"
        document = curve_document(key) if curve else launch_document(key=key)
        path = folder / f"{key}.yaml"
        path.write_text(dump_yaml(document))
        paths.append(path)
    profile = load_profile(
        "sandbox",
        base_url=f"{url}/v1",
        rpc_url=url,
        embedded_sandbox=False,
        state_dir=home,
        concurrency=concurrency,
        landing=landing_of(mode, url),
    )
    async with open_context(profile) as ctx:
        rows = await run_batch(ctx, paths)
        records = [await ctx.journal.get(row.key) for row in rows if row.key]
        opening = [await opening_price(ctx, r) for r in records if curve and r.mint]
    done = [r for r in records if r.state == "registered"]
    seconds = [(r.updated_at - r.created_at).total_seconds() for r in done]
    return {
        "registered": len(done),
        "seconds": seconds,
        "creates": statistics.mean(r.attempt for r in records) if records else 0,
        "lamports": statistics.mean(_fees_and_tips(r) for r in records) if records else 0,
        "opening": sum(opening),
        "sniped_named": sum(1 for r in records if r.sniped_by),
    }


def _fees_and_tips(record: Any) -> int:
    """Fees and tips paid, rent left out (`lamportsSpent` holds all that left the creator)."""
    spent = [a.spent for a in record.attempts if a.spent]
    return sum(s.fee_lamports + (s.tip_lamports if s.tip_paid else 0) for s in spent)


def curve_document(key: str) -> dict[str, Any]:
    return {
        "id": key,
        "name": "Curve Token",
        "symbol": "CURVE",
        "image": "https://gateway.irys.xyz/curve",
        "bondingCurve": {"firstBuyAmount": "1"},
    }


async def opening_price(ctx: Any, record: Any) -> bool:
    """Whether the first buy got what the curve gives at its opening price."""
    from solders.pubkey import Pubkey

    launch = plan(record.launch, record.launch.public_key, Pubkey.from_string(record.mint))
    buy = bonding.first_buy(record.launch, launch)
    if buy is None:
        return False
    held = (await ctx.rpc.client.get_token_account_balance(buy.account)).value
    return int(held.amount) == buy.tokens


def js_cell(url: str, count: int, plain_fee: float) -> dict[str, Any] | None:
    if not (JS / "node_modules" / "@metaplex-foundation" / "genesis").is_dir():
        return None
    secret = funded_key(url)
    run = subprocess.run(
        ["node", str(JS / "launch_each.mjs"), url, url, json.dumps(secret), str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(line) for line in run.stdout.strip().splitlines()]
    landed = [line for line in lines if line["ok"]]
    return {
        "registered": len(landed),
        "seconds": [line["milliseconds"] / 1000 for line in landed],
        "creates": 1,
        "lamports": plain_fee * len(landed) / max(1, len(lines)),
        "opening": None,
        "sniped_named": None,
    }


def funded_key(url: str) -> list[int]:
    from solana.rpc.async_api import AsyncClient
    from solders.keypair import Keypair

    from tests.support.solana import wait_for

    keypair = Keypair()

    async def fund() -> None:
        async with AsyncClient(url) as rpc:
            signature = (await rpc.request_airdrop(keypair.pubkey(), 1000 * 10**9)).value
            await wait_for(rpc, signature, deadline=120)

    asyncio.run(fund())
    return list(bytes(keypair))


def set_faults(url: str, **faults: Any) -> None:
    httpx.put(f"{url}/_sandbox/faults", json=faults).raise_for_status()


def row_of(congestion: float, mode: str, count: int, cell: dict[str, Any]) -> dict[str, Any]:
    seconds = cell["seconds"]
    return {
        "congestion": congestion,
        "mode": mode,
        "registered": f"{cell['registered']}/{count}",
        "median_s": round(statistics.median(seconds), 2) if seconds else None,
        "p90_s": round(percentile(seconds, 0.9), 2) if seconds else None,
        "creates_per_launch": round(cell["creates"], 2),
        "lamports_per_launch": round(cell["lamports"]),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    rows, sniper = [], []
    for congestion in args.congestion:
        with serving("--slot-ms", str(args.slot_ms)) as sandbox:
            set_faults(sandbox.url, congestion=congestion)
            plain_fee = 0.0
            for mode in args.modes:
                if mode == "public JS client":
                    cell = js_cell(sandbox.url, args.count, plain_fee)
                    if cell is None:
                        print("JS client skipped: npm ci in tests/interop/js", file=sys.stderr)
                        continue
                else:
                    cell = asyncio.run(
                        launchops_cell(sandbox.url, mode, args.count, args.concurrency, False)
                    )
                    plain_fee = plain_fee or cell["lamports"]
                rows.append(row_of(congestion, mode, args.count, cell))
                print(json.dumps(rows[-1]), file=sys.stderr)
    with serving("--slot-ms", str(args.slot_ms)) as sandbox:
        set_faults(sandbox.url, sniper=0.5)
        for mode in (m for m in args.modes if m != "public JS client"):
            cell = asyncio.run(
                launchops_cell(sandbox.url, mode, args.count, args.concurrency, True)
            )
            sniper.append(
                {
                    "mode": mode,
                    "opening_price": f"{cell['opening']}/{args.count}",
                    "sniped_and_named": f"{cell['sniped_named']}/{args.count}",
                }
            )
            print(json.dumps(sniper[-1]), file=sys.stderr)
    return {"count": args.count, "slot_ms": args.slot_ms, "landing": rows, "sniper": sniper}


def table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['count']} launches, {result['slot_ms']} ms slots",
        "",
        "| congestion | mode | registered | median s | p90 s | creates/launch | lamports/launch |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in result["landing"]:
        lines.append(
            f"| {row['congestion']} | {row['mode']} | {row['registered']} | {row['median_s']} "
            f"| {row['p90_s']} | {row['creates_per_launch']} | {row['lamports_per_launch']} |"
        )
    lines += ["", "| sniper on | first buy at the opening price | sniped, named |", "|---|---|---|"]
    for row in result["sniper"]:
        lines.append(f"| {row['mode']} | {row['opening_price']} | {row['sniped_and_named']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--slot-ms", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--congestion", type=float, nargs="+", default=[0.0, 0.5, 0.9])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--small", action="store_true", help="3 launches, 40 ms slots")
    args = parser.parse_args()
    if args.small:
        args.count, args.slot_ms, args.congestion = 3, 40, [0.0, 0.9]
    started = time.perf_counter()
    result = measure(args)
    result["seconds"] = round(time.perf_counter() - started, 1)
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"landing-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    print(f"\n(written to {path.relative_to(ROOT)})")


if __name__ == "__main__":
    main()
