"""Whatever an RPC node sends back, ChainRpc returns a result or raises one launchops
error with a one-line message: random JSON, near-misses of the JSON-RPC shapes, wrong
types, huge numbers, truncated and binary bodies, any HTTP status. Never another
exception, never a solders panic. Answers so arbitrary no sandbox serves them: this is the
one place a mocked transport stands in for the node. A few hundred cases in CI;
`LAUNCHOPS_FUZZ_EXAMPLES=10000 pytest tests/chaos/test_rpc_fuzz.py` by hand."""

from __future__ import annotations

import asyncio
import json
import os

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solders.keypair import Keypair
from solders.pubkey import Pubkey

from launchops.chain.rpc import ChainRpc
from launchops.errors import LaunchOpsError
from launchops.retries import RetryPolicy

EXAMPLES = int(os.environ.get("LAUNCHOPS_FUZZ_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
SIGNATURE = str(Keypair().sign_message(b"x"))
KEY = Keypair().pubkey()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from([SIGNATURE, str(KEY), "confirmed", "finalized", "11111111111111111111"]),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "slot",
                    "value",
                    "context",
                    "err",
                    "confirmationStatus",
                    "absoluteSlot",
                    "blockHeight",
                    "blockhash",
                    "lastValidBlockHeight",
                    "code",
                    "message",
                    "data",
                    "logs",
                    "owner",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)
envelopes = st.one_of(
    values.map(lambda v: {"jsonrpc": "2.0", "id": 1, "result": v}),
    values.map(lambda v: {"jsonrpc": "2.0", "id": 1, "error": v}),
    st.tuples(values, values).map(
        lambda cv: {"jsonrpc": "2.0", "id": 1, "result": {"context": cv[0], "value": cv[1]}}
    ),
    st.tuples(st.integers(-40000, 40000), st.text(max_size=20), values).map(
        lambda e: {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": e[0], "message": e[1], "data": e[2]},
        }
    ),
    values,
)
bodies = st.one_of(
    envelopes.map(lambda b: json.dumps(b).encode()),
    envelopes.map(lambda b: json.dumps(b).encode()).flatmap(
        lambda raw: st.integers(0, len(raw)).map(lambda cut: raw[:cut])
    ),
    st.binary(max_size=64),
)
statuses = st.sampled_from([200, 200, 200, 200, 400, 413, 429, 500, 502, 503, 504])


def _calls(rpc: ChainRpc) -> list:
    return [
        rpc.epoch,
        rpc.block_height,
        rpc.latest_blockhash,
        rpc.genesis_hash,
        lambda: rpc.statuses_at([Keypair().sign_message(b"y")]),
        lambda: rpc.send(b"\x01" + bytes(64) + b"\x00", skip_preflight=True),
        lambda: rpc.existing([KEY, Pubkey.default()], min_context_slot=5),
        lambda: rpc.balance(KEY),
        lambda: rpc.lookup_tables([KEY]),
        lambda: rpc.simulate(b"\x00"),
    ]


@SETTINGS
@given(body=bodies, status=statuses, which=st.integers(0, 9))
def test_any_answer_is_a_result_or_one_clear_error(body, status, which):
    transport = httpx.MockTransport(lambda request: httpx.Response(status, content=body))
    rpc = ChainRpc("http://node.invalid", retry=RetryPolicy(attempts=1))
    rpc._http = httpx.AsyncClient(transport=transport)

    async def run() -> None:
        try:
            await _calls(rpc)[which]()
        except LaunchOpsError as exc:
            assert "\n" not in str(exc) and str(exc)
        finally:
            await rpc.close()

    asyncio.run(run())
