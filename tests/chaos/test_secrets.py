"""No byte of the secret key (raw, base58, JSON or base64 form) reaches a log, the journal,
a result file, a report, or Prefect's storage, across a launch, a batch and a Prefect run.
The key's own file (0600) is the one place it lives. Nor does the key an RPC URL carries
(`?api-key=`), or the password of a service URL."""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import base58

from tests.support import forks
from tests.support.pipeline import dump_yaml, profile_env, write_launch

if TYPE_CHECKING:
    from solders.keypair import Keypair


def forms(secret: bytes) -> list[bytes]:
    numbers = list(secret)
    return [
        secret,
        secret[:32],  # the seed alone
        base58.b58encode(secret),
        base64.b64encode(secret),
        json.dumps(numbers).encode(),
        json.dumps(numbers, separators=(",", ":")).encode(),
        ",".join(str(n) for n in numbers[:32]).encode(),
    ]


def run(env, *args: str) -> bytes:
    done = forks.run(
        [sys.executable, "-m", "launchops.cli", *args], capture_output=True, env=env, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout + done.stderr


def stored(home: Path) -> list[Path]:
    """Every file launchops' home and Prefect's hold."""
    places = [p for p in home.rglob("*") if p.is_file()]
    return places + [p for p in Path(os.environ["PREFECT_HOME"]).rglob("*") if p.is_file()]


def assert_nowhere(secrets: list[bytes], outputs: bytes, places: list[Path]) -> None:
    for secret in secrets:
        assert secret not in outputs, "a secret reached the output"
        for place in places:
            assert secret not in place.read_bytes(), f"a secret reached {place}"


def curve_launch(folder: Path, index: int, buyer: Keypair) -> Path:
    """A bonding-curve launch file whose first buy is `buyer`'s (its key in a 0600 file
    beside it), with a Twitter verification token from the environment."""
    key_file = folder / f"buyer-{index}.json"
    key_file.write_text(json.dumps(list(bytes(buyer))))
    key_file.chmod(0o600)
    launch = folder / f"curve-{index}.yaml"
    document = {
        "id": f"secret-curve-{index}",
        "name": "Secret Curve",
        "symbol": f"SEC{index}",
        "image": "https://gateway.irys.xyz/secret",
        "externalLinks": {"twitter": "@secret"},
        "bondingCurve": {"firstBuyAmount": "0.5", "firstBuyWallet": f"file:{key_file}"},
        "twitterVerificationToken": "${TWITTER_VERIFICATION_TOKEN}",
    }
    launch.write_text(dump_yaml(document))
    return launch


def test_the_secret_key_appears_nowhere(sandbox_factory, tmp_path, prefect_server):
    from prefect.settings import PREFECT_API_URL

    sandbox = sandbox_factory()
    home = tmp_path / "home"
    api_key, password = f"rpcK{os.urandom(12).hex()}", f"svcP{os.urandom(12).hex()}"
    env = {
        **profile_env(sandbox, home),
        "LAUNCHOPS_RPC_URL": f"{sandbox.rpc_url}/?api-key={api_key}",
        "LAUNCHOPS_BASE_URL": sandbox.base_url.replace("://", f"://ops:{password}@", 1),
        "PREFECT_API_URL": PREFECT_API_URL.value(),
        "PREFECT_LOGGING_LEVEL": "DEBUG",
    }
    outputs = run(
        env, "launch", str(write_launch(tmp_path / "one", key="secret-plain")), "--no-prefect"
    )
    batch = tmp_path / "batch"
    for index in range(3):
        write_launch(batch, f"b{index}.yaml", key=f"secret-batch-{index}", symbol=f"S{index}")
    outputs += run(env, "batch", str(batch), "--no-prefect")
    outputs += run(env, "launch", str(write_launch(tmp_path / "flow", key="secret-flow")), "--json")
    outputs += run(env, "batch", str(batch))  # through Prefect: reports and the artifact
    key_file = home / "sandbox" / "sandbox-keypair.json"
    secret = bytes(json.loads(key_file.read_text()))
    assert oct(key_file.stat().st_mode & 0o777) == "0o600"
    assert any(form in key_file.read_bytes() for form in forms(secret))  # the scan does find it
    places = [p for p in stored(home) if p != key_file]
    assert any(p.name == "journal.db" for p in places) and any(p.suffix == ".csv" for p in places)
    assert_nowhere([*forms(secret), api_key.encode(), password.encode()], outputs, places)


def test_the_first_buyers_key_and_the_twitter_token_appear_nowhere(
    sandbox_factory, tmp_path, prefect_server
):
    """A bonding curve bought first by another wallet, with a Twitter verification token:
    plain and through Prefect (DEBUG), resumed from the journal, its status read. Neither
    the buyer's key (any form) nor the token reaches an output, the journal, a result,
    Prefect's storage; the journal keeps only which secrets the file gives."""
    import asyncio

    from prefect.settings import PREFECT_API_URL
    from solana.rpc.async_api import AsyncClient
    from solders.keypair import Keypair

    import launchops.web as web
    from tests.support.solana import funded_keypair

    sandbox = sandbox_factory()
    home = tmp_path / "home"
    token = f"tvt_{Keypair().pubkey()}"  # a verification token only this test knows

    async def fund() -> list[Keypair]:
        async with AsyncClient(sandbox.rpc_url) as rpc:
            return [await funded_keypair(rpc) for _ in range(2)]

    buyers = asyncio.run(fund())
    env = {
        **profile_env(sandbox, home),
        "PREFECT_API_URL": PREFECT_API_URL.value(),
        "PREFECT_LOGGING_LEVEL": "DEBUG",
        "TWITTER_VERIFICATION_TOKEN": token,
    }
    outputs = b""
    for index, (buyer, prefect) in enumerate(zip(buyers, (False, True), strict=True)):
        launch = curve_launch(tmp_path, index, buyer)
        outputs += run(env, "launch", str(launch), "--json", *([] if prefect else ["--no-prefect"]))
        outputs += run(env, "resume", f"secret-curve-{index}", "--no-prefect", "--json")
        outputs += run(env, "status", f"secret-curve-{index}", "--json")
    status = json.loads(run(env, "status", "--json"))
    assert {r["state"] for r in status} == {"registered"}
    for record in status:
        kept = web.get(f"{sandbox.url}/_sandbox/registrations/{record['genesisAccount']}").json()
        assert kept["twitterVerified"] is True  # the token was sent with register
    secrets = [form for buyer in buyers for form in forms(bytes(buyer))] + [token.encode()]
    places = stored(home)
    assert any(p.name == "journal.db" for p in places)
    assert_nowhere(secrets, outputs, places)
